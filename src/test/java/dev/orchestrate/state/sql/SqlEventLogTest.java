package dev.orchestrate.state.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.item.EventLog;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Event-log compaction keeps every load-bearing kind and the newest row; routine rows go past the retention. */
class SqlEventLogTest {
  @TempDir
  Path dir;

  /** 3 routine rows, the event under test, 3 routine rows; compacts with retention 0. */
  private List<String> compactAround(String kind, String payload) {
    return compactAround(kind, payload, 5);
  }

  private List<String> compactAround(String kind, String payload, int expectedDeleted) {
    Path db = dir.resolve("state-" + kind.replace(':', '-')).resolve("state.db");
    try (SqlStateStore store = SqliteStores.open(db)) {
      Jdbc jdbc = store.jdbc();
      for (int i = 0; i < 3; i++) {
        jdbc.execute("INSERT INTO events (at, item_id, kind, payload) VALUES (1, 'A', 'phase.result', '{}')");
      }
      jdbc.execute("INSERT INTO events (at, item_id, kind, payload) VALUES (2, 'A', ?, ?)", kind, payload);
      for (int i = 0; i < 3; i++) {
        jdbc.execute("INSERT INTO events (at, item_id, kind, payload) VALUES (3, 'A', 'item.added', '{}')");
      }
    }
    try (SqlStateStore store = SqliteStores.open(db)) {
      SqlEventLog log = new SqlEventLog(store.jdbc());
      EventLog.EventCompaction result = log.compact(0, false);
      assertEquals(expectedDeleted, result.deleted(), "every routine row but the newest");
      assertEquals(0, log.compact(0, false).deleted(), "idempotent");
    }
    try (SqlStateStore store = SqliteStores.open(db)) {
      return store.jdbc().query("SELECT id || ' ' || kind FROM events ORDER BY id", rs -> rs.getString(1));
    }
  }

  @Test
  void a_transition_to_done_is_kept() {
    assertEquals(List.of("4 item.status", "7 item.added"),
        compactAround("item.status", "{\"from\":\"in_progress\",\"to\":\"done\"}"));
  }

  @Test
  void a_block_is_kept() {
    assertEquals(List.of("4 item.status", "7 item.added"),
        compactAround("item.status", "{\"from\":\"in_progress\",\"to\":\"blocked\",\"reason\":\"x\"}"));
  }

  @Test
  void an_unblock_is_kept() {
    assertEquals(List.of("4 item.status", "7 item.added"),
        compactAround("item.status", "{\"from\":\"blocked\",\"to\":\"in_progress\"}"));
  }

  @Test
  void a_memory_change_is_kept() {
    assertEquals(List.of("4 memory.superseded", "7 item.added"),
        compactAround("memory.superseded", "{\"id\":\"a\",\"by\":\"b\"}"));
  }

  @Test
  void an_unknown_kind_is_kept() {
    assertEquals(List.of("4 webhook.delivered", "7 item.added"),
        compactAround("webhook.delivered", "{\"status\":200}"));
  }

  @Test
  void summarization_events_are_routine_and_pruned() {
    assertEquals(List.of("7 item.added"), compactAround("summarization:complete", "{\"turnsCondensed\":6}", 6));
    assertEquals(List.of("7 item.added"), compactAround("summarization:failed", "{\"error\":\"timeout\"}", 6));
  }

  @Test
  void a_routine_transition_is_pruned_and_only_the_newest_row_survives() {
    Path db = dir.resolve("state.db");
    List<String> left = compactAroundRoutine(db);
    assertEquals(List.of("7 item.added"), left);
  }

  private List<String> compactAroundRoutine(Path db) {
    try (SqlStateStore store = SqliteStores.open(db)) {
      Jdbc jdbc = store.jdbc();
      for (int i = 0; i < 6; i++) {
        jdbc.execute("INSERT INTO events (at, item_id, kind, payload) VALUES (1, 'A', 'item.status', "
            + "'{\"from\":\"ready\",\"to\":\"in_progress\"}')");
      }
      jdbc.execute("INSERT INTO events (at, item_id, kind, payload) VALUES (3, 'A', 'item.added', '{}')");
    }
    try (SqlStateStore store = SqliteStores.open(db)) {
      SqlEventLog log = new SqlEventLog(store.jdbc());
      assertEquals(6, log.compact(0, true).deleted(), "dry run counts");
      assertEquals(6, log.compact(0, false).deleted());
    }
    try (SqlStateStore store = SqliteStores.open(db)) {
      return store.jdbc().query("SELECT id || ' ' || kind FROM events ORDER BY id", rs -> rs.getString(1));
    }
  }

  @Test
  void the_retention_keeps_the_newest_routine_rows_across_pages() {
    Path db = dir.resolve("state.db");
    int n = SqlEventLog.PAGE * 2 + 123;
    try (SqlStateStore store = SqliteStores.open(db)) {
      Jdbc jdbc = store.jdbc();
      jdbc.inTransaction(() -> {
        for (int i = 0; i < n; i++) {
          jdbc.execute("INSERT INTO events (at, item_id, kind, payload) VALUES (?, 'A', ?, '{}')", i,
              i % 1000 == 0 ? "memory.put" : "phase.result");
        }
      });
    }
    try (SqlStateStore store = SqliteStores.open(db)) {
      SqlEventLog log = new SqlEventLog(store.jdbc());
      EventLog.EventCompaction result = log.compact(100, false);
      assertEquals(12, result.keptLoadBearing(), "11 memory.put + the newest row");
      assertEquals(100, result.keptRecent());
      assertEquals(n - 112, result.deleted());
    }
    try (SqlStateStore store = SqliteStores.open(db)) {
      Jdbc jdbc = store.jdbc();
      assertEquals(112, jdbc.queryLong("SELECT COUNT(*) FROM events"));
      assertEquals(11, jdbc.queryLong("SELECT COUNT(*) FROM events WHERE kind = 'memory.put'"));
      assertEquals(n, jdbc.queryLong("SELECT MAX(id) FROM events"));
    }
  }
}
