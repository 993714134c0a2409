package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.outcome.Usage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
  // Hostile figures (issue 27): 2^63-1, negatives, NaN, Infinity, 1e308, numbers beyond 64 bits and
  // strings where numbers belong. Each such figure is unknown (null, never 0 or a wrapped value), the
  // report says why, and the rest of the event still counts.

  private static final String HUGE = Long.toString(Long.MAX_VALUE);

  private static AgentReport readLines(AgentPreset preset, String... lines) {
    OutputReader reader = OutputReaders.of(preset);
    for (String line : lines) {
      reader.line(line);
    }
    return reader.report();
  }

  @Test
  void claude_hostile_figures_are_unknown_with_the_reason_and_a_nan_cost_keeps_is_error() {
    AgentReport report = readLines(AgentPreset.CLAUDE, "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,"
        + "\"result\":\"API Error: 529 overloaded\",\"total_cost_usd\":NaN,\"usage\":{\"input_tokens\":" + HUGE
        + ",\"output_tokens\":-5,\"cache_read_input_tokens\":\"600\",\"cache_creation_input_tokens\":1e308}}");

    assertEquals("API Error: 529 overloaded", report.error(), "the failure is not lost with the NaN");
    assertTrue(report.usage().isUnknown(), report.usage().toString());
    assertEquals("usage recorded as unknown: usage.input_tokens 9223372036854775807 (above the ceiling of 10^12 "
        + "tokens per job); usage.output_tokens -5 (negative); usage.cache_read_input_tokens (a string, not a "
        + "number); usage.cache_creation_input_tokens 1.0E308 (above the ceiling of 10^12 tokens per job); "
        + "total_cost_usd NaN (not a finite number)", report.usage().note());
  }

  @Test
  void claude_infinite_huge_or_textual_costs_are_unknown_and_the_tokens_beside_them_count() {
    for (String cost : List.of("Infinity", "-Infinity", "1e308", "1000000.01", "\"0.5\"", "-0.01")) {
      AgentReport report = readLines(AgentPreset.CLAUDE, "{\"type\":\"result\",\"subtype\":\"success\","
          + "\"is_error\":false,\"result\":\"done\",\"total_cost_usd\":" + cost + ",\"usage\":{\"input_tokens\":10,"
          + "\"output_tokens\":20}}");
      assertEquals("done", report.finalText(), cost);
      assertEquals(new Usage(10L, 20L, null, null, null), withoutNote(report.usage()), cost);
      assertTrue(report.usage().note().startsWith("usage recorded as unknown: total_cost_usd "), report.usage().note());
    }
    AgentReport atCeiling = readLines(AgentPreset.CLAUDE, "{\"type\":\"result\",\"result\":\"done\","
        + "\"total_cost_usd\":1000000,\"usage\":{\"input_tokens\":1000000000000}}");
    assertEquals(new Usage(Usage.MAX_TOKENS, null, null, null, Usage.MAX_COST_USD), atCeiling.usage());
  }

  @Test
  void claude_a_count_beyond_64_bits_or_with_a_fraction_is_unknown_not_wrapped() {
    AgentReport report = readLines(AgentPreset.CLAUDE, "{\"type\":\"result\",\"result\":\"done\",\"usage\":"
        + "{\"input_tokens\":99999999999999999999,\"output_tokens\":12.5,\"cache_read_input_tokens\":3e2}}");
    assertEquals(new Usage(null, null, 300L, null, null), withoutNote(report.usage()));
    assertTrue(report.usage().note().contains("usage.input_tokens 99999999999999999999 (above the ceiling"),
        report.usage().note());
    assertTrue(report.usage().note().contains("usage.output_tokens 12.5 (not a whole number)"), report.usage().note());
  }

  @Test
  void codex_turns_of_2_to_the_63_never_make_a_negative_running_sum() {
    String turn = "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":" + HUGE + ",\"cached_input_tokens\":0,"
        + "\"output_tokens\":" + HUGE + "}}";
    AgentReport report = readLines(AgentPreset.CODEX, turn, turn, turn);
    assertNull(report.usage().inputTokens());
    assertNull(report.usage().outputTokens());
    assertEquals(0L, report.usage().cacheReadTokens());
    assertTrue(report.usage().note().contains("usage.input_tokens 9223372036854775807 (above the ceiling"),
        report.usage().note());
  }

  @Test
  void codex_a_figure_rejected_in_one_turn_is_unknown_for_the_job_and_a_hostile_cached_count_spoils_the_input() {
    AgentReport report = readLines(AgentPreset.CODEX,
        "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":500,\"cached_input_tokens\":100,"
            + "\"output_tokens\":40}}",
        "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"cached_input_tokens\":" + HUGE
            + ",\"output_tokens\":\"many\"}}",
        "{\"type\":\"turn.failed\",\"error\":{\"message\":\"stream ended\"}}");
    assertEquals("stream ended", report.error());
    assertEquals(new Usage(null, null, null, null, null), withoutNote(report.usage()),
        "input includes the cached count, so a bad cached count leaves the fresh input unknown too");
    assertTrue(report.usage().note().contains("usage.output_tokens (a string, not a number)"), report.usage().note());
  }

  @Test
  void codex_many_large_turns_sum_past_the_ceiling_to_unknown() {
    String turn = "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":600000000000,\"cached_input_tokens\":0,"
        + "\"output_tokens\":1}}";
    AgentReport report = readLines(AgentPreset.CODEX, turn, turn);
    assertEquals(new Usage(null, 2L, 0L, null, null), withoutNote(report.usage()));
    assertEquals("usage recorded as unknown: input tokens 1200000000000 (above the ceiling of 10^12 tokens per job)",
        report.usage().note());
  }

  @Test
  void gemini_a_nan_in_the_result_stats_keeps_the_results_error_status() {
    AgentReport report = readLines(AgentPreset.GEMINI, "{\"type\":\"result\",\"status\":\"error\",\"error\":"
        + "{\"message\":\"quota exceeded\"},\"stats\":{\"input_tokens\":NaN,\"output_tokens\":Infinity,"
        + "\"cached\":-1}}");
    assertEquals("quota exceeded", report.error());
    assertTrue(report.usage().isUnknown(), report.usage().toString());
    assertTrue(report.usage().note().contains("stats.input_tokens NaN (not a finite number)"), report.usage().note());
    assertTrue(report.usage().note().contains("stats.cached -1 (negative)"), report.usage().note());
  }

  @Test
  void gemini_huge_per_model_counts_in_the_json_document_do_not_wrap() {
    AgentReport report = readLines(AgentPreset.GEMINI, "{\"response\":\"ok\",\"stats\":{\"models\":{"
        + "\"a\":{\"tokens\":{\"prompt\":" + HUGE + ",\"candidates\":" + HUGE + ",\"cached\":0}},"
        + "\"b\":{\"tokens\":{\"prompt\":" + HUGE + ",\"candidates\":1e308,\"cached\":\"x\"}}}}}");
    assertEquals("ok", report.finalText());
    assertEquals(Usage.UNKNOWN, withoutNote(report.usage()));
    assertTrue(report.usage().note().contains("stats.models.*.tokens.prompt 9223372036854775807"),
        report.usage().note());
  }

  @Test
  void opencode_output_plus_reasoning_and_summed_costs_never_overflow() {
    AgentReport report = readLines(AgentPreset.OPENCODE,
        "{\"type\":\"step_finish\",\"part\":{\"tokens\":{\"input\":10,\"output\":" + HUGE + ",\"reasoning\":"
            + HUGE + ",\"cache\":{\"read\":0,\"write\":0}},\"cost\":1e308}}",
        "{\"type\":\"step_finish\",\"part\":{\"tokens\":{\"input\":5,\"output\":1,\"reasoning\":0,"
            + "\"cache\":{\"read\":\"0\",\"write\":0}},\"cost\":1e308}}",
        "{\"type\":\"text\",\"part\":{\"text\":\"done\"}}");
    assertEquals("done", report.finalText());
    assertEquals(new Usage(15L, null, null, 0L, null), withoutNote(report.usage()));
    assertTrue(report.usage().note().contains("cost 1.0E308 (above the ceiling of $1,000,000 per job)"),
        report.usage().note());
  }

  @Test
  void opencode_a_nan_cost_keeps_the_step_and_the_error_after_it() {
    AgentReport report = readLines(AgentPreset.OPENCODE,
        "{\"type\":\"step_finish\",\"part\":{\"tokens\":{\"input\":10,\"output\":2},\"cost\":NaN}}",
        "{\"type\":\"error\",\"error\":{\"name\":\"APIError\",\"data\":{\"message\":\"refused\"}}}");
    assertEquals("refused", report.error());
    assertEquals(new Usage(10L, 2L, null, null, null), withoutNote(report.usage()));
    assertEquals("usage recorded as unknown: cost NaN (not a finite number)", report.usage().note());
  }

  @Test
  void a_note_lists_a_bounded_number_of_problems() {
    String[] turns = new String[500];
    for (int i = 0; i < turns.length; i++) {
      turns[i] = "{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":-" + (i + 1) + ",\"output_tokens\":-1}}";
    }
    AgentReport report = readLines(AgentPreset.CODEX, turns);
    assertTrue(report.usage().note().length() < 1_000, report.usage().note());
    assertTrue(report.usage().note().contains("usage.output_tokens -1 (negative)"), "said once");
    assertTrue(report.usage().note().endsWith("(and 493 more)"), report.usage().note());
  }

  private static Usage withoutNote(Usage u) {
    return new Usage(u.inputTokens(), u.outputTokens(), u.cacheReadTokens(), u.cacheWriteTokens(), u.costUsd());
  }
}
