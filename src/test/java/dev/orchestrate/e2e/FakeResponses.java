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
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted model behind the OpenAI Responses API (POST /v1/responses, streamed SSE) on
 * 127.0.0.1, as Codex reaches it through a custom provider. The first request of a conversation is
 * answered with a shell call that writes the result file, the request carrying its output with a
 * final message; {@link Mode} scripts failures.
 */
final class FakeResponses implements AutoCloseable {

  static final long INPUT_TOKENS = 900;
  static final long CACHED_TOKENS = 200;
  static final long OUTPUT_TOKENS = 40;

  enum Mode {
    WRITE_RESULT, ANSWER_ONLY, API_ERROR
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  private final AtomicInteger ids = new AtomicInteger();
  final List<JsonNode> requests = new CopyOnWriteArrayList<>();
  volatile Mode mode = Mode.WRITE_RESULT;
  volatile Path requestLog;

  FakeResponses() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getPath();
      if (requestLog != null) {
        Files.writeString(requestLog,
            exchange.getRequestMethod() + " " + path + " " + new String(body, StandardCharsets.UTF_8)
                + "\n",
            StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      }
      if (!path.endsWith("/responses")) {
        respond(exchange, 404, "application/json", "{\"error\":{\"message\":\"no such endpoint\"}}");
        return;
      }
      JsonNode request = JSON.readTree(body);
      requests.add(request);
      if (mode == Mode.API_ERROR) {
        respond(exchange, 400, "application/json",
            "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"scripted\","
                + "\"message\":\"scripted failure: the fake model refuses this request\"}}");
        return;
      }
      String tool = shellTool(request);
      boolean answered = hasToolOutput(request);
      ObjectNode item;
      if (mode == Mode.WRITE_RESULT && !answered && tool != null) {
        item = shellCall(tool);
      } else {
        item = JSON.createObjectNode().put("type", "message").put("role", "assistant").put("id",
            "msg_" + ids.incrementAndGet());
        item.set("content", JSON.createArrayNode().add(JSON.createObjectNode().put("type", "output_text")
            .put("text", "Done: the result file is written.").set("annotations", JSON.createArrayNode())));
      }
      String id = "resp_" + ids.incrementAndGet();
      StringBuilder sse = new StringBuilder();
      event(sse, "response.created", "{\"type\":\"response.created\",\"response\":{\"id\":\"" + id + "\"}}");
      event(sse, "response.output_item.done", JSON.createObjectNode().put("type", "response.output_item.done")
          .put("output_index", 0).set("item", item).toString());
      ObjectNode usage = JSON.createObjectNode().put("input_tokens", INPUT_TOKENS).put("output_tokens", OUTPUT_TOKENS)
          .put("total_tokens", INPUT_TOKENS + OUTPUT_TOKENS);
      usage.set("input_tokens_details", JSON.createObjectNode().put("cached_tokens", CACHED_TOKENS));
      usage.set("output_tokens_details", JSON.createObjectNode().put("reasoning_tokens", 0));
      ObjectNode response = JSON.createObjectNode().put("id", id);
      response.set("usage", usage);
      event(sse, "response.completed",
          JSON.createObjectNode().put("type", "response.completed").set("response", response)
              .toString());
      respond(exchange, 200, "text/event-stream", sse.toString());
    }
  }

  /**
   * The tool Codex offers for running commands: 0.169 offers one freeform {@code exec} tool (in
   * the {@code functions} namespace of an {@code additional_tools} input item) that runs
   * JavaScript calling {@code tools.exec_command}; older versions offered {@code shell}. Null when
   * neither is offered.
   */
  private static String shellTool(JsonNode request) {
    for (JsonNode item : request.path("input")) {
      for (JsonNode ns : item.path("tools")) {
        for (JsonNode t : ns.path("tools")) {
          if ("exec".equals(t.path("name").asText())) {
            return "exec";
          }
        }
      }
    }
    for (JsonNode t : request.path("tools")) {
      if ("shell".equals(t.path("name").asText())) {
        return "shell";
      }
    }
    return null;
  }

  private static boolean hasToolOutput(JsonNode request) {
    for (JsonNode item : request.path("input")) {
      if (item.path("type").asText().endsWith("_output")) {
        return true;
      }
    }
    return false;
  }

  private ObjectNode shellCall(String tool) {
    String script = "printf '%s' '{\"result\":\"phase_complete\",\"summary\":\"fake model did '\"$ORCHESTRATE_PHASE\"' of '\"$ORCHESTRATE_ITEM_ID\"'\"}' > \"$ORCHESTRATE_RESULT_FILE\"";
    String callId = "call_" + ids.incrementAndGet();
    if (tool.equals("exec")) {
      String js = "const r = await tools.exec_command({cmd: " + JSON.getNodeFactory().textNode(script)
          + ", login: false});\ntext(r);";
      return JSON.createObjectNode().put("type", "custom_tool_call").put("id", "ctc_" + ids.incrementAndGet())
          .put("call_id", callId).put("namespace", "functions").put("name", "exec").put("input", js);
    }
    ObjectNode args = JSON.createObjectNode();
    args.set("command", JSON.createArrayNode().add("bash").add("-lc").add(script));
    return JSON.createObjectNode().put("type", "function_call").put("id", "fc_" + ids.incrementAndGet())
        .put("call_id", callId).put("name", tool).put("arguments", args.toString());
  }

  private static void event(StringBuilder sse, String name, String data) {
    sse.append("event: ").append(name).append('\n').append("data: ").append(data).append("\n\n");
  }

  private static void respond(HttpExchange exchange, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }

  public static void main(String[] args) throws Exception {
    FakeResponses fake = new FakeResponses();
    fake.mode = Mode.valueOf(args.length > 0 ? args[0] : "WRITE_RESULT");
    if (args.length > 1) {
      fake.requestLog = Path.of(args[1]);
    }
    System.out.println(fake.baseUrl());
    Thread.currentThread().join();
  }
}
