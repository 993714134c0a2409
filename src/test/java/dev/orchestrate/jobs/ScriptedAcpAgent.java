package dev.orchestrate.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An ACP agent for tests, run as its own process ({@link #command}): it speaks the Agent Client
 * Protocol on stdin and stdout as the scenario named by its first argument says, writes the
 * result file the way a real agent's tool would, and records what it was sent (one JSON message a
 * line, and what happened) in the file named by {@code ACP_RECORD}. After its turn it keeps
 * running, as real ACP agents do, until it is stopped.
 */
public final class ScriptedAcpAgent {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String scenario;
  private final PrintStream out;
  private final BufferedReader in;
  private final Path record;
  private String session = "sess-1";
  private long nextId = 100;

  private ScriptedAcpAgent(String scenario) {
    this.scenario = scenario;
    this.out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    this.in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String file = System.getenv("ACP_RECORD");
    this.record = file == null ? null : Path.of(file);
  }

  /** The argv that runs this agent in scenario {@code scenario} with this JVM's java and class path. */
  static List<String> command(String scenario) {
    String java = ProcessHandle.current().info().command().orElse("java");
    return new ArrayList<>(List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp",
        System.getProperty("java.class.path"), ScriptedAcpAgent.class.getName(), scenario));
  }

  public static void main(String[] args) throws Exception {
    new ScriptedAcpAgent(args[0]).run();
  }

  private void run() throws Exception {
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode m = JSON.readTree(line);
      note(m.toString());
      String method = m.path("method").asText("");
      switch (method) {
        case "initialize" -> {
          if (scenario.equals("garbage")) {
            for (int i = 0; i < 150; i++) {
              out.println("this is not json " + i);
            }
            continue;
          }
          ObjectNode result = JSON.createObjectNode().put("protocolVersion", 1);
          result.putObject("agentCapabilities").put("loadSession", !scenario.equals("noload"));
          answer(m, result);
        }
        case "session/new" -> {
          if (scenario.equals("exit-early")) {
            System.exit(3);
          }
          answer(m, JSON.createObjectNode().put("sessionId", session));
        }
        case "session/load" -> {
          session = m.path("params").path("sessionId").asText();
          update(JSON.createObjectNode().put("sessionUpdate", "agent_message_chunk").set("content",
              text("an old message, replayed")));
          answer(m, JSON.createObjectNode());
        }
        case "session/prompt" -> prompt(m);
        case "session/cancel" -> note("cancel received");
        default -> {
          if (m.has("result") || m.has("error")) {
            note("answer " + m);
          }
        }
      }
    }
    note("stdin ended");
    Thread.sleep(120_000); // serves on, as real agents do after their stdin ends: orchestrate stops it
  }

  private void prompt(JsonNode m) throws Exception {
    Path resultFile = Path.of(System.getenv("ORCHESTRATE_RESULT_FILE"));
    String phase = System.getenv("ORCHESTRATE_PHASE");
    String workDir = System.getProperty("user.dir");
    switch (scenario) {
      case "hang" -> {
        update(JSON.createObjectNode().put("sessionUpdate", "agent_message_chunk").set("content",
            text("Thinking for a long time")));
        return; // never answers; session/cancel is only noted
      }
      case "rpc-error" -> {
        ObjectNode error = JSON.createObjectNode().put("code", -32603).put("message", "Internal error");
        error.putObject("data").put("details", "API Error: 500 the model broke");
        ObjectNode reply = JSON.createObjectNode().put("jsonrpc", "2.0");
        reply.set("id", m.get("id"));
        reply.set("error", error);
        out.println(reply);
        return;
      }
      case "refusal" -> {
        answer(m, JSON.createObjectNode().put("stopReason", "refusal"));
        return;
      }
      case "exit-in-turn" -> {
        update(JSON.createObjectNode().put("sessionUpdate", "agent_message_chunk").set("content", text("bye")));
        System.exit(4);
      }
      case "oversized" -> out.println("{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"x\":\""
          + "y".repeat(3 * 1024 * 1024) + "\"}}");
      default -> {
      }
    }
    update(JSON.createObjectNode().put("sessionUpdate", "agent_message_chunk").set("content",
        text("Working on " + phase + ".\nStill")));
    update(JSON.createObjectNode().put("sessionUpdate", "agent_message_chunk").set("content",
        text(" working.\n")));
    update(JSON.createObjectNode().put("sessionUpdate", "agent_thought_chunk").set("content", text("hmm")));
    ObjectNode plan = JSON.createObjectNode().put("sessionUpdate", "plan");
    plan.putArray("entries").addObject().put("content", "write the result").put("priority", "high")
        .put("status", "in_progress");
    update(plan);
    String summary = "scripted " + phase + " in " + Path.of(workDir).getFileName();
    if (scenario.equals("permissions")) {
      String outside = permission("t-out", "Write /etc/orchestrate-test", "/etc/orchestrate-test", null);
      String inside = permission("t-in", "Edit notes.txt", null, workDir + "/notes.txt");
      String relative = permission("t-up", "Edit ../escape.txt", null, "../escape.txt");
      summary = "outside=" + outside + " inside=" + inside + " relative=" + relative;
    }
    ObjectNode call = JSON.createObjectNode().put("sessionUpdate", "tool_call").put("toolCallId", "t1")
        .put("title", "Write the result file").put("kind", "edit").put("status", "pending");
    call.putArray("locations").addObject().put("path", resultFile.toString());
    update(call);
    Files.writeString(resultFile, JSON.createObjectNode().put("result", "phase_complete").put("summary", summary)
        .toString());
    update(JSON.createObjectNode().put("sessionUpdate", "tool_call_update").put("toolCallId", "t1")
        .put("status", "completed"));
    update(JSON.createObjectNode().put("sessionUpdate", "agent_message_chunk").set("content", text("Done.")));
    ObjectNode usage = JSON.createObjectNode().put("sessionUpdate", "usage_update").put("used", 1000)
        .put("size", 200000);
    usage.putObject("cost").put("amount", 0.25).put("currency", "USD");
    update(usage);
    ObjectNode result = JSON.createObjectNode().put("stopReason", "end_turn");
    result.putObject("usage").put("inputTokens", 1200).put("outputTokens", 30).put("thoughtTokens", 5)
        .put("cachedReadTokens", 300).put("cachedWriteTokens", 50).put("totalTokens", 1585);
    answer(m, result);
  }

  /** Asks for permission and waits for the answer: the chosen option, or "cancelled". */
  private String permission(String id, String title, String location, String rawPath) throws IOException {
    ObjectNode params = JSON.createObjectNode().put("sessionId", session);
    ObjectNode call = params.putObject("toolCall").put("toolCallId", id).put("title", title).put("kind", "edit");
    if (location != null) {
      call.putArray("locations").addObject().put("path", location);
    }
    if (rawPath != null) {
      call.putObject("rawInput").put("file_path", rawPath).put("content", "x");
    }
    var options = params.putArray("options");
    options.addObject().put("optionId", "yes").put("name", "Allow").put("kind", "allow_once");
    options.addObject().put("optionId", "always").put("name", "Always").put("kind", "allow_always");
    options.addObject().put("optionId", "no").put("name", "Reject").put("kind", "reject_once");
    long requestId = nextId++;
    ObjectNode request = JSON.createObjectNode().put("jsonrpc", "2.0").put("id", requestId)
        .put("method", "session/request_permission");
    request.set("params", params);
    out.println(request);
    String line;
    while ((line = in.readLine()) != null) {
      JsonNode m = JSON.readTree(line);
      note(m.toString());
      if (m.path("id").asLong(-1) == requestId && m.has("result")) {
        JsonNode outcome = m.path("result").path("outcome");
        return outcome.path("outcome").asText().equals("selected") ? outcome.path("optionId").asText()
            : outcome.path("outcome").asText();
      }
    }
    return "no answer";
  }

  private static ObjectNode text(String text) {
    return JSON.createObjectNode().put("type", "text").put("text", text);
  }

  private void update(ObjectNode update) {
    ObjectNode m = JSON.createObjectNode().put("jsonrpc", "2.0").put("method", "session/update");
    m.putObject("params").put("sessionId", session).set("update", update);
    out.println(m);
  }

  private void answer(JsonNode request, JsonNode result) {
    ObjectNode m = JSON.createObjectNode().put("jsonrpc", "2.0");
    m.set("id", request.get("id"));
    m.set("result", result);
    out.println(m);
  }

  private void note(String what) throws IOException {
    if (record != null) {
      Files.writeString(record, what + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
  }
}
