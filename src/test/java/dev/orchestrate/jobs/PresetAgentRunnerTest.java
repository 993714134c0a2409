package dev.orchestrate.jobs;

import static dev.orchestrate.jobs.TestAgents.command;
import static dev.orchestrate.jobs.TestAgents.config;
import static dev.orchestrate.jobs.TestAgents.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.ConfigWithers;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real subprocesses that replay recorded CLI output under a preset: what the agent said becomes
 * the outcome (error, answer, usage) unless a result file speaks; and stalls.
 */
class PresetAgentRunnerTest {
  /** Expected warnings (a job directory that already exists, a deferred integration) are asserted, not printed. */
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(JobDirectory.class);

  @TempDir
  Path dir;

  private final AgentRunner runner = new AgentRunner(Clock.systemUTC());
  private final List<Long> pids = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    pids.forEach(TestAgents::kill);
  }

  private static String recording(String name) {
    try {
      return Path.of(PresetAgentRunnerTest.class.getResource("/agents/presets/" + name).toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static AgentConfig preset(AgentPreset preset, List<String> command) {
    AgentConfig c = config(command);
    return new AgentConfig(c.command(), c.timeout(), c.killGrace(), c.env(), c.resultFallback(), c.logMaxBytes(),
        c.outputTailChars(), preset, List.of(), null);
  }

  /** What the real Claude Code printed before it was killed while its provider hung after a turn. */
  private static String hangRecording() {
    try {
      return Path.of(PresetAgentRunnerTest.class.getResource(
          "/agent-outputs/claude-code-2.1.330/hang-after-turn-killed.stdout").toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private AgentOutcome run(AgentConfig agent) throws InterruptedException {
    RunningAgent running = runner.start(request(dir, agent));
    pids.add(running.pid());
    return running.await();
  }

  @Test
  void an_error_the_agent_reports_fails_the_attempt_with_its_own_message() throws Exception {
    AgentOutcome outcome = run(preset(AgentPreset.CLAUDE,
        command("replay.sh", recording("claude-api-error.jsonl"), "-", "1")));
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals("the agent reported an error (exit code 1): API Error: 400 scripted failure: the fake model "
        + "refuses this request", outcome.context());
    assertEquals(0.0, outcome.usage().costUsd());
  }

  @Test
  void without_a_result_file_the_agents_final_answer_is_the_summary() throws Exception {
    AgentOutcome outcome = run(preset(AgentPreset.CODEX,
        command("replay.sh", recording("codex-answer-only.jsonl"))));
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result());
    assertEquals("Done: the result file is written.", outcome.summary());
    assertEquals(new Usage(700L, 40L, 200L, 0L, null), outcome.usage());
  }

  @Test
  void the_result_file_stays_the_first_authority_and_the_usage_goes_with_it() throws Exception {
    AgentOutcome outcome = run(preset(AgentPreset.CLAUDE, command("replay.sh", recording("claude-api-error.jsonl"),
        "{\"result\":\"blocked\",\"context\":\"needs a decision\"}", "0")));
    assertEquals(AgentResult.BLOCKED, outcome.result());
    assertEquals("needs a decision", outcome.context());
    assertEquals(0.0, outcome.usage().costUsd());
    AgentOutcome success = run(preset(AgentPreset.CLAUDE, command("replay.sh", recording("claude-success.jsonl"),
        "{\"result\":\"phase_complete\",\"summary\":\"from the file\"}", "0")));
    assertEquals("from the file", success.summary());
    assertEquals(new Usage(2400L, 70L, 600L, 100L, 0.01162), success.usage());
  }

  @Test
  void a_timed_out_agent_records_the_tokens_its_messages_reported() throws Exception {
    AgentConfig c = preset(AgentPreset.CLAUDE, command("replay_then_hang.sh", hangRecording()));
    AgentOutcome outcome = run(new AgentConfig(c.command(), Duration.ofSeconds(2), Duration.ofSeconds(1), c.env(),
        c.resultFallback(), c.logMaxBytes(), c.outputTailChars(), AgentPreset.CLAUDE, List.of(), null));
    assertEquals(AgentOutcome.Ending.TIMED_OUT, outcome.ending());
    // one message (two events with one id) of 1200 fresh input tokens; no cost before a result
    assertEquals(new Usage(1200L, 1L, 300L, 50L, null), outcome.usage());
  }

  @Test
  void a_cancelled_agent_records_the_tokens_its_messages_reported() throws Exception {
    Path ready = dir.resolve("ready");
    RunningAgent running = runner.start(request(dir, preset(AgentPreset.CLAUDE,
        command("replay_then_hang.sh", hangRecording(), ready.toString()))));
    pids.add(running.pid());
    TestAgents.awaitFile(ready, Duration.ofSeconds(10));
    running.cancel();
    AgentOutcome outcome = running.await();
    assertEquals(AgentOutcome.Ending.CANCELLED, outcome.ending());
    assertEquals(new Usage(1200L, 1L, 300L, 50L, null), outcome.usage());
  }

  @Test
  void a_plain_command_keeps_the_stdout_tail_as_summary_and_reports_no_usage() throws Exception {
    AgentOutcome outcome = run(config(command("replay.sh", recording("codex-answer-only.jsonl"))));
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result());
    assertTrue(outcome.summary().contains("\"type\":\"turn.completed\""), outcome.summary());
    assertEquals(Usage.UNKNOWN, outcome.usage());
  }

  @Test
  void an_agent_quiet_for_the_stall_timeout_is_stopped_and_fails_as_stalled() throws Exception {
    Path pidFile = dir.resolve("pid");
    AgentConfig agent = ConfigWithers.withStallTimeout(config(command("quiet_after_hello.sh", pidFile.toString())),
        Duration.ofSeconds(1));
    AgentOutcome outcome = run(agent);
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals(AgentOutcome.Ending.STALLED, outcome.ending());
    assertTrue(outcome.context().startsWith("stalled: no output for 1s (agent.stall_timeout); terminated the agent"),
        outcome.context());
    assertTrue(TestAgents.becomesGone(TestAgents.readPid(pidFile), Duration.ofSeconds(10)), "the agent is stopped");
  }

  @Test
  void an_agent_that_keeps_writing_is_not_stalled_however_long_it_takes() throws Exception {
    AgentOutcome outcome = run(
        ConfigWithers.withStallTimeout(config(command("ticking.sh", "15")), Duration.ofSeconds(2)));
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    assertEquals("done", outcome.summary());
  }
}
