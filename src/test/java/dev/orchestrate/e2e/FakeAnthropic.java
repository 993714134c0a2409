package dev.orchestrate.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted model behind the Anthropic Messages API on 127.0.0.1, streaming SSE as Claude Code
 * expects. A request that offers tools and whose conversation has no tool result yet is answered
 * with one Bash call that writes the result file ($ORCHESTRATE_RESULT_FILE, which the Bash tool
 * inherits); once the tool result is in, with a final text. Requests without tools (Claude Code's
 * side requests) get a short text. {@link Mode} scripts failures.
 */
final class FakeAnthropic implements AutoCloseable {

  static final long INPUT_TOKENS = 1200;
  static final long OUTPUT_TOKENS = 35;
  static final long CACHE_READ_TOKENS = 300;
  static final long CACHE_WRITE_TOKENS = 50;

  enum Mode {
    /** tool call writing the result file, then a final text */
    WRITE_RESULT,
    /** a final text at once, no result file */
    ANSWER_ONLY,
    /** HTTP 400 invalid_request_error, which Claude Code does not retry */
    API_ERROR,
    /** a tool call on every turn, so that --max-turns or --max-budget-usd ends the session */
    ENDLESS_TOOLS
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  private final AtomicInteger ids = new AtomicInteger();
  final List<JsonNode> requests = new CopyOnWriteArrayList<>();
  volatile Mode mode = Mode.WRITE_RESULT;
  volatile Path requestLog;

  FakeAnthropic() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Requests to /v1/messages that offered tools: the agent's own turns. */
  long agentTurns() {
    return requests.stream().filter(r -> r.path("tools").size() > 0).count();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath();
      if (requestLog != null) {
        Files.writeString(requestLog, exchange.getRequestMethod() + " " + path + " " + body.length + "\n",
            StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
      }
      if (path.endsWith("/count_tokens")) {
        respond(exchange, 200, "application/json", "{\"input_tokens\": 100}");
        return;
      }
      if (!path.endsWith("/v1/messages")) {
        respond(exchange, 404, "application/json",
            "{\"type\":\"error\",\"error\":{\"type\":\"not_found_error\",\"message\":\"no such endpoint\"}}");
        return;
      }
      JsonNode request = JSON.readTree(body);
      requests.add(request);
      boolean agentTurn = request.path("tools").size() > 0;
      if (agentTurn && mode == Mode.API_ERROR) {
        respond(exchange, 400, "application/json", "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
            + "\"message\":\"scripted failure: the fake model refuses this request\"}}");
        return;
      }
      String model = request.path("model").asText("claude-sonnet-4-5");
      boolean stream = request.path("stream").asBoolean(false);
      if (agentTurn && (mode == Mode.ENDLESS_TOOLS || (mode == Mode.WRITE_RESULT && !hasToolResult(request)))) {
        String command = mode == Mode.ENDLESS_TOOLS ? "echo still working"
            : "printf '%s' '{\"result\":\"phase_complete\",\"summary\":\"fake model did '\"$ORCHESTRATE_PHASE\"' of '\"$ORCHESTRATE_ITEM_ID\"'\"}' > \"$ORCHESTRATE_RESULT_FILE\"";
        toolCall(exchange, model, stream, command);
      } else {
        text(exchange, model, stream, agentTurn ? "Done: the result file is written." : "ok");
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
      throw e;
    }
  }

  private static boolean hasToolResult(JsonNode request) {
    JsonNode messages = request.path("messages");
    JsonNode last = messages.get(messages.size() - 1);
    for (JsonNode block : last.path("content")) {
      if ("tool_result".equals(block.path("type").asText())) {
        return true;
      }
    }
    return false;
  }

  private void toolCall(HttpExchange exchange, String model, boolean stream, String command) throws IOException {
    String id = "toolu_" + ids.incrementAndGet();
    ObjectNode input = JSON.createObjectNode().put("command", command).put("description", "Write the result file");
    if (!stream) {
      respond(exchange, 200, "application/json", message(model, "tool_use").set("content",
          JSON.createArrayNode().add(JSON.createObjectNode().put("type", "tool_use").put("id", id).put("name", "Bash")
              .set("input", input)))
          .toString());
      return;
    }
    StringBuilder sse = new StringBuilder();
    messageStart(sse, model);
    event(sse, "content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
        + "{\"type\":\"tool_use\",\"id\":\"" + id + "\",\"name\":\"Bash\",\"input\":{}}}");
    event(sse, "content_block_delta", JSON.createObjectNode().put("type", "content_block_delta").put("index", 0)
        .set("delta", JSON.createObjectNode().put("type", "input_json_delta").put("partial_json", input.toString()))
        .toString());
    event(sse, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
    messageEnd(sse, "tool_use");
    respond(exchange, 200, "text/event-stream", sse.toString());
  }

  private void text(HttpExchange exchange, String model, boolean stream, String text) throws IOException {
    if (!stream) {
      respond(exchange, 200, "application/json", message(model, "end_turn").set("content",
          JSON.createArrayNode().add(JSON.createObjectNode().put("type", "text").put("text", text))).toString());
      return;
    }
    StringBuilder sse = new StringBuilder();
    messageStart(sse, model);
    event(sse, "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    event(sse, "content_block_delta", JSON.createObjectNode().put("type", "content_block_delta").put("index", 0)
        .set("delta", JSON.createObjectNode().put("type", "text_delta").put("text", text)).toString());
    event(sse, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
    messageEnd(sse, "end_turn");
    respond(exchange, 200, "text/event-stream", sse.toString());
  }

  private ObjectNode message(String model, String stopReason) {
    ObjectNode m = JSON.createObjectNode().put("id", "msg_" + ids.incrementAndGet()).put("type", "message")
        .put("role", "assistant").put("model", model).put("stop_reason", stopReason);
    m.putNull("stop_sequence");
    m.set("usage", usage());
    return m;
  }

  private static ObjectNode usage() {
    return JSON.createObjectNode().put("input_tokens", INPUT_TOKENS).put("output_tokens", OUTPUT_TOKENS)
        .put("cache_read_input_tokens", CACHE_READ_TOKENS).put("cache_creation_input_tokens", CACHE_WRITE_TOKENS);
  }

  private void messageStart(StringBuilder sse, String model) {
    ObjectNode m = message(model, null);
    m.putNull("stop_reason");
    m.set("content", JSON.createArrayNode());
    ((ObjectNode) m.get("usage")).put("output_tokens", 1);
    event(sse, "message_start", JSON.createObjectNode().put("type", "message_start").set("message", m).toString());
  }

  private static void messageEnd(StringBuilder sse, String stopReason) {
    event(sse, "message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"" + stopReason
        + "\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":" + OUTPUT_TOKENS + "}}");
    event(sse, "message_stop", "{\"type\":\"message_stop\"}");
  }

  private static void event(StringBuilder sse, String name, String data) {
    sse.append("event: ").append(name).append('\n').append("data: ").append(data).append("\n\n");
  }

  private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("request-id", "req_fake");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }

  /** For recording outputs by hand: {@code FakeAnthropic MODE} serves until killed and prints its URL. */
  public static void main(String[] args) throws Exception {
    FakeAnthropic fake = new FakeAnthropic();
    fake.mode = Mode.valueOf(args.length > 0 ? args[0] : "WRITE_RESULT");
    if (args.length > 1) {
      fake.requestLog = Path.of(args[1]);
    }
    System.out.println(fake.baseUrl());
    Thread.currentThread().join();
  }
}
