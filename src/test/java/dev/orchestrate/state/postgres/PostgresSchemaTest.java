package dev.orchestrate.state.postgres;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state's schema and its migrations, on the embedded server, checked with plain SQL beside the store. */
class PostgresSchemaTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  @TempDir
  Path dir;

  private String schema;

  @BeforeEach
  void freshSchema() {
    schema = EmbeddedPostgresServer.freshSchema("schema");
  }

  private PostgresBackend backend() {
    return new PostgresBackend(EmbeddedPostgresServer.location(schema), new StateDirectory(dir), Map.of(),
        dir.resolve("home"), line -> {});
  }

  private static List<String> rows(String sql) throws Exception {
    try (Connection c = EmbeddedPostgresServer.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    }
  }

  private static void execute(String sql) throws Exception {
    try (Connection c = EmbeddedPostgresServer.connect(); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  @Test
  void the_first_open_creates_the_schema_at_the_latest_version_and_a_second_does_not_migrate_again()
      throws Exception {
    assertEquals(List.of(), rows("SELECT nspname FROM pg_namespace WHERE nspname = '" + schema + "'"));
    try (StateStore store = backend().open(StateStore.Mode.READ_WRITE)) {
      assertEquals(PostgresSchema.latest(), store.schemaVersion());
      store.items().sync(List.of(item("A")), T0);
    }
    List<String> applied = rows("SELECT version || ' ' || applied_at FROM " + schema + ".schema_version");
    assertEquals(PostgresSchema.latest(), applied.size());
    assertTrue(rows("SELECT table_name FROM information_schema.tables WHERE table_schema = '" + schema + "'")
        .containsAll(List.of("items", "jobs", "runs", "events", "memories", "turns", "context_summaries",
            "stats_samples", "workspaces", "structures", "usage_totals", "runners", "schema_version")));

    try (StateStore store = backend().open(StateStore.Mode.READ_WRITE)) {
      assertEquals(List.of("A"), store.items().items().stream().map(i -> i.id()).toList());
    }
    assertEquals(applied, rows("SELECT version || ' ' || applied_at FROM " + schema + ".schema_version"),
        "the second open applied nothing");
    assertEquals(List.of("1"), rows("SELECT rows_written FROM " + schema + ".structures WHERE name = 'items'"),
        "the counters were not reset either");
  }

  @Test
  void a_newer_schema_is_refused_read_write_and_read_only() throws Exception {
    backend().open(StateStore.Mode.READ_WRITE).close();
    execute("INSERT INTO " + schema + ".schema_version (version, applied_at) VALUES (99, 0)");
    for (StateStore.Mode mode : StateStore.Mode.values()) {
      StoreException e = assertThrows(StoreException.class, () -> backend().open(mode));
      assertEquals("state database " + EmbeddedPostgresServer.location(schema) + " has schema version 99, newer"
          + " than this orchestrate knows (" + PostgresSchema.latest() + "); upgrade orchestrate", e.getMessage(),
          mode.name());
    }
  }

  @Test
  void a_read_only_open_of_a_missing_schema_creates_nothing_and_reads_no_state() throws Exception {
    try (StateStore store = backend().open(StateStore.Mode.READ_ONLY)) {
      assertEquals(0, store.schemaVersion());
      assertEquals(List.of(), store.items().items());
    }
    assertEquals(List.of(), rows("SELECT nspname FROM pg_namespace WHERE nspname = '" + schema + "'"));
    assertFalse(backend().exists());
  }

  @Test
  void processes_opening_a_new_state_at_once_migrate_it_once() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> opened = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Callable<Integer> open = () -> {
          try (StateStore store = backend().open(StateStore.Mode.READ_WRITE)) {
            return store.schemaVersion();
          }
        };
        opened.add(pool.submit(open));
      }
      for (Future<Integer> f : opened) {
        assertEquals(PostgresSchema.latest(), f.get());
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(List.of(String.valueOf(PostgresSchema.latest())),
        rows("SELECT COUNT(*) FROM " + schema + ".schema_version"));
    assertEquals(List.of("9"), rows("SELECT COUNT(*) FROM " + schema + ".structures"), "seeded once");
  }

  @Test
  void two_states_in_one_database_are_two_schemas_that_do_not_see_each_other() throws Exception {
    String other = EmbeddedPostgresServer.freshSchema("schema");
    try (StateStore a = backend().open(StateStore.Mode.READ_WRITE);
        StateStore b = new PostgresBackend(EmbeddedPostgresServer.location(other), new StateDirectory(dir), Map.of(),
            dir.resolve("home"), line -> {}).open(StateStore.Mode.READ_WRITE)) {
      a.items().sync(List.of(item("A")), T0);
      b.items().sync(List.of(item("B"), item("C")), T0);
      assertEquals(List.of("A"), a.items().items().stream().map(i -> i.id()).toList());
      assertEquals(List.of("B", "C"), b.items().items().stream().map(i -> i.id()).toList());
    }
    assertEquals(List.of("1"), rows("SELECT COUNT(*) FROM " + schema + ".items"));
    assertEquals(List.of("2"), rows("SELECT COUNT(*) FROM " + other + ".items"));
  }
}
