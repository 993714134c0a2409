package dev.orchestrate.state.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateLockedException;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.testing.Db;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQLite file itself: its schema version, what is not a database, the run lock, the migration scripts. */
class DatabaseTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  @TempDir
  Path dir;

  private Path db() {
    return dir.resolve("state.db");
  }

  private String sql(String query) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  @Test
  void the_schema_version_is_recorded_and_a_newer_database_is_refused() throws Exception {
    SqliteBackend.store(db(), StateStore.Mode.READ_WRITE).close();
    assertEquals(String.valueOf(Database.latestSchemaVersion()), sql("PRAGMA user_version"));
    assertEquals("wal", sql("PRAGMA journal_mode"));
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.executeUpdate("PRAGMA user_version = 99");
    }
    StoreException e = assertThrows(StoreException.class, () -> SqliteBackend.store(db(), StateStore.Mode.READ_WRITE));
    assertTrue(e.getMessage().contains("has schema version 99, newer than this orchestrate knows"), e.getMessage());
  }

  @Test
  void a_file_that_is_not_a_database_gives_a_clear_error() throws Exception {
    Files.writeString(db(), "this is not sqlite ".repeat(100));
    StoreException e = assertThrows(StoreException.class, () -> SqliteBackend.store(db(), StateStore.Mode.READ_WRITE));
    assertTrue(e.getMessage().endsWith("is not a SQLite database; move it away or use another state directory"),
        e.getMessage());
  }

  @Test
  @SuppressWarnings("try") // the lock is held for the block, never read
  void a_second_lock_on_the_same_state_directory_is_refused_with_the_holder() {
    StateDirectory state = new StateDirectory(dir.resolve("s"));
    try (RunLock held = RunLock.acquire(state, T0)) {
      StateLockedException e = assertThrows(StateLockedException.class, () -> RunLock.acquire(state, T0));
      assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid() + ", started " + T0), e.getMessage());
    }
    RunLock.acquire(state, T0).close(); // released: can be taken again
  }

  @Test
  void migration_scripts_split_into_statements_without_comments() {
    List<String> statements = Database
        .statements("-- a; comment\nCREATE TABLE a (x INT); -- trailing;\nCREATE INDEX i ON a(x);\n");
    assertEquals(List.of("CREATE TABLE a (x INT)", "CREATE INDEX i ON a(x)"), statements);
  }

  @Test
  void a_trigger_body_stays_one_statement() {
    List<String> statements = Database.statements(
        "CREATE TRIGGER t AFTER INSERT ON a\n  BEGIN UPDATE b SET n = n + 1; UPDATE c SET n = 0; END;\nCREATE TABLE d (x INT);");
    assertEquals(List.of("CREATE TRIGGER t AFTER INSERT ON a\n  BEGIN UPDATE b SET n = n + 1; UPDATE c SET n = 0; END",
        "CREATE TABLE d (x INT)"), statements);
  }

  @Test
  void an_old_schema_state_opened_from_a_copy_has_its_absolute_paths_rewritten_to_relative_ones() throws Exception {
    Path original = dir.resolve("original");
    Files.createDirectories(original);
    OldSchemas.create(original.resolve("state.db"), 6, """
        INSERT INTO runs (id, started_at, pid) VALUES (1, 0, 1);
        INSERT INTO jobs (run_id, item_id, phase, attempt, state, started_at, log_path)
          VALUES (1, 'A', 'build', 1, 'completed', 0, '%1$s/jobs/run1-0001-A-build-1/output.log');
        INSERT INTO jobs (run_id, item_id, phase, attempt, state, started_at, log_path)
          VALUES (1, 'B', 'build', 1, 'completed', 0, '/somewhere/else/output.log');
        INSERT INTO jobs (run_id, item_id, phase, attempt, state, started_at, log_path)
          VALUES (1, 'C', 'build', 1, 'completed', 0, NULL)""".formatted(original));
    Path copy = dir.resolve("copy");
    Files.createDirectories(copy);
    Files.copy(original.resolve("state.db"), copy.resolve("state.db"));

    try (StateStore store = SqliteBackend.store(copy.resolve("state.db"), StateStore.Mode.READ_WRITE)) {
      assertEquals(List.of("null", "/somewhere/else/output.log",
          copy.resolve("jobs/run1-0001-A-build-1/output.log").toString()),
          store.items().recentJobs(10).stream().map(j -> String.valueOf(j.logPath())).toList());
    }
    assertEquals(List.of("jobs/run1-0001-A-build-1/output.log", "/somewhere/else/output.log"),
        Db.column(copy.resolve("state.db"), "SELECT log_path FROM jobs WHERE log_path IS NOT NULL ORDER BY id"));
    assertEquals(List.of(original + "/jobs/run1-0001-A-build-1/output.log", "/somewhere/else/output.log"),
        Db.column(original.resolve("state.db"), "SELECT log_path FROM jobs WHERE log_path IS NOT NULL ORDER BY id"),
        "the original is not touched");
  }
}
