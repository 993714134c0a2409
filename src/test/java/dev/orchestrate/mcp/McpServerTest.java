package dev.orchestrate.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.config.BudgetConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.testing.TestStores;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JSON-RPC loop of {@code orchestrate mcp}: what it answers, line by line, and what it does not. */
class McpServerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private List<JsonNode> serve(boolean allowActions, String... lines) throws Exception {
    Project project = new Project(TestStores.backend(dir.resolve(".orchestrate")), Config::defaults,
        () -> BudgetConfig.NONE, c -> dir, Clock.systemUTC());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String input = String.join("\n", lines) + "\n";
    new McpServer(new Tools(project, allowActions), "test")
        .serve(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), out);
    List<JsonNode> answers = new ArrayList<>();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n", -1)) {
      if (!line.isEmpty()) {
        answers.add(JSON.readTree(line));
      }
    }
    return answers;
  }

  private List<JsonNode> serve(String... lines) throws Exception {
    return serve(false, lines);
  }

  private static String request(int id, String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\""
        + (params == null ? "" : ",\"params\":" + params) + "}";
  }

  @Test
  void initialize_answers_with_the_clients_version_when_it_is_spoken_and_the_newest_otherwise() throws Exception {
    List<JsonNode> answers = serve(request(1, "initialize", "{\"protocolVersion\":\"2024-11-05\"}"),
        request(2, "initialize", "{\"protocolVersion\":\"1999-01-01\"}"));
    assertEquals("2024-11-05", answers.get(0).at("/result/protocolVersion").asText());
    assertEquals(McpServer.PROTOCOL_VERSIONS.get(0), answers.get(1).at("/result/protocolVersion").asText());
    assertEquals("orchestrate", answers.get(0).at("/result/serverInfo/name").asText());
    assertFalse(answers.get(0).at("/result/capabilities/tools").isMissingNode());
  }

  @Test
  void notifications_and_responses_get_no_answer_and_ping_an_empty_result() throws Exception {
    List<JsonNode> answers = serve("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}",
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}", "", request(7, "ping", null));
    assertEquals(1, answers.size(), answers.toString());
    assertEquals(7, answers.get(0).get("id").asInt());
    assertEquals(0, answers.get(0).get("result").size());
  }

  @Test
  void malformed_json_is_a_parse_error_with_a_null_id_and_the_next_line_is_still_answered() throws Exception {
    List<JsonNode> answers = serve("{\"jsonrpc\":\"2.0\",\"id\":1,", "{} trailing", request(2, "ping", null));
    assertEquals(-32700, answers.get(0).at("/error/code").asInt());
    assertTrue(answers.get(0).get("id").isNull());
    assertEquals(-32700, answers.get(1).at("/error/code").asInt(), "trailing text is no JSON message");
    assertEquals(2, answers.get(2).get("id").asInt());
  }

  @Test
  void a_message_that_is_no_request_is_an_invalid_request() throws Exception {
    List<JsonNode> answers = serve("[]", "42", "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", "{\"jsonrpc\":\"2.0\",\"id\":5}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":7}");
    assertEquals(6, answers.size(), answers.toString());
    answers.forEach(a -> assertEquals(-32600, a.at("/error/code").asInt(), a.toString()));
    assertEquals(1, answers.get(2).get("id").asInt(), "a usable id is echoed");
    assertTrue(answers.get(3).get("id").isNull(), "an object is no id");
  }

  @Test
  void an_unknown_method_is_method_not_found_and_params_that_are_no_object_invalid_params() throws Exception {
    List<JsonNode> answers = serve(request(1, "resources/list", null), request(2, "tools/list", "[1]"));
    assertEquals(-32601, answers.get(0).at("/error/code").asInt());
    assertEquals(-32602, answers.get(1).at("/error/code").asInt());
  }

  @Test
  void string_ids_are_echoed_and_a_batch_is_answered_with_an_array() throws Exception {
    List<JsonNode> answers = serve("[" + "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"},"
        + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}," + request(2, "nope", null) + "]");
    assertEquals(1, answers.size());
    JsonNode batch = answers.get(0);
    assertTrue(batch.isArray());
    assertEquals(2, batch.size(), "the notification is not answered");
    assertEquals("a", batch.get(0).get("id").asText());
    assertEquals(-32601, batch.get(1).at("/error/code").asInt());
  }

  @Test
  void tools_list_offers_the_reads_alone_unless_actions_are_allowed() throws Exception {
    List<String> reads = names(serve(request(1, "tools/list", null)).get(0));
    assertEquals(List.of("list_items", "show_item", "jobs", "logs", "stats", "agents"), reads);
    List<String> all = names(serve(true, request(1, "tools/list", null)).get(0));
    assertEquals(List.of("list_items", "show_item", "jobs", "logs", "stats", "agents", "add_item", "approve",
        "reject", "unblock", "resume_agent"), all);
    JsonNode tool = serve(request(1, "tools/list", null)).get(0).at("/result/tools/0");
    assertEquals("object", tool.at("/inputSchema/type").asText());
    assertEquals("integer", tool.at("/inputSchema/properties/limit/type").asText());
    assertTrue(tool.at("/annotations/readOnlyHint").asBoolean());
  }

  private static List<String> names(JsonNode answer) {
    List<String> names = new ArrayList<>();
    answer.at("/result/tools").forEach(t -> names.add(t.get("name").asText()));
    return names;
  }

  @Test
  void an_unknown_tool_is_a_protocol_error_and_a_refused_action_a_tool_error() throws Exception {
    List<JsonNode> answers = serve(request(1, "tools/call", "{\"name\":\"drop_tables\"}"),
        request(2, "tools/call", "{\"name\":\"approve\",\"arguments\":{\"ids\":[\"A\"]}}"),
        request(3, "tools/call", "{\"name\":\"list_items\",\"arguments\":[1]}"));
    assertEquals(-32602, answers.get(0).at("/error/code").asInt());
    assertTrue(answers.get(1).at("/result/isError").asBoolean());
    assertTrue(answers.get(1).at("/result/content/0/text").asText().contains("--allow-actions"));
    assertEquals(-32602, answers.get(2).at("/error/code").asInt());
  }

  @Test
  void a_tool_answers_with_text_and_the_same_document_as_structured_content() throws Exception {
    JsonNode answer = serve(request(1, "tools/call", "{\"name\":\"list_items\",\"arguments\":{}}")).get(0);
    JsonNode result = answer.get("result");
    assertFalse(result.get("isError").asBoolean());
    assertEquals("text", result.at("/content/0/type").asText());
    assertEquals(result.get("structuredContent"), JSON.readTree(result.at("/content/0/text").asText()));
    assertEquals(0, result.at("/structuredContent/total").asInt());
  }

  @Test
  void a_line_over_the_cap_is_skipped_with_an_error_and_the_next_one_answered() throws Exception {
    String huge = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\""
        + "a".repeat(McpServer.MAX_MESSAGE_BYTES) + "\"}}";
    List<JsonNode> answers = serve(huge, request(2, "ping", null));
    assertEquals(-32600, answers.get(0).at("/error/code").asInt());
    assertEquals(2, answers.get(1).get("id").asInt());
  }

  @Test
  void every_answer_is_one_line_even_when_a_text_holds_line_breaks() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Project project = new Project(TestStores.backend(dir.resolve(".orchestrate")), Config::defaults,
        () -> BudgetConfig.NONE, c -> dir, Clock.systemUTC());
    String call = request(1, "tools/call", "{\"name\":\"show_item\",\"arguments\":{\"id\":\"a\\nb\"}}") + "\n";
    new McpServer(new Tools(project, false), "test")
        .serve(new ByteArrayInputStream(call.getBytes(StandardCharsets.UTF_8)), out);
    String written = out.toString(StandardCharsets.UTF_8);
    assertTrue(written.endsWith("\n"));
    assertEquals(1, written.split("\n").length, written);
  }
}
