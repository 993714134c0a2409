package dev.orchestrate.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.orchestrate.config.AcpConfig;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.Usage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * orchestrate as the client of an Agent Client Protocol agent ({@code agent.preset: acp},
 * docs/agents.md "ACP"): JSON-RPC 2.0, one message a line, over the agent's stdin and stdout.
 * {@code initialize}, then {@code session/new} in the job's working directory (or
 * {@code session/load} of the last attempt's session, when the agent advertises
 * {@code loadSession}), then one {@code session/prompt} with the prompt every preset gets; the
 * turn is over when the agent answers it (its {@code stopReason}) or fails it.
 *
 * <p>As the reader of stdout it turns {@code session/update} notifications into readable lines of
 * the job's log (the agent's text, its tools with their title and status, its plan), answers
 * {@code session/request_permission} by {@code agent.acp.permissions} ({@link AcpPermissions}),
 * refuses every other request (this client offers no file system or terminal), and keeps the
 * usage the agent reports. The agent is untrusted: lines are bounded by the capture
 * ({@link OutputCapture#MAX_EVENT_LINE_BYTES}), so is every text kept, and a stream that is not
 * the protocol ends the turn as a failure after {@link #MAX_BAD_LINES} lines, so nothing waits on
 * it longer than {@code agent.timeout}.
 *
 * <p>Lines arrive on the stdout reader's thread, holding this object's lock (as every reader's);
 * the supervisor calls {@link #cancel()} and {@link #close()} from its own. Messages to the agent
 * go out on a writer thread, so a reader never blocks on an agent that does not read its stdin.
 */
final class AcpClient extends JsonEvents {

  static final int PROTOCOL_VERSION = 1;
  /** Lines that are not JSON-RPC messages (or too long to read) after which the turn fails. */
  static final int MAX_BAD_LINES = 100;
  /** Messages waiting for the agent to read them: an agent that sends requests without reading answers fails. */
  static final int MAX_QUEUED = 1024;
  /** Non-protocol lines of stdout quoted in the log. */
  private static final int QUOTED_BAD_LINES = 10;
  private static final byte[] CLOSE = new byte[0];
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger LOG = LoggerFactory.getLogger(AcpClient.class);

  /** Where the conversation is: the request it waits for, or over. */
  enum Step {
    INITIALIZE("initialize"), NEW("session/new"), LOAD("session/load"), PROMPT("session/prompt"), OVER("");

    final String method;

    Step(String method) {
      this.method = method;
    }
  }

  private final OutputStream stdin;
  private final String name;
  private final Path workDir;
  private final String prompt;
  private final String resume;
  private final AcpPermissions permissions;
  private final BlockingQueue<byte[]> outbox = new ArrayBlockingQueue<>(MAX_QUEUED);
  private final CompletableFuture<Void> over = new CompletableFuture<>();

  private Step step = Step.INITIALIZE;
  private long nextId;
  private long pending = -1;
  private String session;
  private String stopReason;
  private String error;
  private boolean cancelSent;
  private boolean closed;
  private int badLines;
  private long replayed;
  private final AcpLog log = new AcpLog();
  private Long input;
  private Long output;
  private Long cacheRead;
  private Long cacheWrite;
  private Double cost;

  /**
   * @param stdin   the agent's stdin, written by this client only
   * @param prompt  the text of the one {@code session/prompt}
   * @param resume  the session to load ({@code agent.resume}), or null for a new one
   */
  AcpClient(OutputStream stdin, String name, Path workDir, Path jobDir, String prompt, String resume,
      AcpConfig config) {
    this.stdin = stdin;
    this.name = name;
    this.workDir = workDir.toAbsolutePath();
    this.prompt = prompt;
    this.resume = resume;
    this.permissions = new AcpPermissions(config, workDir, jobDir);
  }

  /** Starts the writer and sends {@code initialize}. */
  synchronized void start() {
    Daemon.start(name + "-acp-stdin", this::write);
    ObjectNode params = JSON.createObjectNode().put("protocolVersion", PROTOCOL_VERSION);
    ObjectNode caps = params.putObject("clientCapabilities");
    caps.putObject("fs").put("readTextFile", false).put("writeTextFile", false);
    caps.put("terminal", false);
    String version = AcpClient.class.getPackage().getImplementationVersion();
    params.putObject("clientInfo").put("name", "orchestrate").put("version", version == null ? "dev" : version);
    request(Step.INITIALIZE, params);
  }

  /** Completes when the turn is over: the agent answered {@code session/prompt}, or the conversation failed. */
  CompletableFuture<Void> over() {
    return over;
  }

  /** Whether the agent ended its turn with a {@code stopReason} (any). */
  synchronized boolean answered() {
    return stopReason != null;
  }

  /**
   * Sends {@code session/cancel} if a prompt turn is running (on a timeout or a stop); returns
   * whether it did, so the caller gives the agent its grace to wind the turn down.
   */
  synchronized boolean cancel() {
    if (step != Step.PROMPT || cancelSent || session == null) {
      return false;
    }
    cancelSent = true;
    ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "session/cancel");
    message.putObject("params").put("sessionId", session);
    send(message);
    logLine("[orchestrate sent session/cancel]");
    return true;
  }

  /** Ends stdin once what is queued is written: an agent that exits at the end of its input does. */
  synchronized void close() {
    if (!closed) {
      closed = true;
      if (!outbox.offer(CLOSE)) {
        LOG.debug("{}: stdin not closed, its queue is full", name);
      }
    }
  }

  @Override
  public synchronized boolean logsTo(Consumer<String> sink) {
    log.to(sink);
    return true;
  }

  @Override
  synchronized void event(JsonNode message) {
    try {
      message(message);
    } catch (RuntimeException e) {
      // A bug here must end the turn, not leave the runner waiting for an answer nobody reads.
      LOG.warn("{}: could not handle an ACP message: {}", name, e.toString());
      fail("orchestrate could not handle a message of the agent: " + e);
    }
  }

  private void message(JsonNode message) {
    JsonNode id = message.get("id");
    JsonNode method = message.get("method");
    if (method != null && method.isTextual()) {
      if (id == null || id.isNull()) {
        if ("session/update".equals(method.asText())) {
          update(message.path("params"));
        }
      } else {
        request(id, method.asText(), message.path("params"));
      }
    } else if (id != null && (message.has("result") || message.has("error"))) {
      response(id, message);
    } else {
      bad("a JSON object that is no JSON-RPC message", null);
    }
  }

  @Override
  synchronized void notAnEvent(String line) {
    if (!line.isBlank()) {
      bad("a line that is not JSON", line);
    }
  }

  @Override
  public synchronized void oversized() {
    bad("a line longer than " + OutputCapture.MAX_EVENT_LINE_BYTES / 1024 / 1024 + " MiB", null);
  }

  @Override
  public synchronized void ended() {
    log.flush();
    if (step != Step.OVER) {
      fail("the agent closed its output before it answered " + step.method);
    }
  }

  private void bad(String what, String line) {
    badLines++;
    if (badLines <= QUOTED_BAD_LINES) {
      logLine("[not ACP: " + what + (line == null ? "" : ": " + line) + "]");
    }
    if (badLines > MAX_BAD_LINES && step != Step.OVER) {
      fail("the agent's output is not the Agent Client Protocol: more than " + MAX_BAD_LINES
          + " lines were not JSON-RPC messages one a line (the last: " + what + ")");
    }
  }

  // --- responses to orchestrate's requests ---

  private void response(JsonNode id, JsonNode message) {
    if (id.isNull() && message.hasNonNull("error") && step != Step.OVER) {
      // JSON-RPC's answer to a request it could not read (a parse error): the one waited for
      fail(step.method + " failed: " + errorText(message.get("error")));
      return;
    }
    if (!id.canConvertToLong() || id.asLong() != pending || step == Step.OVER) {
      return; // an answer to nothing asked, or asked before: not this conversation's concern
    }
    pending = -1;
    if (message.hasNonNull("error")) {
      fail(step.method + " failed: " + errorText(message.get("error")));
      return;
    }
    JsonNode result = message.path("result");
    switch (step) {
      case INITIALIZE -> initialized(result);
      case NEW -> {
        String id2 = result.path("sessionId").isTextual() ? result.path("sessionId").asText() : null;
        if (!AgentSession.valid(id2)) {
          fail("session/new answered no usable sessionId");
          return;
        }
        session = id2;
        prompt();
      }
      case LOAD -> {
        session = resume;
        if (replayed > 0) {
          logLine("[loaded session " + resume + ": " + replayed + " earlier updates not shown]");
        }
        prompt();
      }
      case PROMPT -> answered(result);
      default -> {
      }
    }
  }

  private void initialized(JsonNode result) {
    JsonNode version = result.path("protocolVersion");
    if (version.canConvertToInt() && version.asInt() != PROTOCOL_VERSION) {
      fail("the agent speaks ACP version " + AcpPermissions.clip(version.asText(), 20) + ", orchestrate speaks "
          + PROTOCOL_VERSION);
      return;
    }
    boolean loads = result.path("agentCapabilities").path("loadSession").asBoolean(false);
    ObjectNode params = JSON.createObjectNode();
    if (resume != null) {
      if (!loads) {
        fail("the agent cannot resume session " + resume + " (it does not advertise "
            + "agentCapabilities.loadSession): session not found");
        return;
      }
      params.put("sessionId", resume);
    }
    params.put("cwd", workDir.toString());
    params.putArray("mcpServers");
    request(resume != null ? Step.LOAD : Step.NEW, params);
  }

  private void prompt() {
    ObjectNode params = JSON.createObjectNode().put("sessionId", session);
    params.putArray("prompt").addObject().put("type", "text").put("text", prompt);
    request(Step.PROMPT, params);
  }

  private void answered(JsonNode result) {
    JsonNode reason = result.path("stopReason");
    stopReason = reason.isTextual() ? AcpPermissions.clip(reason.asText(), 60) : "(none)";
    usage(result.path("usage"));
    log.flush();
    String why = switch (stopReason) {
      case "end_turn" -> null;
      case "max_tokens" -> "the agent's turn ended at the model's output limit (stopReason max_tokens)";
      case "max_turn_requests" -> "the agent's turn ended at its limit of model requests (stopReason "
          + "max_turn_requests)";
      case "refusal" -> "the agent refused to go on (stopReason refusal)";
      case "cancelled" -> cancelSent ? null : "the agent cancelled its turn (stopReason cancelled)";
      default -> "the agent ended its turn with an unknown stopReason " + stopReason;
    };
    logLine("[turn ended: " + stopReason + "]");
    if (why != null && error == null) {
      error = why;
    }
    end();
  }

  private void fail(String why) {
    log.flush();
    if (error == null) {
      error = SizeCap.cap(why, AgentOutcome.TEXT_MAX_CHARS);
      logLine("[" + SizeCap.cap(why, AcpLog.LINE_MAX_CHARS) + "]");
    }
    end();
  }

  private void end() {
    step = Step.OVER;
    over.complete(null);
  }

  // --- requests from the agent ---

  private void request(JsonNode id, String method, JsonNode params) {
    if (!(id.isIntegralNumber() || (id.isTextual() && id.asText().length() <= 256))) {
      bad("a request with an id that is neither a number nor a short string", null);
      return;
    }
    if ("session/request_permission".equals(method)) {
      permission(id, params);
      return;
    }
    ObjectNode error = JSON.createObjectNode().put("code", -32601).put("message", "Method not found: "
        + AcpPermissions.clip(method, 100) + " (orchestrate offers no file system or terminal to ACP agents)");
    ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0");
    message.set("id", id);
    message.set("error", error);
    send(message);
  }

  private void permission(JsonNode id, JsonNode params) {
    JsonNode call = params.path("toolCall");
    String callId = call.path("toolCallId").asText("");
    String[] known = step == Step.PROMPT && !cancelSent ? log.asked(call, callId) : log.known(callId);
    String title = call.path("title").isTextual() ? call.path("title").asText()
        : known != null && known[0] != null ? known[0] : callId;
    ObjectNode outcome = JSON.createObjectNode();
    if (step != Step.PROMPT || cancelSent) {
      outcome.put("outcome", "cancelled"); // what ACP asks of a client that cancelled the turn
      logLine("[permission cancelled: " + AcpLog.oneLine(title) + "]");
    } else {
      AcpPermissions.Decision decision = permissions.decide(call, known == null ? null : known[1]);
      String option = AcpPermissions.option(params.path("options"), decision.allowed());
      if (option == null) {
        outcome.put("outcome", "cancelled");
        logLine("[permission " + (decision.allowed() ? "allowed" : "rejected") + " but the agent offered no such "
            + "option, answered cancelled: " + AcpLog.oneLine(title) + "]");
      } else {
        outcome.put("outcome", "selected").put("optionId", option);
        logLine("[permission " + (decision.allowed() ? "allowed" : "rejected") + ": " + AcpLog.oneLine(title) + " ("
            + decision.reason() + ")]");
      }
    }
    ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0");
    message.set("id", id);
    message.putObject("result").set("outcome", outcome);
    send(message);
  }

  // --- session/update ---

  private void update(JsonNode params) {
    if (step == Step.LOAD) {
      replayed++; // the loaded session's history, replayed: not this attempt's work
      return;
    }
    if (session != null && params.path("sessionId").isTextual() && !session.equals(params.path("sessionId").asText())) {
      return;
    }
    JsonNode update = params.path("update");
    switch (update.path("sessionUpdate").asText("")) {
      case "agent_message_chunk" -> log.chunk(update.path("content"), false);
      case "agent_thought_chunk" -> log.chunk(update.path("content"), true);
      case "tool_call" -> log.toolCall(update, true);
      case "tool_call_update" -> log.toolCall(update, false);
      case "plan" -> log.plan(update.path("entries"));
      case "usage_update" -> {
        JsonNode amount = update.path("cost");
        if ("USD".equalsIgnoreCase(amount.path("currency").asText(""))) {
          Double usd = amount(amount.get("amount"), "usage_update.cost.amount");
          if (usd != null) {
            cost = usd; // the session's cost so far
          }
        }
      }
      default -> {
        // user_message_chunk (the prompt, echoed), available_commands_update, current_mode_update, ...
      }
    }
  }

  /** The unstable {@code usage} of a prompt response (tokens of the turn). */
  private void usage(JsonNode usage) {
    if (!usage.isObject()) {
      return;
    }
    Long cached = count(usage.get("cachedReadTokens"), "usage.cachedReadTokens", Figure.CACHE_READ);
    input = count(usage.get("inputTokens"), "usage.inputTokens", Figure.INPUT);
    output = count(usage.get("outputTokens"), "usage.outputTokens", Figure.OUTPUT);
    Long thought = count(usage.get("thoughtTokens"), "usage.thoughtTokens", Figure.OUTPUT);
    if (output != null && thought != null) {
      output = Usage.add(output, thought);
    }
    cacheRead = cached;
    cacheWrite = count(usage.get("cachedWriteTokens"), "usage.cachedWriteTokens", Figure.CACHE_WRITE);
  }

  // --- output ---

  @Override
  public synchronized AgentReport report() {
    String text = log.answer().isEmpty() ? null : text(new TextNode(log.answer()));
    String why = error != null ? error
        : step != Step.OVER ? "the agent ended before it answered " + step.method : null;
    return new AgentReport(checked(new Usage(input, output, cacheRead, cacheWrite, cost)), text, why,
        why == null ? null : ProviderText.classify(why).orElse(null));
  }

  @Override
  public synchronized String sessionId() {
    return session;
  }

  private void logLine(String line) {
    log.line(line);
  }

  private static String errorText(JsonNode error) {
    String message = error.path("message").isTextual() ? error.path("message").asText() : "no message";
    JsonNode data = error.path("data");
    String detail = data.isTextual() ? data.asText()
        : data.path("details").isTextual() ? data.path("details").asText()
            : data.path("message").isTextual() ? data.path("message").asText()
                : data.isMissingNode() || data.isNull() ? null : AcpPermissions.clip(data.toString(), 500);
    String code = error.path("code").canConvertToLong() ? " (" + error.path("code").asLong() + ")" : "";
    return SizeCap.cap(message + code + (detail == null || detail.equals(message) ? "" : ": " + detail),
        AgentOutcome.TEXT_MAX_CHARS);
  }

  // --- writing ---

  private void request(Step next, ObjectNode params) {
    step = next;
    pending = nextId++;
    ObjectNode message = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", pending).put("method", next.method);
    message.set("params", params);
    send(message);
  }

  private void send(ObjectNode message) {
    if (closed) {
      return;
    }
    byte[] bytes;
    try {
      bytes = (JSON.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("could not write an ACP message", e);
    }
    if (!outbox.offer(bytes)) {
      fail("the agent sent more than " + MAX_QUEUED + " requests without reading the answers");
      closed = true;
    }
  }

  /** The writer thread: every queued message in order, then the end of stdin. */
  private void write() {
    try (OutputStream out = stdin) {
      while (true) {
        byte[] next = outbox.take();
        if (next == CLOSE) {
          return;
        }
        out.write(next);
        out.flush();
      }
    } catch (IOException e) {
      LOG.debug("{}: stopped writing to the agent: {}", name, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
