package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AcpConfig;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the real Claude Code ACP adapter (src/test/resources/agent-outputs, claude-code-acp-0.16.2)
 * and the Gemini CLI in ACP mode (gemini-cli-acp-0.61.0) printed in one turn, read by the client:
 * the log lines, the permission answer, the session.
 */
class AcpRecordedTest {
  @TempDir
  Path dir;

  /** A client fed what the agent said in the recorded {@code transcript} ("<< " lines), what it writes in {@code sent}. */
  private AcpClient replayed(String transcript, ByteArrayOutputStream sent, List<String> log) throws Exception {
    List<String> lines;
    try (InputStream in = AcpRecordedTest.class.getResourceAsStream(transcript)) {
      lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
    AcpClient client = new AcpClient(sent, "test", dir, dir.resolve("job"), "Do the design phase.", null,
        AcpConfig.DEFAULT);
    client.logsTo(log::add);
    client.start();
    for (String line : lines) {
      if (line.startsWith("<< ")) {
        client.line(line.substring(3));
      }
    }
    return client;
  }

  @Test
  void the_adapters_turn_reads_as_the_log_lines_and_its_permission_request_is_answered() throws Exception {
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    List<String> log = new ArrayList<>();
    AcpClient client = replayed("/agent-outputs/claude-code-acp-0.16.2/design-turn.transcript", sent, log);
    assertTrue(client.over().isDone());
    assertTrue(client.answered());
    assertEquals("5ef06367-0042-4b0a-855c-f03544eb5dfd", client.sessionId());
    String command = "`printf '%s' '{\"result\":\"phase_complete\",\"summary\":\"fake model did '\"$ORCHESTRATE_PHASE\"'"
        + " of '\"$ORCHESTRATE_ITEM_ID\"'\"}' > \"$ORCHESTRATE_RESULT_FILE\"`";
    assertEquals(List.of("→ Terminal [execute] (pending)", "→ " + command + " [execute] (pending)",
        "[permission allowed: " + command + " (it names no path)]", "← " + command + ": completed",
        "Done: the result file is written.", "[turn ended: end_turn]"), log);
    AgentReport report = client.report();
    assertEquals("Done: the result file is written.", report.finalText());
    assertEquals(null, report.error());
    client.close();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!new String(sent.toByteArray(), StandardCharsets.UTF_8).contains("\"outcome\":\"selected\"")
        && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    String written = new String(sent.toByteArray(), StandardCharsets.UTF_8);
    assertTrue(written.contains("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"outcome\":{\"outcome\":\"selected\","
        + "\"optionId\":\"allow\"}}}"), written);
  }

  @Test
  void the_gemini_clis_turn_reports_its_tool_call_from_the_permission_request() throws Exception {
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    List<String> log = new ArrayList<>();
    AcpClient client = replayed("/agent-outputs/gemini-cli-acp-0.61.0/design-turn.transcript", sent, log);
    assertTrue(client.over().isDone());
    assertTrue(client.answered());
    assertEquals("eb463b71-bba2-43fd-b3b5-81fa17052403", client.sessionId());
    String command = "printf '%s' '{\"result\":\"phase_complete\",\"summary\":\"fake model did '\"$ORCHESTRATE_PHASE\"'"
        + " of '\"$ORCHESTRATE_ITEM_ID\"'\"}' > \"$ORCHESTRATE_RESULT_FILE\"";
    // The CLI sends no tool_call for a call it asks about: the request itself is the announcement.
    assertEquals(List.of("→ " + command + " [execute] (pending)", "[permission allowed: " + command
        + " (it names no path)]", "← " + command + ": completed", "Done: the result file is written.",
        "[turn ended: end_turn]"), log);
    AgentReport report = client.report();
    assertEquals("Done: the result file is written.", report.finalText());
    assertEquals(null, report.error());
    client.close();
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!new String(sent.toByteArray(), StandardCharsets.UTF_8).contains("\"outcome\":\"selected\"")
        && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    String written = new String(sent.toByteArray(), StandardCharsets.UTF_8);
    assertTrue(written.contains("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"outcome\":{\"outcome\":\"selected\","
        + "\"optionId\":\"proceed_once\"}}}"), written);
  }
}
