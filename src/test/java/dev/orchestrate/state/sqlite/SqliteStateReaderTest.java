package dev.orchestrate.state.sqlite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.state.RecordedPolicies;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A read-only store of a SQLite file: no migration, no file created, older schemas read as they are. */
class SqliteStateReaderTest {
  private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  @TempDir
  Path dir;

  private Path db() {
    return dir.resolve("state.db");
  }

  private static BacklogItem item(String id) {
    return new BacklogItem(id, "title " + id, "feature", Priority.MEDIUM, List.of(), List.of(), "", InitialStatus.NEW);
  }

  private StateStore writer() {
    return new SqliteBackend(new StateDirectory(dir)).open(StateStore.Mode.READ_WRITE);
  }

  /** What {@code run --dry-run} and the checks before a lease open: no migration, nothing written. */
  private StateStore reader() {
    return new SqliteBackend(new StateDirectory(dir)).open(StateStore.Mode.READ_ONLY);
  }

  private List<String> files() throws Exception {
    try (Stream<Path> all = Files.list(dir)) {
      return all.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void a_closed_database_is_read_without_a_byte_changed_or_a_file_created_beside_it() throws Exception {
    try (StateStore store = writer()) {
      store.items().sync(List.of(item("A"), item("B")), T0);
    }
    List<String> before = files();
    byte[] bytes = Files.readAllBytes(db());
    try (StateStore reader = reader()) {
      assertEquals(reader.latestSchemaVersion(), reader.schemaVersion());
      assertEquals(List.of("A", "B"), reader.items().items().stream().map(ItemState::id).toList());
      assertEquals(Set.of("A", "B"), reader.itemIds());
      assertEquals(before, files(), "no -wal, -shm or journal while reading");
    }
    // the .gitignore is the writer's, which created the state directory
    assertEquals(List.of(".gitignore", "state.db"), files());
    assertArrayEquals(bytes, Files.readAllBytes(db()));
  }

  @Test
  void beside_an_open_writer_the_reader_sees_its_commits_and_cannot_write() throws Exception {
    try (StateStore store = writer()) {
      store.items().sync(List.of(item("A")), T0);
      try (StateStore reader = reader()) {
        assertEquals(Set.of("A"), reader.itemIds());
      }
      store.items().sync(List.of(item("A"), item("B")), T0);
      try (StateStore reader = reader()) {
        assertEquals(Set.of("A", "B"), reader.itemIds(), "commits still in the WAL are seen");
      }
    }
  }

  @Test
  void a_state_a_kill_left_without_a_table_reads_as_one_where_nothing_was_recorded() throws Exception {
    // what a run killed before its first migration committed leaves: the file, in WAL mode, no table
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.execute("PRAGMA journal_mode = WAL");
    }
    byte[] bytes = Files.readAllBytes(db());
    try (StateStore reader = reader()) {
      assertEquals(List.of(), reader.items().items());
      assertEquals(List.of(), reader.items().recentJobs(100));
      assertTrue(reader.items().lastRun().isEmpty());
      assertTrue(reader.recordedPolicies().nothingRecorded());
      assertEquals(reader.latestSchemaVersion(), reader.schemaVersion());
    }
    assertArrayEquals(bytes, Files.readAllBytes(db()));
    assertEquals(List.of("state.db"), files());
    try (StateStore writer = writer()) {
      writer.items().sync(List.of(item("A")), T0);
    }
    try (StateStore reader = reader()) {
      assertEquals(List.of("A"), reader.items().items().stream().map(ItemState::id).toList(),
          "the next run creates it in the file");
    }
  }

  @Test
  void an_empty_state_file_reads_as_one_where_nothing_was_recorded() throws Exception {
    Files.write(db(), new byte[0]); // created, then killed before SQLite wrote its first page
    try (StateStore reader = reader()) {
      assertEquals(List.of(), reader.items().items());
      assertTrue(reader.items().lastRun().isEmpty());
    }
    assertEquals(0, Files.size(db()));
    assertEquals(List.of("state.db"), files());
  }

  @Test
  void a_schema_3_database_is_read_as_it_is_and_not_migrated() throws Exception {
    OldSchemas.create(db(), 3, """
        INSERT INTO items (id, seq, title, pipeline, priority, status, phase, created_at, updated_at)
          VALUES ('A', 1, 'a', 'feature', 'high', 'done', 'review', 0, 0);
        INSERT INTO items (id, seq, title, pipeline, priority, status, created_at, updated_at)
          VALUES ('B', 2, 'b', 'feature', 'medium', 'new', 0, 0)""");
    byte[] bytes = Files.readAllBytes(db());
    try (StateStore reader = reader()) {
      assertEquals(3, reader.schemaVersion());
      assertTrue(reader.schemaVersion() < reader.latestSchemaVersion());
      List<ItemState> items = reader.items().items();
      assertEquals(List.of("A", "B"), items.stream().map(ItemState::id).toList());
      assertEquals("done", items.get(0).progress().status().key());
      assertNull(items.get(0).origin(), "no follow-ups before schema 4");
      assertTrue(reader.recordedPolicies().nothingRecorded(), "no structures table before schema 5");
    }
    assertArrayEquals(bytes, Files.readAllBytes(db()));
    assertEquals(List.of("state.db"), files());
  }

  @Test
  void a_schema_10_state_reads_no_sessions_or_checks_and_is_not_migrated() throws Exception {
    OldSchemas.create(db(), 10, """
        INSERT INTO items (id, seq, title, pipeline, priority, status, phase, created_at, updated_at)
          VALUES ('A', 1, 'a', 'feature', 'high', 'in_progress', 'build', 0, 0);
        INSERT INTO runs (id, started_at, pid) VALUES (1, 0, 7);
        INSERT INTO jobs (id, run_id, item_id, phase, attempt, state, result, started_at, ended_at, exit_code,
                          log_path, outcome)
          VALUES (5, 1, 'A', 'build', 1, 'failed', 'failed', 0, 1000, 1, 'jobs/a/output.log', 'failed')""");
    byte[] bytes = Files.readAllBytes(db());
    try (StateStore reader = reader()) {
      assertEquals(10, reader.schemaVersion());
      assertEquals(java.util.Map.of(5L, dev.orchestrate.outcome.OutcomeClass.FAILED),
          reader.items().outcomes(List.of(5L)));
      assertEquals(java.util.Map.of(), reader.items().sessions(List.of(5L)));
      assertEquals(java.util.Map.of(), reader.items().checks(List.of(5L)));
      assertEquals(java.util.Map.of(), reader.dashboard().jobSessions(List.of(5L)));
      assertEquals(java.util.Map.of(), reader.dashboard().jobChecks(List.of(5L)));
    }
    assertArrayEquals(bytes, Files.readAllBytes(db()));
    assertEquals(List.of("state.db"), files());
  }

  @Test
  void the_dashboard_reads_a_schema_6_state_but_not_a_schema_5_one() throws Exception {
    OldSchemas.create(db(), 5, "");
    try (StateStore reader = reader()) {
      assertFalse(reader.dashboard().readable());
    }
    Files.delete(db());
    OldSchemas.create(db(), 6, "");
    try (StateStore reader = reader()) {
      assertTrue(reader.dashboard().readable());
    }
  }

  @Test
  void a_newer_schema_is_refused_with_the_same_message_as_open() throws Exception {
    writer().close();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.executeUpdate("PRAGMA user_version = 99");
    }
    StoreException e = assertThrows(StoreException.class, () -> reader());
    assertTrue(e.getMessage().contains("has schema version 99, newer than this orchestrate knows"), e.getMessage());
  }

  @Test
  void without_recorded_policies_every_structure_takes_its_default() {
    writer().close();
    try (StateStore reader = reader()) {
      RecordedPolicies recorded = reader.recordedPolicies();
      assertTrue(recorded.nothingRecorded());
      assertEquals(List.of("jobs", "turns", "events", "stats_samples", "memory"), recorded.defaulted());
      assertEquals(RetentionConfig.defaults(), recorded.retention());
      assertEquals(50, recorded.memoryKeepRecent());
    }
  }

  @Test
  void recorded_policies_are_read_back_with_null_limits_as_none() {
    RetentionConfig applied = new RetentionConfig(RetentionConfig.DEFAULT_INTERVAL, RetentionConfig.DEFAULT_BUDGET,
        Policy.NONE, Policy.of(100_000, null), Policy.of(null, Duration.ofDays(90)),
        Policy.of(5, Duration.ofHours(1)));
    try (StateStore store = writer()) {
      store.retention().recordPolicies(applied, 7);
    }
    try (StateStore reader = reader()) {
      RecordedPolicies recorded = reader.recordedPolicies();
      assertEquals(List.of(), recorded.defaulted());
      assertFalse(recorded.nothingRecorded());
      assertEquals(applied, recorded.retention());
      assertEquals(7, recorded.memoryKeepRecent());
    }
  }
}
