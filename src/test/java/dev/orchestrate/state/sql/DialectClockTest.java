package dev.orchestrate.state.sql;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The database's clock as a dialect writes it reads as epoch milliseconds. */
class DialectClockTest {
  @TempDir
  Path dir;

  @Test
  void sqlite_clock_millis_is_the_epoch_in_milliseconds() {
    try (SqlStateStore store = SqliteStores.open(dir.resolve("state.db"))) {
      long before = System.currentTimeMillis();
      long clock = store.jdbc().queryLong("SELECT " + store.jdbc().dialect().clockMillis());
      long after = System.currentTimeMillis();
      assertTrue(clock >= before - 5 && clock <= after + 5, before + " <= " + clock + " <= " + after);
    }
  }
}
