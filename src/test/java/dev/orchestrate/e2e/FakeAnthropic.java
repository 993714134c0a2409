package dev.orchestrate.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted model behind the Anthropic Messages API on 127.0.0.1, streaming SSE as Claude Code
 * expects. A request that offers tools and whose conversation has no tool result yet is answered
 * with one Bash call that writes the result file ($ORCHESTRATE_RESULT_FILE, which the Bash tool
 * inherits); once the tool result is in, with a final text. Requests without tools (Claude Code's
 * side requests) get a short text. {@link Mode} scripts failures: the provider failures
 * ({@link Mode#USAGE_LIMIT} to {@link Mode#CUT_MID_STREAM}) answer every model request as the real
 * API does, or only the first {@link #failFirst} of them, after which the model answers as in
 * {@link Mode#ANSWER_ONLY}.
 */
final class FakeAnthropic extends FakeModelServer {

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
    ENDLESS_TOOLS,
    /**
     * HTTP 429 rate_limit_error with the subscription's unified headers: status rejected, the
     * five-hour window's reset ({@link #resetsAt}, epoch seconds; from then on the model answers)
     * and retry-after
     */
    USAGE_LIMIT,
    /** HTTP 429 rate_limit_error with retry-after and request-limit headers only, as for a burst */
    RATE_LIMITED,
    /** HTTP 529 overloaded_error */
    OVERLOADED,
    /** HTTP 401 authentication_error (an invalid x-api-key) */
    UNAUTHORIZED,
    /** HTTP 403 permission_error */
    FORBIDDEN,
    /** HTTP 400 invalid_request_error: the credit balance is too low */
    CREDIT_BALANCE,
    /** HTTP 200, message_start and part of a text block, then the connection is closed abruptly */
    CUT_MID_STREAM,
    /**
     * A Bash call on the agent's first turn, answered as in {@link #WRITE_RESULT}; every later model
     * request is read and never answered (the connection stays open, silent), as a provider that
     * hangs mid-session: what an {@code agent.timeout} then cuts
     */
    HANG_AFTER_TOOL
  }

  /** The Retry-After seconds a {@link Mode#RATE_LIMITED} answer carries. */
  static final int RATE_LIMIT_RETRY_AFTER_SECONDS = 5;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final AtomicInteger ids = new AtomicInteger();
  volatile Mode mode = Mode.WRITE_RESULT;
  /**
   * With {@link Mode#WRITE_RESULT}: the Bash command of an agent turn that has no tool result yet,
   * chosen from the request (the whole conversation Claude Code sent); null: write the result file.
   */
  volatile java.util.function.Function<JsonNode, String> commands;
  volatile Path requestLog;
  /** The reset a {@link Mode#USAGE_LIMIT} answer announces, epoch seconds: four minutes ahead. */
  volatile long resetsAt = System.currentTimeMillis() / 1000 + 240;
  /** Whether {@link Mode#USAGE_LIMIT} is the seven-day limit rather than the five-hour one. */
  volatile boolean weeklyLimit;
  /**
   * The fresh input tokens each answer reports ({@link #INPUT_TOKENS} unless a case needs more: a
   * turn that costs more than a small {@code --max-budget-usd}).
   */
  volatile long inputTokens = INPUT_TOKENS;
  /**
   * With {@link Mode#OVERLOADED}: the answer carries {@code x-should-retry: false}, the header with
   * which the API tells its SDK not to retry.
   */
  volatile boolean noRetry;
  /**
   * A text block the model writes before its Bash call, in the same message (as the real model
   * does: "I'll run …"), so that Claude Code prints that message as two assistant events with one
   * id; null: the call alone.
   */
  volatile String preamble;
  /**
   * With {@link Mode#USAGE_LIMIT} and {@link #limitSeconds} set: the agent turns answered as in
   * {@link Mode#WRITE_RESULT} before the limit is met.
   */
  volatile int answerFirst;
  /**
   * With {@link Mode#USAGE_LIMIT}: when more than 0, the limit is a window that opens at the first
   * agent turn past {@link #answerFirst} and lasts this long ({@link #resetsAt} is set then); before
   * and after it, turns are answered as in {@link Mode#WRITE_RESULT}. 0: the limit holds until
   * {@link #resetsAt}, and no turn is answered.
   */
  volatile long limitSeconds;
  /**
   * With {@link Mode#USAGE_LIMIT}: the retry-after a refusal states, seconds; 0: until
   * {@link #resetsAt}. Claude Code waits out a short one by itself (20 s, say) and gives up at once
   * on a long one, as on a real five-hour limit: a test of orchestrate's own waiting states a long
   * one while its window lifts sooner.
   */
  volatile long retryAfterSeconds;
  /** When the limit window opened, epoch milliseconds (0: not yet); every refusal and answer after it. */
  volatile long limitOpenedAt;
  final java.util.List<Long> refusedAt = new java.util.concurrent.CopyOnWriteArrayList<>();
  final java.util.List<Long> answeredAt = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final AtomicInteger agentRequests = new AtomicInteger();

  /** The mode of this agent turn under a limit window ({@link #limitSeconds}). */
  private synchronized Mode windowed(boolean agentTurn) {
    if (!agentTurn) {
      return Mode.WRITE_RESULT;
    }
    long now = System.currentTimeMillis();
    if (limitOpenedAt == 0 && agentRequests.incrementAndGet() > answerFirst) {
      limitOpenedAt = now;
      resetsAt = (now + limitSeconds * 1000) / 1000;
    }
    if (limitOpenedAt != 0 && now < limitOpenedAt + limitSeconds * 1000) {
      refusedAt.add(now);
      return Mode.USAGE_LIMIT;
    }
    answeredAt.add(now);
    return Mode.WRITE_RESULT;
  }

  /** How long a {@link Mode#HANG_AFTER_TOOL} request is held before the connection is closed. */
  volatile long hangMillis = 600_000;

  FakeAnthropic() throws IOException {
    super();
  }

  String baseUrl() {
    return root();
  }

  /**
   * The environment of a real Claude Code CLI that talks to this model only: {@code home} as its
   * HOME and config directory, a dummy API key or (with {@code subscription}) a subscription token,
   * no non-essential traffic, and the installed Node.js first on the PATH.
   */
  void claudeEnvironment(java.util.Map<String, String> env, Path home, boolean subscription) {
    env.put("HOME", home.toString());
    env.put("CLAUDE_CONFIG_DIR", home.resolve(".claude").toString());
    env.put("ANTHROPIC_BASE_URL", baseUrl());
    env.remove("ANTHROPIC_API_KEY");
    env.remove("CLAUDE_CODE_OAUTH_TOKEN");
    env.put(subscription ? "CLAUDE_CODE_OAUTH_TOKEN" : "ANTHROPIC_API_KEY",
        subscription ? "sk-ant-oat01-test-dummy" : "sk-ant-test-dummy");
    env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    env.put("PATH", AgentClis.nodeDir() + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
  }

  /** Requests to /v1/messages that offered tools: the agent's own turns. */
  long agentTurns() {
    return requests.stream().filter(r -> r.path("tools").size() > 0).count();
  }

  @Override
  protected void handle(HttpExchange exchange) throws IOException {
    boolean cut = false;
    try {
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
      exchange.setAttribute(ServedRequest.MODEL, request.path("model").asText(null));
      boolean agentTurn = request.path("tools").size() > 0;
      Mode failure = mode == Mode.USAGE_LIMIT && limitSeconds > 0 ? windowed(agentTurn) : mode;
      boolean limitOver = failure == Mode.USAGE_LIMIT && System.currentTimeMillis() / 1000 >= resetsAt;
      if (failure == Mode.HANG_AFTER_TOOL) {
        if (agentTurn && hasToolResult(request)) {
          hang(exchange);
          return;
        }
        failure = Mode.WRITE_RESULT;
      }
      if (failure.ordinal() >= Mode.USAGE_LIMIT.ordinal() && failure.ordinal() <= Mode.CUT_MID_STREAM.ordinal()
          && !limitOver && failsNow()) {
        cut = failure == Mode.CUT_MID_STREAM;
        fail(exchange, failure, request.path("model").asText("claude-sonnet-4-5"));
        return;
      }
      if (agentTurn && mode == Mode.API_ERROR) {
        respond(exchange, 400, "application/json", "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
            + "\"message\":\"scripted failure: the fake model refuses this request\"}}");
        return;
      }
      String model = request.path("model").asText("claude-sonnet-4-5");
      boolean stream = request.path("stream").asBoolean(false);
      boolean writes = failure == Mode.WRITE_RESULT; // a hang's first turn and a limit window's answers too
      if (agentTurn && (mode == Mode.ENDLESS_TOOLS || (writes && !hasToolResult(request)))) {
        java.util.function.Function<JsonNode, String> script = commands;
        String command = mode == Mode.ENDLESS_TOOLS ? "echo still working"
            : script != null ? script.apply(request)
                : "printf '%s' '{\"result\":\"phase_complete\",\"summary\":\"fake model did '\"$ORCHESTRATE_PHASE\"' of '\"$ORCHESTRATE_ITEM_ID\"'\"}' > \"$ORCHESTRATE_RESULT_FILE\"";
        toolCall(exchange, model, stream, command);
      } else {
        text(exchange, model, stream, agentTurn ? "Done: the result file is written." : "ok");
      }
    } catch (RuntimeException e) {
      e.printStackTrace();
      throw e;
    } finally {
      // A cut stream must not be closed properly: the IOException fail() threw makes the server
      // drop the connection without the chunked body's last chunk.
      if (!cut) {
        exchange.close();
      }
    }
  }

  /** The real API's answer to a request that fails with {@code failure}. */
  private void fail(HttpExchange exchange, Mode failure, String model) throws IOException {
    var headers = exchange.getResponseHeaders();
    switch (failure) {
      case USAGE_LIMIT -> {
        long now = System.currentTimeMillis() / 1000;
        long fiveHourReset = weeklyLimit ? now + 2 * 3600 : resetsAt;
        headers.set("retry-after", Long.toString(retryAfterSeconds > 0 ? retryAfterSeconds
            : Math.max(0, resetsAt - now)));
        headers.set("anthropic-ratelimit-unified-status", "rejected");
        headers.set("anthropic-ratelimit-unified-reset", Long.toString(resetsAt));
        headers.set("anthropic-ratelimit-unified-representative-claim", weeklyLimit ? "seven_day" : "five_hour");
        headers.set("anthropic-ratelimit-unified-5h-status", weeklyLimit ? "allowed" : "rejected");
        headers.set("anthropic-ratelimit-unified-5h-reset", Long.toString(fiveHourReset));
        headers.set("anthropic-ratelimit-unified-5h-utilization", weeklyLimit ? "0.3" : "1.0");
        headers.set("anthropic-ratelimit-unified-7d-status", weeklyLimit ? "rejected" : "allowed");
        headers.set("anthropic-ratelimit-unified-7d-reset", Long.toString(weeklyLimit ? resetsAt : now + 3 * 86400));
        headers.set("anthropic-ratelimit-unified-7d-utilization", weeklyLimit ? "1.0" : "0.42");
        headers.set("anthropic-ratelimit-unified-overage-status", "rejected");
        headers.set("anthropic-ratelimit-unified-overage-disabled-reason", "org_level_disabled");
        respond(exchange, 429, "application/json", error("rate_limit_error",
            "This request would exceed your account's rate limit. Please try again later."));
      }
      case RATE_LIMITED -> {
        headers.set("retry-after", Integer.toString(RATE_LIMIT_RETRY_AFTER_SECONDS));
        headers.set("anthropic-ratelimit-requests-limit", "50");
        headers.set("anthropic-ratelimit-requests-remaining", "0");
        headers.set("anthropic-ratelimit-requests-reset", Instant.now().plusSeconds(RATE_LIMIT_RETRY_AFTER_SECONDS)
            .truncatedTo(ChronoUnit.SECONDS).toString());
        respond(exchange, 429, "application/json", error("rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests per minute. "
                + "For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response "
                + "headers for current usage. Please reduce the prompt length or the maximum tokens requested, "
                + "or try again later."));
      }
      case OVERLOADED -> {
        if (noRetry) {
          headers.set("x-should-retry", "false");
        }
        respond(exchange, 529, "application/json", error("overloaded_error", "Overloaded"));
      }
      case UNAUTHORIZED -> respond(exchange, 401, "application/json", error("authentication_error",
          "invalid x-api-key"));
      case FORBIDDEN -> respond(exchange, 403, "application/json", error("permission_error",
          "Your API key does not have permission to use the specified resource."));
      case CREDIT_BALANCE -> respond(exchange, 400, "application/json", error("invalid_request_error",
          "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade "
              + "or purchase credits."));
      case CUT_MID_STREAM -> cutMidStream(exchange, model);
      default -> throw new IllegalStateException("not a failure mode: " + failure);
    }
  }

  private void cutMidStream(HttpExchange exchange, String model) throws IOException {
    StringBuilder sse = new StringBuilder();
    messageStart(sse, model);
    event(sse, "content_block_start",
        "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
    event(sse, "content_block_delta", JSON.createObjectNode().put("type", "content_block_delta").put("index", 0)
        .set("delta", JSON.createObjectNode().put("type", "text_delta").put("text", "The answer is")).toString());
    served.add(ServedRequest.of(exchange, 200));
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
    exchange.getResponseHeaders().set("request-id", "req_fake");
    firstFailure.compareAndSet(null, ServedRequest.shown(200, exchange, sse
        + "(the connection is closed here, without message_delta, message_stop or the chunked body's end)"));
    exchange.sendResponseHeaders(200, 0);
    OutputStream out = exchange.getResponseBody();
    out.write(sse.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();
    throw new IOException("scripted: the connection is dropped mid-stream");
  }

  /**
   * Holds a request unanswered, as a provider that hangs: nothing is sent until {@link #hangMillis}
   * pass or the client goes away, then the connection is closed without an answer.
   */
  private void hang(HttpExchange exchange) {
    served.add(ServedRequest.of(exchange, 0));
    firstFailure.compareAndSet(null, "(no answer: the request was held open, silent, for up to " + hangMillis
        + " ms)");
    try {
      Thread.sleep(hangMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String error(String type, String message) {
    ObjectNode body = JSON.createObjectNode().put("type", "error");
    body.set("error", JSON.createObjectNode().put("type", type).put("message", message));
    return body.put("request_id", "req_fake").toString();
  }

  /**
   * Whether the conversation's last user message holds a tool result. Claude Code may send a system
   * message after it (with --max-budget-usd, "USD budget: $0.00581/$0.01; …"), so the last message
   * of all is not the one to look at.
   */
  private static boolean hasToolResult(JsonNode request) {
    JsonNode messages = request.path("messages");
    JsonNode last = messages.get(messages.size() - 1);
    for (int i = messages.size() - 1; i >= 0; i--) {
      if ("user".equals(messages.get(i).path("role").asText())) {
        last = messages.get(i);
        break;
      }
    }
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
    String before = preamble;
    int index = 0;
    if (before != null) {
      event(sse, "content_block_start",
          "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}");
      event(sse, "content_block_delta", JSON.createObjectNode().put("type", "content_block_delta").put("index", 0)
          .set("delta", JSON.createObjectNode().put("type", "text_delta").put("text", before)).toString());
      event(sse, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}");
      index = 1;
    }
    event(sse, "content_block_start", "{\"type\":\"content_block_start\",\"index\":" + index
        + ",\"content_block\":{\"type\":\"tool_use\",\"id\":\"" + id + "\",\"name\":\"Bash\",\"input\":{}}}");
    event(sse, "content_block_delta", JSON.createObjectNode().put("type", "content_block_delta").put("index", index)
        .set("delta", JSON.createObjectNode().put("type", "input_json_delta").put("partial_json", input.toString()))
        .toString());
    event(sse, "content_block_stop", "{\"type\":\"content_block_stop\",\"index\":" + index + "}");
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

  private ObjectNode usage() {
    return JSON.createObjectNode().put("input_tokens", inputTokens).put("output_tokens", OUTPUT_TOKENS)
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

  /**
   * For recording outputs by hand: {@code FakeAnthropic MODE [REQUEST_LOG [INPUT_TOKENS [no-retry]]]}
   * serves until killed and prints its URL.
   */
  public static void main(String[] args) throws Exception {
    FakeAnthropic fake = new FakeAnthropic();
    fake.mode = Mode.valueOf(args.length > 0 ? args[0] : "WRITE_RESULT");
    if (args.length > 1 && !args[1].isEmpty()) {
      fake.requestLog = Path.of(args[1]);
    }
    if (args.length > 2) {
      fake.inputTokens = Long.parseLong(args[2]);
    }
    fake.noRetry = args.length > 3 && args[3].equals("no-retry");
    System.out.println(fake.baseUrl());
    Thread.currentThread().join();
  }

  @Override
  protected void headers(Headers headers) {
    headers.set("request-id", "req_fake");
  }
}
