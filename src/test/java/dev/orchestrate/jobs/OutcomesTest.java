package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.Ending;
import dev.orchestrate.outcome.AgentResult;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class OutcomesTest {

  private static final Duration ELAPSED = Duration.ofSeconds(3);
  private static final ResultFile.Absent NO_FILE = new ResultFile.Absent();

  @Test
  void exit_0_without_a_result_file_completes_the_phase_with_the_stdout_tail() {
    AgentOutcome outcome = Outcomes.exited(0, NO_FILE, ResultFallback.EXIT_CODE,
        "\nall done\n", "noise", ELAPSED);
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result());
    assertEquals("all done", outcome.summary());
    assertEquals(OptionalInt.of(0), outcome.exitCode());
    assertEquals(Ending.EXITED, outcome.ending());
    assertEquals(ELAPSED, outcome.elapsed());
  }

  @Test
  void a_non_zero_exit_without_a_result_file_fails_with_the_code_and_stderr_tail() {
    AgentOutcome outcome = Outcomes.exited(3, NO_FILE, ResultFallback.EXIT_CODE, "out",
        "boom\n", ELAPSED);
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals("agent exited with code 3\nboom", outcome.context());
    assertEquals("", outcome.summary());
  }

  @Test
  void a_non_zero_exit_with_silent_stderr_says_only_the_code() {
    AgentOutcome outcome = Outcomes.exited(1, NO_FILE, ResultFallback.EXIT_CODE, "", "  \n", ELAPSED);
    assertEquals("agent exited with code 1", outcome.context());
  }

  @Test
  void strict_mode_fails_a_successful_exit_without_a_result_file() {
    AgentOutcome outcome = Outcomes.exited(0, NO_FILE, ResultFallback.STRICT, "did it", "", ELAPSED);
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals("agent wrote no result file (agent.result_fallback: strict); exit code 0",
        outcome.context());
  }

  @Test
  void the_result_file_wins_over_the_exit_code() {
    ResultFile.Reported report = new ResultFile.Reported(AgentResult.BLOCKED, "half", "need key",
        List.of(), List.of());
    AgentOutcome outcome = Outcomes.exited(9, report, ResultFallback.EXIT_CODE, "", "err", ELAPSED);
    assertEquals(AgentResult.BLOCKED, outcome.result());
    assertEquals("need key", outcome.context());
    assertEquals(OptionalInt.of(9), outcome.exitCode());
  }

  @Test
  void an_invalid_result_file_fails_with_its_problem_even_on_exit_0() {
    AgentOutcome outcome = Outcomes.exited(0, new ResultFile.Invalid("result file x: bad"),
        ResultFallback.EXIT_CODE, "", "", ELAPSED);
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals("result file x: bad", outcome.context());
  }

  @Test
  void a_timeout_names_the_limit_the_descendants_and_the_stderr_tail() {
    AgentOutcome outcome = Outcomes.timedOut(Duration.ofMinutes(30), 2, "stuck on lock\n",
        ELAPSED);
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals(Ending.TIMED_OUT, outcome.ending());
    assertEquals(OptionalInt.empty(), outcome.exitCode());
    assertEquals("timed out after 30m; terminated the agent and 2 descendant processes\n"
        + "stuck on lock", outcome.context());
  }

  @Test
  void a_timeout_of_a_lone_agent_mentions_no_descendants() {
    assertEquals("timed out after 1s; terminated the agent",
        Outcomes.timedOut(Duration.ofSeconds(1), 0, "", ELAPSED).context());
    assertEquals("timed out after 1s; terminated the agent and 1 descendant process",
        Outcomes.timedOut(Duration.ofSeconds(1), 1, "", ELAPSED).context());
  }

  @Test
  void a_cancellation_fails_with_context_cancelled() {
    AgentOutcome outcome = Outcomes.cancelled(ELAPSED);
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals(Ending.CANCELLED, outcome.ending());
    assertEquals("cancelled", outcome.context());
  }

  @Test
  void durations_are_spelled_compactly() {
    assertEquals("30m", Outcomes.describe(Duration.ofMinutes(30)));
    assertEquals("1h30m", Outcomes.describe(Duration.ofMinutes(90)));
    assertEquals("1s500ms", Outcomes.describe(Duration.ofMillis(1500)));
    assertEquals("26h", Outcomes.describe(Duration.ofHours(26)));
    assertEquals("0s", Outcomes.describe(Duration.ZERO));
  }

  @Test
  void a_stdout_tail_that_was_cut_makes_a_summary_counted_as_truncated() {
    AgentOutcome cut = Outcomes.exited(0, NO_FILE, ResultFallback.EXIT_CODE,
        new OutputCapture.Tails("head…[truncated 9 chars sha256:0123456789abcdef]tail", "", true, false), ELAPSED);
    assertEquals(1, cut.truncatedValues());
    AgentOutcome whole = Outcomes.exited(0, NO_FILE, ResultFallback.EXIT_CODE,
        new OutputCapture.Tails("all of it", "", false, true), ELAPSED);
    assertEquals(0, whole.truncatedValues(), "stderr is not used on success");
  }

  @Test
  void a_failure_quoting_a_cut_stderr_tail_is_counted_as_truncated() {
    OutputCapture.Tails tails = new OutputCapture.Tails("", "the end of stderr", false, true);
    assertEquals(1, Outcomes.exited(2, NO_FILE, ResultFallback.EXIT_CODE, tails, ELAPSED).truncatedValues());
    assertEquals(1, Outcomes.exited(0, NO_FILE, ResultFallback.STRICT, tails, ELAPSED).truncatedValues());
    assertEquals(1, Outcomes.timedOut(Duration.ofSeconds(1), 0, tails, ELAPSED).truncatedValues());
    assertEquals(0, Outcomes.exited(2, NO_FILE, ResultFallback.EXIT_CODE, "", "short", ELAPSED)
        .truncatedValues());
  }

  @Test
  void a_failure_context_is_never_longer_than_the_text_cap() {
    String stderr = "e".repeat(AgentOutcome.TEXT_MAX_CHARS * 3);
    AgentOutcome outcome = Outcomes.exited(1, NO_FILE, ResultFallback.EXIT_CODE, "", stderr, ELAPSED);
    assertTrue(outcome.context().length() <= AgentOutcome.TEXT_MAX_CHARS);
    assertTrue(outcome.context().startsWith("agent exited with code 1\neee"), outcome.context().substring(0, 40));
    assertEquals(1, outcome.truncatedValues());
  }

  @Test
  void the_result_file_s_count_of_cut_fields_is_the_outcome_s() {
    ResultFile.Reported report = new ResultFile.Reported(AgentResult.PHASE_COMPLETE, "s", "", List.of(), List.of(), 3);
    assertEquals(3, Outcomes.exited(0, report, ResultFallback.EXIT_CODE, "", "", ELAPSED).truncatedValues());
  }
}
