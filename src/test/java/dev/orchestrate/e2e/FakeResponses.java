package dev.orchestrate.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted model behind the OpenAI Responses API (POST /v1/responses, streamed SSE) on
 * 127.0.0.1, as Codex reaches it through a custom provider. The first request of a conversation is
 * answered with a shell call that writes the result file, the request carrying its output with a
 * final message; {@link Mode} scripts failures: the provider failures ({@link Mode#USAGE_LIMIT} on)
 * answer every request as the real API does, or only the first {@link #failFirst} of them, after
 * which the model answers as in {@link Mode#ANSWER_ONLY}.
 */
final class FakeResponses extends FakeModelServer {

  static final long INPUT_TOKENS = 900;
  static final long CACHED_TOKENS = 200;
  static final long OUTPUT_TOKENS = 40;

  enum Mode {
    WRITE_RESULT, ANSWER_ONLY, API_ERROR,
    /**
     * HTTP 429 usage_limit_reached as ChatGPT's Codex backend sends it: plan_type, resets_at (epoch
     * seconds, {@link #resetsAt}; from then on the model answers) and resets_in_seconds in the
     * body, x-codex-* headers
     */
    USAGE_LIMIT,
    /** HTTP 429 rate_limit_exceeded ("Please try again in 5s") with the x-ratelimit-* headers */
    RATE_LIMITED,
    /** HTTP 503 server_is_overloaded */
    OVERLOADED,
    /** HTTP 500 server_error */
    SERVER_ERROR,
    /** HTTP 401 invalid_api_key */
    UNAUTHORIZED,
    /** HTTP 403: the key's project may not use the model */
    FORBIDDEN,
    /** HTTP 429 insufficient_quota: no credit left on the API account */
    INSUFFICIENT_QUOTA
  }

  /** The delay a {@link Mode#RATE_LIMITED} answer asks for. */
  static final int RATE_LIMIT_RETRY_AFTER_SECONDS = 5;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final AtomicInteger ids = new AtomicInteger();
  volatile Mode mode = Mode.WRITE_RESULT;
  /**
   * With {@link Mode#WRITE_RESULT}: the shell command of a model turn that does not answer a tool
   * call, chosen from the request (the whole conversation Codex sent); null: write the result file.
   */
  volatile java.util.function.Function<JsonNode, String> commands;
  volatile Path requestLog;
  /** The reset a {@link Mode#USAGE_LIMIT} answer announces, epoch seconds: four minutes ahead. */
  volatile long resetsAt = System.currentTimeMillis() / 1000 + 240;

  FakeResponses() throws IOException {
    super();
  }

  String baseUrl() {
    return root() + "/v1";
  }

  @Override
  protected void handle(HttpExchange exchange) throws IOException {
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
      exchange.setAttribute(ServedRequest.MODEL, request.path("model").asText(null));
      Mode failure = mode;
      boolean limitOver = failure == Mode.USAGE_LIMIT && System.currentTimeMillis() / 1000 >= resetsAt;
      if (failure.ordinal() >= Mode.USAGE_LIMIT.ordinal() && !limitOver
          && failsNow()) {
        fail(exchange, failure);
        return;
      }
      if (mode == Mode.API_ERROR) {
        respond(exchange, 400, "application/json",
            "{\"error\":{\"type\":\"invalid_request_error\",\"code\":\"scripted\","
                + "\"message\":\"scripted failure: the fake model refuses this request\"}}");
        return;
      }
      String tool = shellTool(request);
      boolean answered = answersToolCall(request);
      ObjectNode item;
      if (mode == Mode.WRITE_RESULT && !answered && tool != null) {
        java.util.function.Function<JsonNode, String> script = commands;
        item = shellCall(tool, script == null ? RESULT_COMMAND : script.apply(request));
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

  /** The real API's answer to a request that fails with {@code failure}. */
  private void fail(HttpExchange exchange, Mode failure) throws IOException {
    var headers = exchange.getResponseHeaders();
    switch (failure) {
      case USAGE_LIMIT -> {
        long now = System.currentTimeMillis() / 1000;
        headers.set("x-codex-active-limit", "codex");
        headers.set("x-codex-plan-type", "plus");
        headers.set("x-codex-primary-used-percent", "100");
        headers.set("x-codex-primary-window-minutes", "300");
        headers.set("x-codex-primary-reset-after-seconds", Long.toString(resetsAt - now));
        headers.set("x-codex-primary-reset-at", Long.toString(resetsAt));
        headers.set("x-codex-secondary-used-percent", "42");
        headers.set("x-codex-secondary-window-minutes", "10080");
        headers.set("x-codex-secondary-reset-after-seconds", Long.toString(3 * 86400));
        headers.set("x-codex-secondary-reset-at", Long.toString(now + 3 * 86400));
        headers.set("x-codex-credits-has-credits", "False");
        headers.set("x-codex-credits-balance", "0");
        headers.set("x-codex-credits-unlimited", "False");
        ObjectNode error = JSON.createObjectNode().put("type", "usage_limit_reached")
            .put("message", "The usage limit has been reached").put("plan_type", "plus").put("resets_at", resetsAt);
        error.putNull("eligible_promo");
        error.put("resets_in_seconds", resetsAt - now);
        respond(exchange, 429, "application/json", JSON.createObjectNode().set("error", error).toString());
      }
      case RATE_LIMITED -> {
        headers.set("retry-after", Integer.toString(RATE_LIMIT_RETRY_AFTER_SECONDS));
        headers.set("x-ratelimit-limit-requests", "500");
        headers.set("x-ratelimit-remaining-requests", "0");
        headers.set("x-ratelimit-reset-requests", RATE_LIMIT_RETRY_AFTER_SECONDS + "s");
        respond(exchange, 429, "application/json", error("Rate limit reached for gpt-5 in organization "
            + "org-fake on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in "
            + RATE_LIMIT_RETRY_AFTER_SECONDS + "s. Visit https://platform.openai.com/account/rate-limits to learn "
            + "more.", "requests", "rate_limit_exceeded"));
      }
      case OVERLOADED -> respond(exchange, 503, "application/json", error("Our servers are currently overloaded. "
          + "Please try again later.", "server_error", "server_is_overloaded"));
      case SERVER_ERROR -> respond(exchange, 500, "application/json", error("The server had an error while "
          + "processing your request. Sorry about that!", "server_error", null));
      case UNAUTHORIZED -> respond(exchange, 401, "application/json", error("Incorrect API key provided: "
          + "sk-test-******mmy. You can find your API key at https://platform.openai.com/account/api-keys.",
          "invalid_request_error", "invalid_api_key"));
      case FORBIDDEN -> respond(exchange, 403, "application/json", error("Project `proj_fake` does not have "
          + "access to model `gpt-5`", "invalid_request_error", "model_not_found"));
      case INSUFFICIENT_QUOTA -> respond(exchange, 429, "application/json", error("You exceeded your current "
          + "quota, please check your plan and billing details. For more information on this error, read the "
          + "docs: https://platform.openai.com/docs/guides/error-codes/api-errors.", "insufficient_quota",
          "insufficient_quota"));
      default -> throw new IllegalStateException("not a failure mode: " + failure);
    }
  }

  private static String error(String message, String type, String code) {
    ObjectNode error = JSON.createObjectNode().put("message", message).put("type", type);
    error.putNull("param");
    error.put("code", code);
    return JSON.createObjectNode().set("error", error).toString();
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

  /**
   * Whether the request's last input item is a tool call's output: the model is being told what
   * its call gave. Not merely "any output in the input": a resumed conversation carries its earlier
   * turns' outputs, then the new prompt.
   */
  private static boolean answersToolCall(JsonNode request) {
    JsonNode input = request.path("input");
    return input.size() > 0 && input.get(input.size() - 1).path("type").asText().endsWith("_output");
  }

  /** The default command: write a phase_complete result. */
  static final String RESULT_COMMAND = "printf '%s' '{\"result\":\"phase_complete\",\"summary\":\"fake model did '\"$ORCHESTRATE_PHASE\"' of '\"$ORCHESTRATE_ITEM_ID\"'\"}' > \"$ORCHESTRATE_RESULT_FILE\"";

  private ObjectNode shellCall(String tool, String script) {
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
