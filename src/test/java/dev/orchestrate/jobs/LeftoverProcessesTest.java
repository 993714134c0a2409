package dev.orchestrate.jobs;

import static dev.orchestrate.jobs.TestAgents.config;
import static dev.orchestrate.jobs.TestAgents.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.Ending;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.testing.CapturedLogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Whatever an agent started is stopped when its job ends, however it ends (issue 13.2). */
class LeftoverProcessesTest {
  /** Expected warnings (a job directory that already exists, a deferred integration) are asserted, not printed. */
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(JobDirectory.class);

  private static final Duration GONE = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  private final List<Long> pids = new ArrayList<>();

  @AfterEach
  void killLeftovers() throws IOException {
    pids.forEach(TestAgents::kill);
    Path pidFile = dir.resolve("pids");
    if (Files.exists(pidFile)) {
      pids(pidFile).forEach(TestAgents::kill);
    }
  }

  private Path script(String body) throws IOException {
    Path script = dir.resolve("agent.sh");
    Files.writeString(script, "#!/usr/bin/env bash\n" + body);
    return script;
  }

  /** 50 sleepers in the background, their pids in $DIR/pids, then {@code end}. */
  private AgentConfig fiftySleepers(String end) throws IOException {
    Path script = script("""
        for i in $(seq 50); do sleep 300 & echo $! >> "$1/pids"; done
        """ + end + "\n");
    return config(List.of("bash", script.toString(), dir.toString()));
  }

  private static List<Long> pids(Path file) throws IOException {
    return Files.readAllLines(file).stream().filter(l -> !l.isBlank()).map(l -> Long.parseLong(l.strip())).toList();
  }

  private AgentOutcome run(AgentRunner runner, AgentConfig agent) throws InterruptedException {
    RunningAgent running = runner.start(request(dir, agent));
    pids.add(running.pid());
    return running.await();
  }

  private void assertAllGone(Path pidFile, int expected) throws Exception {
    List<Long> started = pids(pidFile);
    assertEquals(expected, started.size());
    for (long pid : started) {
      assertTrue(TestAgents.becomesGone(pid, GONE), "pid " + pid + " is still running");
    }
  }

  private static AgentRunner runner() {
    return new AgentRunner(Clock.systemUTC());
  }

  @Test
  void fifty_background_sleepers_of_an_agent_that_exits_0_are_stopped_with_its_job() throws Exception {
    AgentOutcome outcome = run(runner(), fiftySleepers("echo started them; exit 0"));
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    assertEquals("started them", outcome.summary());
    assertAllGone(dir.resolve("pids"), 50);
  }

  @Test
  void the_sleepers_of_a_failing_agent_are_stopped_and_its_exit_code_kept() throws Exception {
    AgentOutcome outcome = run(runner(), fiftySleepers("echo broke >&2; exit 3"));
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals("agent exited with code 3\nbroke", outcome.context());
    assertAllGone(dir.resolve("pids"), 50);
  }

  @Test
  void the_sleepers_of_a_timed_out_agent_are_stopped() throws Exception {
    AgentConfig agent = TestAgents.withTimeout(fiftySleepers("touch \"$1/ready\"; sleep 300"),
        Duration.ofSeconds(2), Duration.ofMillis(500));
    AgentOutcome outcome = run(runner(), agent);
    assertEquals(Ending.TIMED_OUT, outcome.ending());
    assertAllGone(dir.resolve("pids"), 50);
  }

  @Test
  void a_double_forked_daemon_in_its_own_session_is_found_by_the_job_token_and_stopped() throws Exception {
    Path script = script("""
        # setsid + double fork: out of the agent's session and re-parented to init
        ( setsid bash -c 'trap "" TERM; sleep 300 & echo $! >> "$1/pids"; echo $$ >> "$1/pids"; wait' _ "$1" & ) \
          < /dev/null > /dev/null 2>&1
        for _ in $(seq 100); do [ "$(wc -l < "$1/pids" 2>/dev/null)" = 2 ] && break; sleep 0.05; done
        exit 0
        """);
    AgentConfig agent = TestAgents.withTimeout(config(List.of("bash", script.toString(), dir.toString())),
        Duration.ofSeconds(20), Duration.ofMillis(500));
    AgentOutcome outcome = run(runner(), agent);
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    assertAllGone(dir.resolve("pids"), 2);
  }

  @Test
  void cancelling_an_agent_also_stops_the_daemon_it_detached_from_its_tree() throws Exception {
    Path script = script("""
        ( sleep 300 & echo $! >> "$1/pids" ) # re-parented to init at once: not a descendant any more
        touch "$1/ready"
        while true; do sleep 1; done
        """);
    RunningAgent running = runner().start(request(dir, config(List.of("bash", script.toString(), dir.toString()))));
    pids.add(running.pid());
    TestAgents.awaitFile(dir.resolve("ready"), GONE);
    long daemon = pids(dir.resolve("pids")).get(0);
    assertFalse(ProcessHandle.of(running.pid()).orElseThrow().descendants().anyMatch(p -> p.pid() == daemon),
        "the sleeper left the agent's tree");

    running.cancel();
    AgentOutcome outcome = running.await();

    assertEquals(Ending.CANCELLED, outcome.ending());
    assertAllGone(dir.resolve("pids"), 1);
  }

  @Test
  void the_agent_leads_its_own_session_and_keeps_its_stdin_and_exit_code() throws Exception {
    Path report = dir.resolve("report");
    Path script = script("""
        read -r line
        echo "$$ $(cut -d" " -f6 /proc/$$/stat) $line" > "$1"
        exit 4
        """);
    AgentOutcome outcome = run(runner(), config(List.of("bash", script.toString(), report.toString())));
    String[] fields = Files.readString(report).strip().split(" ", 3);
    assertEquals(fields[0], fields[1], "session id == pid: the agent leads its session");
    assertEquals("Do the thing.", fields[2], "the prompt still arrives on stdin");
    assertEquals(java.util.OptionalInt.of(4), outcome.exitCode());
  }

  @Test
  void a_program_that_cannot_be_started_is_the_same_spawn_failure_with_or_without_setsid() throws Exception {
    Path notExecutable = dir.resolve("agent.sh");
    Files.writeString(notExecutable, "#!/usr/bin/env bash\nexit 0\n");
    AgentRunner noSetsid = new AgentRunner(Clock.systemUTC(), System.getenv(), SecretEnv.NONE, Optional.empty());
    for (List<String> command : List.of(List.of("./agent.sh"), List.of("no-such-agent-binary"),
        List.of("./missing.sh"))) {
      AgentOutcome viaSetsid = runner().start(request(dir, config(command))).await();
      AgentOutcome direct = noSetsid.start(request(dir, config(command))).await();
      assertEquals(Ending.SPAWN_FAILED, viaSetsid.ending(), viaSetsid.context());
      assertEquals(direct.context(), viaSetsid.context());
    }
  }

  @Test
  void without_setsid_leftovers_are_still_found_by_the_job_token() throws Exception {
    AgentRunner noSetsid = new AgentRunner(Clock.systemUTC(), System.getenv(), SecretEnv.NONE, Optional.empty());
    AgentOutcome outcome = run(noSetsid, fiftySleepers("exit 0"));
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    assertAllGone(dir.resolve("pids"), 50);
  }

  @Test
  void with_stop_leftover_processes_off_a_deliberate_service_keeps_running() throws Exception {
    AgentConfig agent = fiftySleepers("exit 0");
    agent = agent.withSafety(List.of(), false, false);
    AgentOutcome outcome = run(runner(), agent);
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    List<Long> started = pids(dir.resolve("pids"));
    assertEquals(50, started.size());
    assertFalse(TestAgents.isGone(started.get(0)), "the opt-out leaves what the agent started running");
  }
}
