package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AcpConfig;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's protocol handling without a process: what it answers, ignores and fails on. */
class AcpClientTest {
  @TempDir
  Path dir;

  private final ByteArrayOutputStream sent = new ByteArrayOutputStream();
  private final List<String> log = new ArrayList<>();

  private AcpClient client() {
    AcpClient client = new AcpClient(sent, "test", dir, dir.resolve("job"), "Do it.", null, AcpConfig.DEFAULT);
    client.logsTo(log::add);
    client.start();
    return client;
  }

  private String sent(String expected) throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    String text = "";
    while (System.nanoTime() < deadline && !(text = sent.toString(StandardCharsets.UTF_8)).contains(expected)) {
      Thread.sleep(5);
    }
    return text;
  }

  @Test
  void a_parse_error_without_an_id_fails_the_request_waited_for() {
    AcpClient client = client();
    client.line("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}");
    assertTrue(client.over().isDone());
    assertEquals("initialize failed: Parse error (-32700)", client.report().error());
  }

  @Test
  void an_answer_to_nothing_asked_is_ignored_and_a_file_system_request_is_refused() throws Exception {
    AcpClient client = client();
    client.line("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
    assertFalse(client.over().isDone());
    client.line(
        "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"fs/read_text_file\",\"params\":{\"path\":\"/etc/passwd\"}}");
    String written = sent("\"id\":\"r1\"");
    assertTrue(
        written.contains("{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"error\":{\"code\":-32601,\"message\":\"Method not "
            + "found: fs/read_text_file (orchestrate offers no file system or terminal to ACP agents)\"}}"),
        written);
    client.line("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":2}}");
    assertTrue(client.over().isDone());
    assertEquals("the agent speaks ACP version 2, orchestrate speaks 1", client.report().error());
    client.close();
  }

  @Test
  void an_agent_that_never_answers_is_reported_as_such_and_its_text_is_capped() {
    AcpClient client = client();
    client.line("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1}}");
    client.line("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"sessionId\":\"s\"}}");
    String huge = "x".repeat(100_000);
    client.line("{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s\",\"update\":"
        + "{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"" + huge
        + "\\nend\"}}}}");
    client.ended();
    AgentReport report = client.report();
    assertEquals("the agent closed its output before it answered session/prompt", report.error());
    assertTrue(report.finalText().length() <= dev.orchestrate.outcome.AgentOutcome.TEXT_MAX_CHARS, "capped answer");
    assertEquals(AcpLog.LINE_MAX_CHARS, log.get(0).length(), "a line within the cap");
    assertEquals("end", log.get(1));
  }
}
