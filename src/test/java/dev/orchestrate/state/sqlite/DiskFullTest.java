package dev.orchestrate.state.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.sql.Jdbc;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 point 8: a full database says so, in one line naming the file, and loses nothing committed. */
class DiskFullTest {
  @TempDir
  Path dir;

  @Test
  void a_transaction_that_fills_the_database_says_the_disk_is_full_and_where_and_keeps_what_was_committed()
      throws Exception {
    Path file = dir.resolve("state/state.db");
    Connection connection = Database.open(file);
    Jdbc jdbc = new Jdbc(connection, new SqliteDialect(file));
    jdbc.execute("INSERT INTO memories (seq, id, kind, title, content, tags, created_at, load_bearing)"
        + " VALUES (1, 'kept', 'semantic', '', 'committed before', '[]', 0, 1)");
    long pages = jdbc.queryLong("PRAGMA page_count");
    try (Statement st = connection.createStatement()) {
      st.execute("PRAGMA max_page_count = " + (pages + 3)); // SQLITE_FULL for real, a few pages on
    }

    StoreException e = assertThrows(StoreException.class, () -> jdbc.inTransaction(() -> {
      for (int i = 2; i < 200; i++) {
        jdbc.execute("INSERT INTO memories (seq, id, kind, title, content, tags, created_at, load_bearing)"
            + " VALUES (?, ?, 'semantic', '', ?, '[]', 0, 1)", i, "m" + i, "x".repeat(4_000));
      }
    }));

    String message = e.getMessage();
    assertFalse(message.contains("\n"), message);
    assertFalse(message.contains("no transaction is active"), message);
    assertTrue(message.startsWith("state database " + file + ": the disk is full"), message);
    assertTrue(message.contains("free space on the file system holding " + file.getParent()), message);
    assertEquals(1, jdbc.queryLong("SELECT count(*) FROM memories"), "the failed transaction left nothing");

    try (Statement st = connection.createStatement()) {
      st.execute("PRAGMA max_page_count = 1073741823"); // space freed
    }
    jdbc.inTransaction(() -> jdbc.execute("INSERT INTO memories (seq, id, kind, title, content, tags, created_at,"
        + " load_bearing) VALUES (2, 'after', 'semantic', '', 'y', '[]', 0, 1)"));
    assertEquals(2, jdbc.queryLong("SELECT count(*) FROM memories"), "writes work again once there is room");
    connection.close();
  }

  @Test
  void an_autocommit_write_that_fills_the_database_says_the_same() throws Exception {
    Path file = dir.resolve("state.db");
    Connection connection = Database.open(file);
    Jdbc jdbc = new Jdbc(connection, new SqliteDialect(file));
    long pages = jdbc.queryLong("PRAGMA page_count");
    try (Statement st = connection.createStatement()) {
      st.execute("PRAGMA max_page_count = " + pages);
    }
    StoreException e = assertThrows(StoreException.class, () -> jdbc.execute(
        "INSERT INTO memories (seq, id, kind, title, content, tags, created_at, load_bearing)"
            + " VALUES (1, 'big', 'semantic', '', ?, '[]', 0, 1)",
        "x".repeat(100_000)));
    assertTrue(e.getMessage().startsWith("state database " + file + ": the disk is full"), e.getMessage());
    connection.close();
  }
}
