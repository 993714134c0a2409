package dev.orchestrate.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.orchestrate.app.Inbox;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.BudgetConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The tools against a real SQLite state: bounded reads, tool errors the model can act on, items added to the state. */
class ToolsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir
  Path dir;

  private Path stateDir() {
    return dir.resolve(".orchestrate");
  }

  private Tools tools(boolean allowActions) {
    return new Tools(new Project(TestStores.backend(stateDir()), Config::defaults, () -> BudgetConfig.NONE,
        c -> dir, Clock.systemUTC()), allowActions);
  }

  private static BacklogItem item(String id) {
    return new BacklogItem(id, "title " + id, Config.DEFAULT_PIPELINE, Priority.MEDIUM, List.of(), List.of(), "",
        InitialStatus.NEW);
  }

  private void seed(String... ids) {
    try (StateStore store = TestStores.open(stateDir())) {
      store.items().sync(java.util.Arrays.stream(ids).map(ToolsTest::item).toList(), T0);
    }
  }

  private JsonNode call(boolean allowActions, String tool, String arguments) throws Exception {
    ObjectNode params = JSON.createObjectNode().put("name", tool);
    params.set("arguments", JSON.readTree(arguments));
    return tools(allowActions).call(params);
  }

  private static String text(JsonNode result) {
    return result.at("/content/0/text").asText();
  }

  @Test
  void list_items_filters_by_status_and_returns_a_page_with_the_total() throws Exception {
    seed("A", "B", "C", "D");
    JsonNode page = call(false, "list_items", "{\"limit\":2,\"offset\":1}").get("structuredContent");
    assertEquals(4, page.get("total").asInt());
    assertTrue(page.get("more").asBoolean());
    assertEquals(List.of("B", "C"), List.of(page.at("/items/0/id").asText(), page.at("/items/1/id").asText()));
    JsonNode none = call(false, "list_items", "{\"status\":[\"done\"]}").get("structuredContent");
    assertEquals(0, none.get("total").asInt());
    JsonNode bad = call(false, "list_items", "{\"status\":[\"finished\"]}");
    assertTrue(bad.get("isError").asBoolean());
    assertTrue(text(bad).contains("awaiting_review"), "names the statuses: " + text(bad));
  }

  @Test
  void a_bad_argument_is_a_tool_error_that_names_it() throws Exception {
    seed("A");
    JsonNode tooMany = call(false, "list_items", "{\"limit\":100000}");
    assertTrue(tooMany.get("isError").asBoolean());
    assertTrue(text(tooMany).contains("'limit' must be an integer from 1 to 1000"), text(tooMany));
    JsonNode unknown = call(false, "show_item", "{\"item\":\"A\"}");
    assertTrue(text(unknown).contains("has no argument 'item'; its arguments: id"), text(unknown));
    JsonNode missing = call(false, "show_item", "{}");
    assertTrue(text(missing).contains("needs the argument 'id'"), text(missing));
  }

  @Test
  void show_item_of_an_unknown_id_suggests_the_closest() throws Exception {
    seed("WRK-1", "WRK-2");
    JsonNode found = call(false, "show_item", "{\"id\":\"WRK-1\"}");
    assertFalse(found.get("isError").asBoolean(), text(found));
    assertEquals("title WRK-1", found.at("/structuredContent/title").asText());
    JsonNode unknown = call(false, "show_item", "{\"id\":\"WRK-3\"}");
    assertTrue(unknown.get("isError").asBoolean());
    assertTrue(text(unknown).contains("did you mean"), text(unknown));
  }

  @Test
  void add_item_writes_the_item_to_the_state_where_a_sync_of_the_file_keeps_it() throws Exception {
    seed("A");
    JsonNode added = call(true, "add_item", "{\"id\":\"N-1\",\"title\":\"new work\",\"priority\":\"high\","
        + "\"depends_on\":[\"A\"],\"tags\":[\"mcp\"]}");
    assertFalse(added.get("isError").asBoolean(), text(added));
    assertEquals("new", added.at("/structuredContent/item/status").asText());
    assertEquals(Inbox.MCP, added.at("/structuredContent/item/origin").asText());
    try (StateStore store = TestStores.open(stateDir())) {
      ItemState stored = store.items().item("N-1").orElseThrow();
      assertEquals(Priority.HIGH, stored.definition().priority());
      assertEquals(List.of("A"), stored.definition().dependsOn());
      SyncResult sync = store.items().sync(List.of(item("A")), T0.plusSeconds(60));
      assertEquals(List.of(), sync.vanished(), "the file never listed it: no news");
      assertTrue(store.items().item("N-1").orElseThrow().inBacklog());
      assertEquals(List.of("A", "N-1"), store.items().items().stream().map(ItemState::id).toList());
    }
    JsonNode again = call(true, "add_item", "{\"id\":\"N-1\",\"title\":\"other\"}");
    assertTrue(text(again).contains("already exists"), text(again));
  }

  @Test
  void add_item_refuses_a_bad_item_naming_every_problem_and_writes_nothing() throws Exception {
    seed("A");
    JsonNode bad = call(true, "add_item", "{\"id\":\"no spaces\",\"title\":\" \",\"pipeline\":\"nope\","
        + "\"priority\":\"urgent\"}");
    assertTrue(bad.get("isError").asBoolean());
    for (String problem : List.of("title must not be empty", "not a valid id", "unknown pipeline 'nope'",
        "priority 'urgent'")) {
      assertTrue(text(bad).contains(problem), problem + " in " + text(bad));
    }
    JsonNode dangling = call(true, "add_item", "{\"title\":\"x\",\"depends_on\":[\"Z\"]}");
    assertTrue(text(dangling).contains("does not know: Z"), text(dangling));
    try (StateStore store = TestStores.open(stateDir())) {
      assertEquals(List.of("A"), store.items().items().stream().map(ItemState::id).toList());
    }
  }

  @Test
  void add_item_without_an_id_makes_one_from_the_title() throws Exception {
    JsonNode added = call(true, "add_item", "{\"title\":\"from a chat\"}");
    assertFalse(added.get("isError").asBoolean(), text(added));
    assertTrue(added.at("/structuredContent/item/id").asText().matches("mcp-[0-9a-f]{8}"), text(added));
  }

  @Test
  void logs_returns_the_end_of_the_log_from_its_first_whole_line_and_refuses_a_link() throws Exception {
    seed("A");
    Path log = Files.createDirectories(stateDir().resolve("jobs/1")).resolve("output.log");
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      lines.append("line ").append(i).append('\n');
    }
    Files.writeString(log, lines);
    try (StateStore store = TestStores.open(stateDir())) {
      long run = store.items().runStarted(T0, 1);
      store.items().jobStarted(new JobStart(run, "A", "plan", 1, T0.plusSeconds(1), log));
    }
    JsonNode tail = call(false, "logs", "{\"id\":\"A\",\"max_bytes\":30}").get("structuredContent");
    assertTrue(tail.get("cut").asBoolean());
    assertEquals("line 997\nline 998\nline 999\n", tail.get("log").asText());
    assertEquals(Files.size(log), tail.get("log_bytes").asLong());

    Files.delete(log);
    Files.createSymbolicLink(log, dir.resolve("secret"));
    Files.writeString(dir.resolve("secret"), "secret");
    JsonNode refused = call(false, "logs", "{\"id\":\"A\"}");
    assertTrue(refused.get("isError").asBoolean());
    assertTrue(text(refused).contains("a link or not a regular file"), text(refused));
  }

  @Test
  void the_reads_of_a_state_that_does_not_exist_answer_and_create_nothing() throws Exception {
    for (String tool : List.of("list_items", "jobs", "stats", "agents")) {
      JsonNode r = call(false, tool, "{}");
      assertFalse(r.get("isError").asBoolean(), tool + ": " + text(r));
    }
    assertTrue(call(false, "show_item", "{\"id\":\"A\"}").get("isError").asBoolean());
    assertFalse(Files.exists(stateDir()), "a read created the state");
  }
}
