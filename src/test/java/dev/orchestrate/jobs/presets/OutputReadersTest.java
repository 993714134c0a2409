package dev.orchestrate.jobs.presets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.jobs.Usage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Each preset's reader over output recorded from the real CLI (the versions in docs/agents.md)
 * run against the scripted local models of the end-to-end tests (FakeAnthropic, FakeResponses).
 */
class OutputReadersTest {

  private static AgentReport read(AgentPreset preset, String resource) throws IOException {
    OutputReader reader = OutputReaders.of(preset);
    try (InputStream in = OutputReadersTest.class.getResourceAsStream("/agents/presets/" + resource);
        BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        reader.line(line);
      }
    }
    return reader.report();
  }

  @Test
  void claude_success_reports_the_final_answer_tokens_and_cost() throws IOException {
    AgentReport report = read(AgentPreset.CLAUDE, "claude-success.jsonl");
    assertNull(report.error());
    assertEquals("Done: the result file is written.", report.finalText());
    // Two model calls of 1200 input, 35 output, 300 cache-read and 50 cache-write tokens each.
    assertEquals(new Usage(2400L, 70L, 600L, 100L, 0.01162), report.usage());
  }

  @Test
  void claude_json_output_format_reads_the_same_as_stream_json() throws IOException {
    AgentReport report = read(AgentPreset.CLAUDE, "claude-answer-only-json-format.json");
    assertNull(report.error());
    assertEquals("Done: the result file is written.", report.finalText());
    assertEquals(new Usage(1200L, 35L, 300L, 50L, 0.00581), report.usage());
    assertEquals(report, read(AgentPreset.CLAUDE, "claude-answer-only.jsonl"));
  }

  @Test
  void claude_api_error_is_a_failure_with_claudes_own_message() throws IOException {
    AgentReport report = read(AgentPreset.CLAUDE, "claude-api-error.jsonl");
    assertEquals("API Error: 400 scripted failure: the fake model refuses this request", report.error());
    assertEquals(0.0, report.usage().costUsd());
  }

  @Test
  void claude_max_budget_is_a_failure_naming_the_limit() throws IOException {
    AgentReport report = read(AgentPreset.CLAUDE, "claude-max-budget.jsonl");
    assertEquals("error_max_budget_usd: Reached maximum budget ($0.02)", report.error());
    assertEquals(0.02324, report.usage().costUsd());
  }

  @Test
  void codex_success_reports_the_last_agent_message_and_turn_usage_without_cost() throws IOException {
    AgentReport report = read(AgentPreset.CODEX, "codex-success.jsonl");
    assertNull(report.error());
    assertEquals("Done: the result file is written.", report.finalText());
    // input_tokens 1800 includes cached_input_tokens 400: counted apart. Codex reports no cost.
    assertEquals(new Usage(1400L, 80L, 400L, 0L, null), report.usage());
  }

  @Test
  void codex_answer_only_reads_one_turn() throws IOException {
    AgentReport report = read(AgentPreset.CODEX, "codex-answer-only.jsonl");
    assertEquals(new Usage(700L, 40L, 200L, 0L, null), report.usage());
    assertEquals("Done: the result file is written.", report.finalText());
  }

  @Test
  void codex_failed_turn_is_a_failure_with_the_providers_message() throws IOException {
    AgentReport report = read(AgentPreset.CODEX, "codex-api-error.jsonl");
    assertEquals("scripted failure: the fake model refuses this request", report.error());
    assertEquals(Usage.UNKNOWN, report.usage());
    assertNull(report.finalText());
  }

  @Test
  void gemini_success_reports_the_assistant_text_and_result_stats_without_cost() throws IOException {
    AgentReport report = read(AgentPreset.GEMINI, "gemini-success.jsonl");
    assertNull(report.error());
    assertEquals("Done: the result file is written.", report.finalText());
    // input_tokens 2400 includes 300 cached: counted apart. The Gemini CLI reports no cost.
    assertEquals(new Usage(2100L, 90L, 300L, null, null), report.usage());
  }

  @Test
  void gemini_answer_only_reads_the_same_way() throws IOException {
    AgentReport report = read(AgentPreset.GEMINI, "gemini-answer-only.jsonl");
    assertEquals("Done: the result file is written.", report.finalText());
    assertEquals(new Usage(1400L, 60L, 200L, null, null), report.usage());
  }

  @Test
  void gemini_error_result_is_a_failure_with_its_message() throws IOException {
    AgentReport report = read(AgentPreset.GEMINI, "gemini-api-error.jsonl");
    assertEquals("[API Error: {\"error\":{\"code\":400,\"message\":\"scripted failure: the fake model refuses this "
        + "request\",\"status\":\"INVALID_ARGUMENT\"}}]", report.error());
    assertNull(report.finalText());
  }

  @Test
  void opencode_success_sums_every_step_and_reports_the_last_text() throws IOException {
    AgentReport report = read(AgentPreset.OPENCODE, "opencode-success.jsonl");
    assertNull(report.error());
    assertEquals("Done: the result file is written.", report.finalText());
    Usage usage = report.usage();
    // Two steps (the write_file call, then the answer) of 600 fresh input, 25 output, 100 cache-read tokens.
    assertEquals(new Usage(1200L, 50L, 200L, 0L, usage.costUsd()), usage);
    assertEquals(0.00441, usage.costUsd(), 1e-12);
  }

  @Test
  void opencode_answer_only_reports_a_zero_cost_when_the_model_has_no_price() throws IOException {
    AgentReport report = read(AgentPreset.OPENCODE, "opencode-answer-only.jsonl");
    assertEquals("Done: the result file is written.", report.finalText());
    assertEquals(new Usage(600L, 25L, 100L, 0L, 0.0), report.usage());
  }

  @Test
  void opencode_error_event_is_a_failure_with_its_message() throws IOException {
    AgentReport report = read(AgentPreset.OPENCODE, "opencode-api-error.jsonl");
    assertEquals("scripted failure: the fake model refuses this request", report.error());
    assertEquals(Usage.UNKNOWN, report.usage());
  }

  @Test
  void lines_that_are_not_events_are_skipped() {
    OutputReader reader = OutputReaders.of(AgentPreset.CLAUDE);
    reader.line("Warning: something on stdout");
    reader.line("{not json");
    reader.line("[1, 2]");
    assertEquals(AgentReport.NONE, reader.report());
  }

  @Test
  void a_plain_command_is_not_read() {
    OutputReader reader = OutputReaders.of(AgentPreset.COMMAND);
    reader.line("{\"type\":\"result\",\"result\":\"x\"}");
    assertEquals(AgentReport.NONE, reader.report());
  }
}
