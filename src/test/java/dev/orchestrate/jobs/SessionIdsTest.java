package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.outcome.AgentSession;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The session id each reader takes from what the real CLIs printed (src/test/resources/agent-outputs),
 * and the ids it never takes: they go back on the next attempt's command line (issue 29).
 */
class SessionIdsTest {
  private static String resource(String path) throws IOException {
    try (InputStream in = SessionIdsTest.class.getResourceAsStream("/agent-outputs/" + path)) {
      if (in == null) {
        throw new IOException("no fixture " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String sessionOf(AgentPreset preset, String stdout) {
    OutputReader reader = OutputReaders.of(preset);
    stdout.lines().forEach(reader::line);
    return reader.sessionId();
  }

  @ParameterizedTest(name = "{0}/{1}")
  @CsvSource({
      "CLAUDE, claude-code-2.1.330/success, 321ba6cb-fef3-4df2-aaa3-0076608a0b5b",
      "CLAUDE, claude-code-2.1.330/usage-limit-oauth, a6ada18d-18c7-4164-9cf0-ff846aa07d2d",
      "CLAUDE, claude-code-2.1.330/cut-mid-stream-killed, f76c606c-c75d-498b-849c-90a44bf8daf6",
      "CODEX, codex-0.169.0/success, 01a21697-6c3c-7ad3-b133-fccfb93cd8bd",
      "CODEX, codex-0.169.0/usage-limit, 01a21697-7047-7741-81d8-94b8652ec43d",
      "GEMINI, gemini-cli-0.61.0/success, 52612145-b08d-4e26-b616-e990efac9522",
      "GEMINI, gemini-cli-0.61.0/usage-limit, 8de2681b-6747-4caa-98ce-30acfa5cd271",
      "OPENCODE, opencode-1.18.33/success, ses_de96a72fcffeFNRJRQ1ox0BZxj",
      "OPENCODE, opencode-1.18.33/cut-mid-stream, ses_de9694accffeeDxFo0mqTGXQT1"})
  void each_reader_takes_the_session_id_its_cli_printed(AgentPreset preset, String fixture, String expected)
      throws IOException {
    assertEquals(expected, sessionOf(preset, resource(fixture + ".stdout")));
  }

  @Test
  void a_plain_command_has_no_session() {
    assertNull(OutputReaders.of(AgentPreset.COMMAND).sessionId());
  }

  @Test
  void only_the_event_that_names_the_session_counts() {
    assertNull(sessionOf(AgentPreset.CODEX, "{\"type\":\"turn.started\",\"thread_id\":\"t-1\"}\n"));
    assertNull(sessionOf(AgentPreset.GEMINI, "{\"type\":\"message\",\"session_id\":\"g-1\"}\n"));
    assertEquals("first", sessionOf(AgentPreset.CLAUDE,
        "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"first\"}\n"
            + "{\"type\":\"result\",\"session_id\":\"second\"}\n"));
  }

  @Test
  void an_id_that_could_be_a_flag_a_path_or_two_arguments_is_never_returned() {
    for (String bad : new String[] {"--dangerously-skip-permissions", "-p", "../../etc/passwd", "a/b", "two words",
        "line\nbreak", "", "x".repeat(129)}) {
      String json = "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\""
          + bad.replace("\n", "\\n") + "\"}";
      assertNull(sessionOf(AgentPreset.CLAUDE, json), bad);
      assertNull(sessionOf(AgentPreset.CODEX, "{\"type\":\"thread.started\",\"thread_id\":\""
          + bad.replace("\n", "\\n") + "\"}"), bad);
      assertNull(sessionOf(AgentPreset.OPENCODE, "{\"type\":\"step_start\",\"sessionID\":\""
          + bad.replace("\n", "\\n") + "\"}"), bad);
      assertNull(sessionOf(AgentPreset.GEMINI, "{\"type\":\"init\",\"session_id\":\""
          + bad.replace("\n", "\\n") + "\"}"), bad);
    }
    assertNull(sessionOf(AgentPreset.CLAUDE, "{\"type\":\"system\",\"session_id\":42}"));
    assertEquals("good-1", sessionOf(AgentPreset.CLAUDE, "{\"type\":\"system\",\"session_id\":\"--evil\"}\n"
        + "{\"type\":\"system\",\"session_id\":\"good-1\"}\n"), "a later valid id is taken");
  }

  @Test
  void a_session_id_is_letters_digits_and_a_few_marks_at_most_128_long() {
    assertTrue(AgentSession.valid("321ba6cb-fef3-4df2-aaa3-0076608a0b5b"));
    assertTrue(AgentSession.valid("ses_de96a72fcffeFNRJRQ1ox0BZxj"));
    assertTrue(AgentSession.valid("a.b:c_d-e"));
    assertTrue(AgentSession.valid("x".repeat(128)));
    assertFalse(AgentSession.valid("x".repeat(129)));
    assertFalse(AgentSession.valid("--flag"));
    assertFalse(AgentSession.valid("-x"));
    assertFalse(AgentSession.valid("_x"));
    assertFalse(AgentSession.valid("a b"));
    assertFalse(AgentSession.valid("a/b"));
    assertFalse(AgentSession.valid("a\tb"));
    assertFalse(AgentSession.valid("a\n"));
    assertFalse(AgentSession.valid(""));
    assertFalse(AgentSession.valid(null));
    assertThrows(IllegalArgumentException.class, () -> new AgentSession("--resume", AgentSession.Start.FRESH));
    assertEquals(AgentSession.Start.RESUME_FAILED, AgentSession.Start.of("fresh_after_failed_resume"));
    assertEquals(AgentSession.Start.RESUMED, AgentSession.Start.of("resumed"));
    assertNull(AgentSession.Start.of("resume_failed"));
  }
}
