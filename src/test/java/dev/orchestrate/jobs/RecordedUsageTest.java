package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * What Claude Code spent, read from what the real CLI printed (src/test/resources/agent-outputs,
 * recorded against FakeAnthropic: 1200 fresh input, 35 output, 300 cache-read and 50 cache-write
 * tokens a turn, $0.00581 at the fake model's list price, unless a case says otherwise) as its run
 * ends otherwise than with an answer: cut by its own budget flag, killed mid-run, overloaded.
 */
class RecordedUsageTest {
  private static final String CLAUDE = "claude-code-2.1.330/";

  private static String resource(String path) throws IOException {
    try (InputStream in = RecordedUsageTest.class.getResourceAsStream("/agent-outputs/" + path)) {
      if (in == null) {
        throw new IOException("no fixture " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static AgentReport read(String name) throws IOException {
    OutputReader reader = OutputReaders.of(AgentPreset.CLAUDE);
    resource(CLAUDE + name + ".stdout").lines().forEach(reader::line);
    return reader.report();
  }

  @Test
  void a_budget_cut_after_two_turns_counts_both_though_its_usage_holds_the_last() throws IOException {
    String stdout = resource(CLAUDE + "budget-exhausted.stdout");
    // what the CLI printed: usage is the last turn's, the per-model figures the run's
    assertTrue(stdout.contains("\"usage\":{\"input_tokens\":1200,\"cache_creation_input_tokens\":50,"), stdout);
    assertTrue(stdout.contains("\"inputTokens\":2400,"), stdout);
    AgentReport report = read("budget-exhausted");
    assertEquals(new Usage(2400L, 70L, 600L, 100L, 0.01162), report.usage());
    assertEquals("error_max_budget_usd: Reached maximum budget ($0.01)", report.error());
    assertEquals(OutcomeClass.BUDGET_EXHAUSTED, report.provider().kind());
    // its last turn answered before the cut: the answer is kept
    assertEquals("Done: the result file is written.", report.finalText());
  }

  @Test
  void a_budget_cut_on_the_first_turn_counts_it_though_its_usage_says_zero() throws IOException {
    assertTrue(resource(CLAUDE + "budget-exhausted-first-turn.stdout").contains(
        "\"usage\":{\"output_tokens_details\":{\"thinking_tokens\":0},\"input_tokens\":0,"));
    AgentReport report = read("budget-exhausted-first-turn");
    assertEquals(new Usage(8000L, 35L, 300L, 50L, 0.03301), report.usage());
    assertEquals(OutcomeClass.BUDGET_EXHAUSTED, report.provider().kind());
  }

  @Test
  void a_resumed_budget_cut_counts_its_own_run_not_the_session() throws IOException {
    // modelUsage and total_cost_usd count the session (the first run's two turns too); the cost is
    // the session's as for every resume (JobEnds takes off what the earlier jobs were recorded with)
    AgentReport report = read("resume-after-budget-exhausted");
    assertEquals(new Usage(2400L, 70L, 600L, 100L, 0.02324), report.usage());
    assertEquals(OutcomeClass.BUDGET_EXHAUSTED, report.provider().kind());
  }

  @Test
  void a_run_killed_without_a_result_reports_the_tokens_of_its_messages_each_once() throws IOException {
    String stdout = resource(CLAUDE + "hang-after-turn-killed.stdout");
    // one message, its sentence and its Bash call printed as two events with one id and one usage
    assertEquals(2, stdout.split("\"id\":\"msg_2\"", -1).length - 1, stdout);
    AgentReport report = read("hang-after-turn-killed");
    // the events carry the usage of the message's start (1 output token); no cost before a result
    assertEquals(new Usage(1200L, 1L, 300L, 50L, null), report.usage());
    assertNull(report.error());
    assertEquals("I'll check the working directory first.", report.finalText());
  }

  @Test
  void a_timed_out_attempt_carries_what_its_messages_spent() throws IOException {
    AgentReport report = read("hang-after-turn-killed");
    AgentOutcome outcome = Outcomes.timedOut(Duration.ofMinutes(5), 0, new OutputCapture.Tails("", ""),
        Duration.ofMinutes(5)).withUsage(report.usage());
    assertEquals(OutcomeClass.TIMED_OUT, outcome.kind());
    assertEquals(1200L, outcome.usage().inputTokens());
  }

  @Test
  void a_529_the_cli_did_not_retry_is_rate_limited_and_spent_nothing() throws IOException {
    for (String name : List.of("overloaded-no-retry", "overloaded-max-retries-0")) {
      String stdout = resource(CLAUDE + name + ".stdout");
      assertTrue(!stdout.contains("api_retry") && stdout.contains("\"result\":\"API Error: 529 Overloaded."), name);
      AgentReport report = read(name);
      assertEquals(OutcomeClass.RATE_LIMITED, report.provider().kind(), name);
      assertEquals(new Usage(0L, 0L, 0L, 0L, 0.0), report.usage(), name);
    }
  }

  @Test
  void a_budget_cut_fails_the_attempt_as_budget_exhausted_unless_a_result_file_completed_the_phase()
      throws IOException {
    AgentReport report = read("budget-exhausted");
    AgentOutcome cut = Outcomes.exited(1, new ResultFile.Absent(), ResultFallback.EXIT_CODE,
        new OutputCapture.Tails("", ""), Duration.ofSeconds(5), report);
    assertEquals(OutcomeClass.BUDGET_EXHAUSTED, cut.kind());
    assertEquals("the agent reported an error (exit code 1): error_max_budget_usd: Reached maximum budget ($0.01)",
        cut.context());
    assertEquals(0.01162, cut.usage().costUsd());
    // the phase was complete before the cut: its work is the phase's, committed as any success
    AgentOutcome done = Outcomes.exited(1, new ResultFile.Reported(AgentResult.PHASE_COMPLETE, "did it", "",
        List.of(), List.of(), 0), ResultFallback.EXIT_CODE, new OutputCapture.Tails("", ""), Duration.ofSeconds(5),
        report);
    assertEquals(OutcomeClass.SUCCEEDED, done.kind());
    assertEquals(OptionalInt.of(1), done.exitCode());
    assertEquals(new Usage(2400L, 70L, 600L, 100L, 0.01162), done.usage());
  }
}
