package dev.orchestrate.jobs;

import static dev.orchestrate.jobs.TestAgents.command;
import static dev.orchestrate.jobs.TestAgents.config;
import static dev.orchestrate.jobs.TestAgents.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.Ending;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.testing.CapturedLogs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class AgentRunnerTest {
  /** Expected warnings (a job directory that already exists, a deferred integration) are asserted, not printed. */
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(JobDirectory.class);

  private static final Duration SHORT = Duration.ofSeconds(5);

  @TempDir
  Path dir;

  private final AgentRunner runner = new AgentRunner(Clock.systemUTC());
  private final List<Long> pids = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    pids.forEach(TestAgents::kill);
  }

  private AgentOutcome run(AgentConfig agent) throws InterruptedException {
    return start(request(dir, agent)).await();
  }

  private RunningAgent start(JobRequest request) {
    RunningAgent agent = runner.start(request);
    pids.add(agent.pid());
    return agent;
  }

  @Test
  void the_agent_gets_the_protocol_environment_and_the_prompt_on_stdin_and_in_a_file()
      throws Exception {
    Path report = dir.resolve("report.txt");
    AgentConfig agent = TestAgents.withEnv(
        config(command("report_env_and_prompt.sh", report.toString())),
        Map.of("AGENT_EXTRA", "from agent.env", "ORCHESTRATE_PHASE_OVERRIDE_CHECK", "yes"));
    String prompt = "# Task\nImplement it — carefully ✓ 𝄞\n";
    JobRequest request = new JobRequest("ITEM-7", "implement", 2, prompt, agent, dir,
        dir.resolve("job"));

    AgentOutcome outcome = start(request).await();

    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    assertEquals(String.join("\n",
        "item=ITEM-7",
        "phase=implement",
        "attempt=2",
        "result_file=" + request.resultFile(),
        "prompt_file=" + request.promptFile(),
        "extra=from agent.env",
        "overridden=yes",
        "path_inherited=yes",
        "pwd=" + dir,
        "--- stdin",
        prompt,
        "--- prompt file",
        prompt,
        ""), Files.readString(report, StandardCharsets.UTF_8));
  }

  @Test
  void exit_0_without_a_result_file_completes_the_phase_with_the_stdout_tail() throws Exception {
    AgentOutcome outcome = run(config(command("print_and_exit.sh", "0")));
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result());
    assertEquals("starting work\nwork done", outcome.summary());
    assertEquals(OptionalInt.of(0), outcome.exitCode());
    assertEquals(Ending.EXITED, outcome.ending());
  }

  @Test
  void a_non_zero_exit_without_a_result_file_fails_with_the_code_and_the_stderr_tail()
      throws Exception {
    AgentOutcome outcome = run(config(command("print_and_exit.sh", "3")));
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals("agent exited with code 3\nwarning: something on stderr\n"
        + "the real reason it failed", outcome.context());
    assertEquals(OptionalInt.of(3), outcome.exitCode());
  }

  @Test
  void strict_mode_fails_an_agent_that_exits_0_without_a_result_file() throws Exception {
    AgentOutcome outcome = run(TestAgents.withFallback(config(command("print_and_exit.sh", "0")),
        ResultFallback.STRICT));
    assertEquals(AgentResult.FAILED, outcome.result());
    assertTrue(outcome.context().startsWith(
        "agent wrote no result file (agent.result_fallback: strict); exit code 0"),
        outcome.context());
  }

  @Test
  void the_result_file_wins_over_a_failing_exit_code() throws Exception {
    String json = "{\"result\": \"blocked\", \"summary\": \"half done\", \"context\": \"need"
        + " the API key\", \"follow_ups\": [{\"title\": \"Get a key\"}]}";
    AgentOutcome outcome = run(config(command("write_result.sh", json, "7")));
    assertEquals(AgentResult.BLOCKED, outcome.result());
    assertEquals("half done", outcome.summary());
    assertEquals("need the API key", outcome.context());
    assertEquals(List.of(new AgentOutcome.FollowUp("Get a key", "")), outcome.followUps());
    assertEquals(OptionalInt.of(7), outcome.exitCode());
  }

  @Test
  void a_malformed_result_file_fails_the_attempt_with_the_parse_error() throws Exception {
    JobRequest request = request(dir, config(command("write_result.sh", "{\"result\": ", "0")));
    AgentOutcome outcome = start(request).await();
    assertEquals(AgentResult.FAILED, outcome.result());
    assertTrue(outcome.context().startsWith(
        "result file " + request.resultFile() + " is not valid JSON (line 1, column "),
        outcome.context());
  }

  @Test
  void a_stale_result_file_from_an_earlier_run_is_ignored() throws Exception {
    JobRequest request = request(dir, config(command("print_and_exit.sh", "1")));
    Files.createDirectories(request.jobDir());
    Files.writeString(request.resultFile(), "{\"result\": \"phase_complete\"}");
    AgentOutcome outcome = start(request).await();
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals(OptionalInt.of(1), outcome.exitCode());
  }

  @Test
  void a_missing_agent_binary_is_a_spawn_failure_not_an_exception() throws Exception {
    JobRequest request = request(dir, config(List.of("no-such-agent-binary", "--flag")));
    RunningAgent agent = runner.start(request);
    assertEquals(-1, agent.pid());
    assertFalse(agent.isAlive());
    AgentOutcome outcome = agent.await();
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals(Ending.SPAWN_FAILED, outcome.ending());
    assertEquals(OptionalInt.empty(), outcome.exitCode());
    String expected = "could not start agent 'no-such-agent-binary': No such file or directory"
        + " (working directory " + dir + ")";
    assertEquals(expected, outcome.context());
    assertEquals(expected + "\n", Files.readString(request.logFile()));
    agent.cancel();
  }

  @Test
  void a_missing_working_directory_is_named_in_the_spawn_failure() throws Exception {
    Path missing = dir.resolve("gone");
    JobRequest request = new JobRequest("ITEM-7", "implement", 1, "p",
        config(command("print_and_exit.sh", "0")), missing, dir.resolve("job"));
    AgentOutcome outcome = runner.start(request).await();
    assertEquals(Ending.SPAWN_FAILED, outcome.ending());
    assertEquals("could not start agent 'bash': working directory " + missing
        + " is not a directory", outcome.context());
  }

  @Test
  void an_incomplete_agent_config_is_refused_before_anything_is_spawned() {
    Path marker = dir.resolve("spawned");
    AgentConfig noTimeout = new AgentConfig(List.of("touch", marker.toString()), null,
        Duration.ofSeconds(1), Map.of(), ResultFallback.EXIT_CODE, 1024, 100);
    assertThrows(IllegalArgumentException.class, () -> runner.start(request(dir, noTimeout)));
    assertFalse(Files.exists(marker));
  }

  @Test
  void an_agent_that_never_reads_its_large_prompt_is_not_an_error() throws Exception {
    JobRequest request = new JobRequest("ITEM-7", "implement", 1, "p".repeat(2_000_000),
        config(command("ignore_stdin.sh")), dir, dir.resolve("job"));
    AgentOutcome outcome = start(request).await();
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    assertEquals("did not read stdin", outcome.summary());
  }

  @Test
  void timeout_kills_the_agent_and_its_grandchild_that_ignores_term() throws Exception {
    Path pidFile = dir.resolve("grandchild.pid");
    AgentConfig agent = TestAgents.withTimeout(
        config(command("stubborn_with_grandchild.sh", pidFile.toString())),
        Duration.ofSeconds(1), Duration.ofMillis(300));

    RunningAgent running = start(request(dir, agent));
    TestAgents.awaitFile(pidFile, SHORT);
    long grandchild = TestAgents.readPid(pidFile);
    pids.add(grandchild);
    AgentOutcome outcome = running.await();

    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals(Ending.TIMED_OUT, outcome.ending());
    assertEquals(OptionalInt.empty(), outcome.exitCode());
    assertTrue(outcome.context().startsWith("timed out after 1s; terminated the agent and "),
        outcome.context());
    assertTrue(TestAgents.becomesGone(running.pid(), Duration.ofMillis(500)), "agent is gone");
    assertTrue(TestAgents.becomesGone(grandchild, Duration.ofMillis(500)), "grandchild is gone");
    assertFalse(running.isAlive());
  }

  @Test
  void cancel_terminates_the_agent_and_reports_cancelled() throws Exception {
    Path ready = dir.resolve("ready");
    RunningAgent running = start(request(dir, config(command("sleeper.sh", ready.toString()))));
    TestAgents.awaitFile(ready, SHORT);
    assertTrue(running.isAlive());

    running.cancel();
    AgentOutcome outcome = running.await();

    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals(Ending.CANCELLED, outcome.ending());
    assertEquals("cancelled", outcome.context());
    assertTrue(TestAgents.becomesGone(running.pid(), Duration.ofMillis(500)));
    running.cancel();
    assertSame(outcome, running.await(), "await answers the same outcome every time");
  }

  @Test
  void a_second_cancel_during_the_grace_period_kills_at_once() throws Exception {
    Path ready = dir.resolve("ready");
    AgentConfig agent = TestAgents.withTimeout(config(command("stubborn.sh", ready.toString())),
        Duration.ofSeconds(20), Duration.ofSeconds(30));
    RunningAgent running = start(request(dir, agent));
    TestAgents.awaitFile(ready, SHORT);

    long start = System.nanoTime();
    running.cancel();
    Thread.sleep(200);
    assertTrue(running.isAlive(), "TERM is ignored, so the grace period is running");
    running.cancel();
    AgentOutcome outcome = running.await();
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertEquals(Ending.CANCELLED, outcome.ending());
    assertTrue(took.compareTo(Duration.ofSeconds(3)) < 0, "did not wait the 30s grace: " + took);
    assertTrue(TestAgents.becomesGone(running.pid(), Duration.ofMillis(500)));
  }

  @Test
  void await_from_several_threads_gets_the_same_outcome() throws Exception {
    Path ready = dir.resolve("ready");
    RunningAgent running = start(request(dir, config(command("sleeper.sh", ready.toString()))));
    AgentOutcome[] seen = new AgentOutcome[2];
    Thread other = new Thread(() -> {
      try {
        seen[0] = running.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    other.start();
    TestAgents.awaitFile(ready, SHORT);
    running.cancel();
    seen[1] = running.await();
    other.join(SHORT.toMillis());
    assertSame(seen[1], seen[0]);
  }

  @Test
  void an_agent_that_leaves_a_child_holding_its_output_still_finishes() throws Exception {
    Path pidFile = dir.resolve("child.pid");
    RunningAgent running = start(request(dir,
        config(command("leave_child_holding_output.sh", pidFile.toString()))));
    long start = System.nanoTime();
    AgentOutcome outcome = running.await();
    pids.add(TestAgents.readPid(pidFile));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result());
    assertEquals("finished, but my child still holds the pipe", outcome.summary());
    assertTrue(took.compareTo(AgentSupervisor.READER_WAIT.plusSeconds(2)) < 0, "took " + took);
  }

  @Test
  void a_flood_of_output_is_capped_in_the_log_and_in_memory() throws Exception {
    long logMax = 1024 * 1024;
    int tailChars = 2000;
    long flood = 200_000_000;
    AgentConfig agent = TestAgents.withOutputLimits(
        config(command("flood.sh", Long.toString(flood))), logMax, tailChars);
    JobRequest request = request(dir, agent);
    long heapBefore = usedHeapAfterGc();

    AgentOutcome outcome = start(request).await();

    long heapGrowth = usedHeapAfterGc() - heapBefore;
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    // the summary is the output in the size-cap form: its beginning and end around the marker
    java.util.regex.Matcher summary = java.util.regex.Pattern
        .compile("(x+)…\\[truncated (\\d+) chars sha256:[0-9a-f]{16}](x+)").matcher(outcome.summary());
    assertTrue(summary.matches(), () -> outcome.summary().substring(0, 100));
    assertTrue(outcome.summary().length() <= tailChars);
    assertEquals(flood, summary.group(1).length() + Long.parseLong(summary.group(2)) + summary.group(3).length());
    assertEquals(1, outcome.truncatedValues());
    long logSize = Files.size(request.logFile());
    assertTrue(logSize <= logMax + 64 * 1024, "log has " + logSize + " bytes");
    String log = Files.readString(request.logFile());
    String marker = "\n…[" + (flood - logMax)
        + " bytes omitted: output exceeded the log limit of " + logMax + " bytes]\n";
    assertTrue(log.endsWith(marker + "x".repeat(tailChars)), () -> "log ends with "
        + log.substring(Math.max(0, log.length() - 200)));
    assertTrue(heapGrowth < 50L * 1024 * 1024, "heap grew by " + heapGrowth + " bytes");
  }

  @Test
  void multi_byte_output_is_not_cut_mid_character_in_the_summary() throws Exception {
    AgentOutcome outcome = run(TestAgents.withOutputLimits(config(command("print_multibyte.sh")),
        1024 * 1024, 101));
    String summary = outcome.summary();
    assertFalse(summary.contains("\uFFFD"), summary);
    assertTrue(summary.length() == 101 || summary.length() == 100, "length " + summary.length());
    assertTrue(summary.endsWith("é€𝄞"));
    assertFalse(Character.isLowSurrogate(summary.charAt(0)));
  }

  @Test
  void elapsed_time_comes_from_the_injected_clock() throws Exception {
    Clock clock = new SteppingClock(Instant.parse("2030-01-01T00:00:00Z"), Duration.ofMinutes(5));
    AgentRunner runner = new AgentRunner(clock);
    AgentOutcome outcome = runner.start(request(dir, config(command("print_and_exit.sh", "0"))))
        .await();
    assertEquals(Duration.ofMinutes(5), outcome.elapsed());
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    Runtime runtime = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(20);
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /** A clock that moves forward by a fixed step each time it is read. */
  private static final class SteppingClock extends Clock {
    private Instant now;
    private final Duration step;

    SteppingClock(Instant start, Duration step) {
      this.now = start;
      this.step = step;
    }

    @Override
    public synchronized Instant instant() {
      Instant current = now;
      now = now.plus(step);
      return current;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }
}
