package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AcpConfig;
import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.Usage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agent.preset: acp}: orchestrate as the ACP client of a scripted agent that runs as its own
 * process ({@link ScriptedAcpAgent}): the conversation, the log, permissions, the stops and every
 * way the agent can fail.
 */
class AcpAgentRunnerTest {
  @TempDir
  Path dir;

  private final AgentRunner runner = new AgentRunner(Clock.systemUTC());
  private final List<Long> pids = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    pids.forEach(TestAgents::kill);
  }

  private Path record() {
    return dir.resolve("record.jsonl");
  }

  private AgentConfig acp(String scenario, Duration timeout, AcpConfig permissions) {
    return new AgentConfig(ScriptedAcpAgent.command(scenario), timeout, Duration.ofSeconds(1),
        Map.of("ACP_RECORD", record().toString()), ResultFallback.EXIT_CODE, 1024 * 1024, 2000, AgentPreset.ACP,
        List.of(), null).withAcp(permissions);
  }

  private AgentConfig acp(String scenario) {
    return acp(scenario, Duration.ofSeconds(25), AcpConfig.DEFAULT);
  }

  private JobRequest job(AgentConfig agent, String phase) {
    return new JobRequest("ITEM-7", phase, 1, "Do the " + phase + " phase.\n", agent, work(),
        dir.resolve("jobs/ITEM-7-" + phase + "-1"), null);
  }

  private Path work() {
    try {
      return Files.createDirectories(dir.resolve("work"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private AgentOutcome run(JobRequest request) throws InterruptedException {
    RunningAgent running = runner.start(request);
    pids.add(running.pid());
    return running.await();
  }

  private String recorded() throws Exception {
    return Files.exists(record()) ? Files.readString(record()) : "";
  }

  @Test
  void two_phases_run_to_done_each_in_its_own_session_with_the_prompt_the_log_and_the_usage() throws Exception {
    for (String phase : List.of("design", "build")) {
      JobRequest request = job(acp("done"), phase);
      long started = System.nanoTime();
      AgentOutcome outcome = run(request);
      assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
      assertEquals("scripted " + phase + " in work", outcome.summary());
      assertEquals(new AgentSession("sess-1", AgentSession.Start.FRESH), outcome.session());
      assertEquals("Working on " + phase + ".\nStill working.\nDone.", outcome.answer());
      // tokens of the turn, thoughts counted as output; the cost the agent reported for the session
      assertEquals(new Usage(1200L, 35L, 300L, 50L, 0.25), outcome.usage());
      assertTrue(TestAgents.isGone(pids.get(pids.size() - 1)), "the agent, serving on after its turn, was stopped");
      assertTrue(Duration.ofNanos(System.nanoTime() - started).toSeconds() < 20, "not left to its timeout");
      String log = Files.readString(request.logFile());
      assertTrue(log.contains("Working on " + phase + ".\nStill working.\n(thinking) hmm\nplan:\n"
          + "  [in_progress] write the result\n→ Write the result file [edit] (pending)\n"
          + "← Write the result file: completed\nDone.\n[turn ended: end_turn]\n"), log);
      assertFalse(log.contains("jsonrpc"), "readable lines, not the protocol: " + log);
    }
    String sent = recorded();
    assertTrue(sent.contains("\"method\":\"initialize\",\"params\":{\"protocolVersion\":1,\"clientCapabilities\":"
        + "{\"fs\":{\"readTextFile\":false,\"writeTextFile\":false},\"terminal\":false}"), sent);
    assertTrue(sent.contains("\"method\":\"session/new\",\"params\":{\"cwd\":\"" + work() + "\",\"mcpServers\":[]}"),
        sent);
    assertTrue(sent.contains("\"prompt\":[{\"type\":\"text\",\"text\":\"Do the build phase.\\n\"}]"), sent);
  }

  @Test
  void a_permission_for_a_path_outside_the_worktree_is_rejected_and_one_inside_allowed() throws Exception {
    JobRequest request = job(acp("permissions"), "build");
    AgentOutcome outcome = run(request);
    assertEquals("outside=no inside=yes relative=no", outcome.summary(), outcome.context());
    String log = Files.readString(request.logFile());
    assertTrue(log.contains("[permission rejected: Write /etc/orchestrate-test (path outside the working directory: "
        + "/etc/orchestrate-test)]"), log);
    assertTrue(log.contains("[permission allowed: Edit notes.txt (every path is inside the working directory)]"),
        log);
  }

  @Test
  void the_other_policies_deny_allow_or_allow_by_kind() throws Exception {
    assertEquals("outside=no inside=no relative=no",
        run(job(acp("permissions", Duration.ofSeconds(25), new AcpConfig(AcpConfig.Permissions.DENY, Set.of())),
            "a")).summary());
    assertEquals("outside=yes inside=yes relative=yes",
        run(job(acp("permissions", Duration.ofSeconds(25), new AcpConfig(AcpConfig.Permissions.ALLOW, Set.of())),
            "b")).summary());
    assertEquals("outside=yes inside=yes relative=yes",
        run(job(acp("permissions", Duration.ofSeconds(25), AcpConfig.kinds(Set.of("edit"))), "c")).summary());
    assertEquals("outside=no inside=no relative=no",
        run(job(acp("permissions", Duration.ofSeconds(25), AcpConfig.kinds(Set.of("read"))), "d")).summary());
  }

  @Test
  void a_timeout_sends_session_cancel_then_ends_the_agent_after_the_grace() throws Exception {
    JobRequest request = job(acp("hang", Duration.ofSeconds(4), AcpConfig.DEFAULT), "build");
    AgentOutcome outcome = run(request);
    assertEquals(AgentOutcome.Ending.TIMED_OUT, outcome.ending());
    assertTrue(outcome.context().startsWith("timed out after 4s; terminated the agent"), outcome.context());
    assertTrue(TestAgents.isGone(pids.get(0)));
    String sent = recorded();
    assertTrue(sent.contains("{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"sess-1\"}}"
        + "\ncancel received\n"), sent);
    assertTrue(Files.readString(request.logFile()).contains("[orchestrate sent session/cancel]"));
  }

  @Test
  void a_stop_sends_session_cancel_too() throws Exception {
    RunningAgent running = runner.start(job(acp("hang"), "build"));
    pids.add(running.pid());
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!recorded().contains("session/prompt") && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    running.cancel();
    AgentOutcome outcome = running.await();
    assertEquals(AgentOutcome.Ending.CANCELLED, outcome.ending());
    assertTrue(recorded().contains("cancel received"), recorded());
    assertTrue(TestAgents.isGone(pids.get(0)));
  }

  @Test
  void a_json_rpc_error_fails_the_attempt_with_the_agents_message_and_classifies_it() throws Exception {
    AgentOutcome outcome = run(job(acp("rpc-error"), "build"));
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals("the agent reported an error: session/prompt failed: Internal error (-32603): API Error: 500 the "
        + "model broke", outcome.context());
  }

  @Test
  void a_refusal_fails_the_attempt() throws Exception {
    AgentOutcome outcome = run(job(acp("refusal"), "build"));
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals("the agent reported an error: the agent refused to go on (stopReason refusal)", outcome.context());
  }

  @Test
  void an_agent_that_exits_before_it_answers_fails_the_attempt_with_its_exit_code() throws Exception {
    AgentOutcome early = run(job(acp("exit-early"), "a"));
    assertEquals(AgentResult.FAILED, early.result());
    assertTrue(early.context().startsWith("the agent reported an error (exit code 3): the agent closed its output "
        + "before it answered session/new"), early.context());
    AgentOutcome inTurn = run(job(acp("exit-in-turn"), "b"));
    assertTrue(inTurn.context().startsWith("the agent reported an error (exit code 4): the agent closed its output "
        + "before it answered session/prompt"), inTurn.context());
  }

  @Test
  void output_that_is_not_the_protocol_fails_the_turn_at_once_and_an_oversized_line_is_skipped() throws Exception {
    long started = System.nanoTime();
    JobRequest garbage = job(acp("garbage"), "a");
    AgentOutcome outcome = run(garbage);
    assertEquals(AgentResult.FAILED, outcome.result());
    assertTrue(outcome.context().startsWith("the agent reported an error: the agent's output is not the Agent "
        + "Client Protocol: more than 100 lines"), outcome.context());
    assertTrue(Duration.ofNanos(System.nanoTime() - started).toSeconds() < 30, "not left to its timeout");
    String log = Files.readString(garbage.logFile());
    assertTrue(log.contains("[not ACP: a line that is not JSON: this is not json 0]"), log);
    assertFalse(log.contains("this is not json 10"), "only the first lines are quoted");

    JobRequest big = job(acp("oversized"), "b");
    AgentOutcome survived = run(big);
    assertEquals(AgentResult.PHASE_COMPLETE, survived.result(), survived.context());
    assertTrue(Files.readString(big.logFile()).contains("[not ACP: a line longer than 2 MiB]"));
  }

  @Test
  void resume_loads_the_session_when_the_agent_can_and_starts_afresh_when_it_cannot() throws Exception {
    AgentConfig agent = acp("done").withResume(true);
    JobRequest resume = new JobRequest("ITEM-7", "build", 2, "SHORT\n", agent, work(), dir.resolve("jobs/r"), null,
        new JobRequest.Steps(List.of(), "sess-9", "FULL\n", List.of()));
    AgentOutcome outcome = run(resume);
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result(), outcome.context());
    assertEquals(new AgentSession("sess-9", AgentSession.Start.RESUMED), outcome.session());
    String sent = recorded();
    assertTrue(sent.contains("\"method\":\"session/load\",\"params\":{\"sessionId\":\"sess-9\",\"cwd\":"), sent);
    assertTrue(sent.contains("\"text\":\"SHORT\\n\""), sent);
    assertTrue(Files.readString(resume.logFile()).contains("[loaded session sess-9: 1 earlier updates not shown]"));
    assertFalse(Files.readString(resume.logFile()).contains("an old message"));

    Files.delete(record());
    JobRequest cannot = new JobRequest("ITEM-7", "build", 3, "SHORT\n", acp("noload").withResume(true), work(),
        dir.resolve("jobs/n"), null, new JobRequest.Steps(List.of(), "sess-9", "FULL\n", List.of()));
    AgentOutcome fresh = run(cannot);
    assertEquals(AgentResult.PHASE_COMPLETE, fresh.result(), fresh.context());
    assertEquals(new AgentSession("sess-1", AgentSession.Start.RESUME_FAILED), fresh.session());
    assertFalse(recorded().contains("session/load"), recorded());
    assertTrue(recorded().contains("\"text\":\"FULL\\n\""), recorded());
  }
}
