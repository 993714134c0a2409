package dev.orchestrate.state.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.context.ContextSummary;
import dev.orchestrate.context.Turn;
import dev.orchestrate.context.TurnRepository;
import dev.orchestrate.state.sqlite.Database;
import dev.orchestrate.testing.Db;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqlTurnRepositoryTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  @TempDir
  Path dir;

  private List<String> column(String query) throws Exception {
    return Db.column(dir.resolve("state.db"), query);
  }

  @Test
  void turns_are_numbered_per_item_and_read_back_by_range_oldest_first() {
    try (SqlStateStore whole = SqliteStores.open(dir.resolve("state.db"))) {
      SqlStateRepository store = whole.repository();
      TurnRepository turns = whole.turns();
      assertEquals(0, turns.lastTurnSeq("A"));
      Turn first = turns.appendTurn("A", "design", 1, Turn.Role.USER, "Design it.", T0);
      turns.appendTurn("B", "design", 1, Turn.Role.USER, "Design B.", T0);
      turns.appendTurn("A", "design", 1, Turn.Role.ASSISTANT, "result: phase_complete", T0.plusSeconds(1));
      turns.appendTurn("A", "build", 2, Turn.Role.USER, "Build it.", T0.plusSeconds(2));

      assertEquals(new Turn("A", 1, "design", 1, Turn.Role.USER, "Design it.", 3, T0), first);
      assertEquals(3, turns.lastTurnSeq("A"));
      assertEquals(1, turns.lastTurnSeq("B"));
      List<Turn> middle = turns.turns("A", 1, 3);
      assertEquals(List.of(2L, 3L), middle.stream().map(Turn::seq).toList());
      assertEquals(Turn.Role.ASSISTANT, middle.get(0).role());
      assertEquals("build", middle.get(1).phase());
      assertEquals(2, middle.get(1).attempt());
      assertEquals(T0.plusSeconds(2), middle.get(1).at());
    }
  }

  @Test
  void the_summary_of_an_item_is_replaced_with_its_provenance_and_its_event_is_logged() throws Exception {
    try (SqlStateStore whole = SqliteStores.open(dir.resolve("state.db"))) {
      SqlStateRepository store = whole.repository();
      TurnRepository turns = whole.turns();
      Map<String, Object> payload = new LinkedHashMap<>();
      payload.put("turnsCondensed", 3);
      payload.put("summaryTokenEstimate", 7);
      turns.saveSummary(new ContextSummary("A", "- first", 1, 3, 3, "builtin", T0, false, 2),
          "summarization:complete", payload);
      ContextSummary second = new ContextSummary("A", "- second", 1, 5, 5, "openai:m", T0.plusSeconds(9), true, 3);
      turns.saveSummary(second, "summarization:complete", payload);
      turns.recordEvent("A", "summarization:failed", Map.of("error", "HTTP 500"), T0);

      assertEquals(second, turns.summary("A").orElseThrow());
      assertTrue(turns.summary("B").isEmpty());
    }
    assertEquals(List.of("1"), column("SELECT COUNT(*) FROM context_summaries"));
    assertEquals(List.of(
        "summarization:complete {\"turnsCondensed\":3,\"summaryTokenEstimate\":7}",
        "summarization:complete {\"turnsCondensed\":3,\"summaryTokenEstimate\":7}",
        "summarization:failed {\"error\":\"HTTP 500\"}"),
        column("SELECT kind || ' ' || payload FROM events WHERE item_id = 'A' ORDER BY id"));
    assertEquals(List.of(String.valueOf(Database.latestSchemaVersion())), column("PRAGMA user_version"));
  }
}
