package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.testing.CapturedLogs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs with steps around the agent (issue 29), with real processes: the worktree's set-up before
 * it, the phase's gates after it, and a resumed session with its fallback to a fresh start.
 */
class VerifiedJobTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(JobDirectory.class);

  private static final Duration LONG = Duration.ofMinutes(1);

  @TempDir
  Path dir;

  private final List<Long> pids = new ArrayList<>();

  @AfterEach
  void killLeftovers() throws Exception {
    pids.forEach(TestAgents::kill);
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".pid")).toList()) {
        TestAgents.kill(TestAgents.readPid(f));
      }
    }
  }

  private Path script(String name, String body) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, "#!/bin/sh\n" + body);
    return file;
  }

  /** An agent that says it is done (exit 0, no result file), and leaves a mark that it ran. */
  private AgentConfig succeedingAgent() throws Exception {
    return TestAgents.config(List.of("/bin/sh", script("agent.sh", "echo ran > \"$0.ran\"\necho agent done\n")
        .toString()));
  }

  private AgentOutcome run(JobRequest request) throws InterruptedException {
    return start(new AgentRunner(Clock.systemUTC()), request).await();
  }

  private RunningAgent start(AgentRunner runner, JobRequest request) {
    RunningAgent running = runner.start(request);
    pids.add(running.pid());
    return running;
  }

  private JobRequest request(AgentConfig agent, JobRequest.Steps steps) {
    return new JobRequest("ITEM-7", "build", 1, "Do the thing.\n", agent, dir, dir.resolve("job"), null, steps);
  }

  private static JobRequest.Steps gates(ProjectCommand... gates) {
    return new JobRequest.Steps(List.of(), null, null, List.of(gates));
  }

  private static ProjectCommand sh(String name, String text) {
    return ProjectCommand.shell(name, text, LONG);
  }

  // --- gates ---

  @Test
  void a_passing_gate_keeps_the_success_and_is_recorded_with_its_log() throws Exception {
    AgentOutcome outcome = run(request(succeedingAgent(), gates(sh("tests", "echo 3 passed; echo note >&2"))));

    assertEquals(OutcomeClass.SUCCEEDED, outcome.kind(), outcome.context());
    assertEquals(AgentResult.PHASE_COMPLETE, outcome.result());
    assertEquals(1, outcome.checks().size());
    CommandRun gate = outcome.checks().get(0);
    assertEquals(CommandRun.Kind.GATE, gate.kind());
    assertEquals("tests", gate.name());
    assertEquals(0, gate.exitCode());
    assertEquals(CommandRun.Ending.PASSED, gate.ending());
    assertEquals(dir.resolve("job/gate-tests.log"), gate.log());
    // stdout and stderr are drained side by side: their lines may interleave either way in the log
    assertEquals(List.of("3 passed", "note"), Files.readAllLines(gate.log()).stream().sorted().toList());
    assertEquals("3 passed\nnote", gate.tail());
    assertEquals(List.of(gate), gates(outcome));
  }

  @Test
  void the_first_red_gate_fails_the_attempt_as_verify_failed_and_later_gates_do_not_run() throws Exception {
    AgentOutcome outcome = run(request(succeedingAgent(), gates(sh("lint", "true"),
        sh("tests", "echo 'FAIL: test_add expected 4 got 5'; exit 3"), sh("types", "echo never > never.txt"))));

    assertEquals(OutcomeClass.VERIFY_FAILED, outcome.kind());
    assertEquals(AgentResult.FAILED, outcome.result());
    assertEquals(OutcomeClass.VERIFY_FAILED, outcome.verdict());
    assertEquals(List.of("lint", "tests"), outcome.checks().stream().map(CommandRun::name).toList());
    CommandRun red = outcome.checks().get(1);
    assertEquals(3, red.exitCode());
    assertEquals(CommandRun.Ending.FAILED, red.ending());
    assertEquals("FAIL: test_add expected 4 got 5\n", Files.readString(dir.resolve("job/gate-tests.log")));
    assertFalse(Files.exists(dir.resolve("never.txt")));
    assertFalse(Files.exists(dir.resolve("job/gate-types.log")));
    assertTrue(outcome.context().matches("(?s)You reported the phase complete, but orchestrate's verify gate 'tests' "
        + "failed \\(exit 3\\) after \\d+\\.\\ds \\(gate 2 of 3, run in your worktree\\)\\. Fix what it reports; "
        + "the gates run again after your next report\\.\n\nThe end of its output:\n~~~~\n"
        + "FAIL: test_add expected 4 got 5\n~~~~"), outcome.context());
  }

  @Test
  void gates_do_not_run_when_the_agent_failed() throws Exception {
    AgentConfig agent = TestAgents.config(List.of("/bin/sh", "-c", "echo broke >&2; exit 1"));
    AgentOutcome outcome = run(request(agent, gates(sh("tests", "echo ran > gate-ran.txt"))));

    assertEquals(OutcomeClass.FAILED, outcome.kind());
    assertEquals(List.of(), outcome.checks());
    assertFalse(Files.exists(dir.resolve("gate-ran.txt")));
  }

  @Test
  void a_gate_runs_in_the_work_directory_with_the_protocol_environment_and_no_stdin() throws Exception {
    AgentOutcome outcome = run(request(succeedingAgent(), gates(sh("env",
        "pwd; echo \"item=$ORCHESTRATE_ITEM_ID phase=$ORCHESTRATE_PHASE\"; cat; echo \"stdin ended\""))));

    assertEquals(OutcomeClass.SUCCEEDED, outcome.kind(), outcome.context());
    assertEquals(dir + "\nitem=ITEM-7 phase=build\nstdin ended\n", Files.readString(dir.resolve("job/gate-env.log")));
  }

  @Test
  void a_gate_past_its_timeout_is_stopped_with_its_whole_process_tree() throws Exception {
    Path childPid = dir.resolve("child.pid");
    ProjectCommand hang = ProjectCommand.shell("hang",
        "sleep 300 & echo $! > " + childPid + "; echo waiting; wait", Duration.ofMillis(800));

    long started = System.nanoTime();
    AgentOutcome outcome = run(request(succeedingAgent(), gates(hang)));
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    CommandRun gate = outcome.checks().get(0);
    assertEquals(CommandRun.Ending.TIMED_OUT, gate.ending());
    assertNull(gate.exitCode());
    assertEquals(OutcomeClass.VERIFY_FAILED, outcome.kind());
    assertTrue(outcome.context().contains("verify gate 'hang' timed out after "), outcome.context());
    assertEquals("waiting", gate.tail());
    assertTrue(took.compareTo(Duration.ofSeconds(15)) < 0, "took " + took);
    assertTrue(TestAgents.becomesGone(TestAgents.readPid(childPid), Duration.ofSeconds(5)),
        "the gate's child sleep is still running");
  }

  @Test
  void a_gate_whose_program_does_not_exist_could_not_start() throws Exception {
    ProjectCommand missing = new ProjectCommand("tests", List.of("/no/such/program", "--all"),
        "/no/such/program --all", LONG);
    ProjectCommand notOnPath = new ProjectCommand("lint", List.of("no-such-program-o29"), "no-such-program-o29",
        LONG);

    AgentOutcome outcome = run(request(succeedingAgent(), gates(missing)));
    CommandRun gate = outcome.checks().get(0);
    assertEquals(CommandRun.Ending.SPAWN_FAILED, gate.ending());
    assertNull(gate.exitCode());
    assertEquals("could not start 'tests' (/no/such/program --all): No such file or directory", gate.tail());
    assertEquals(gate.tail() + "\n", Files.readString(dir.resolve("job/gate-tests.log")));
    assertEquals(OutcomeClass.VERIFY_FAILED, outcome.kind());
    assertTrue(outcome.context().contains("verify gate 'tests' could not start after "), outcome.context());

    AgentOutcome second = new AgentRunner(Clock.systemUTC()).start(new JobRequest("ITEM-7", "build", 2,
        "Do the thing.\n", succeedingAgent(), dir, dir.resolve("job2"), null, gates(notOnPath))).await();
    assertEquals(CommandRun.Ending.SPAWN_FAILED, second.checks().get(0).ending());
    assertTrue(second.checks().get(0).tail().startsWith("could not start 'lint' (no-such-program-o29): "),
        second.checks().get(0).tail());
  }

  @Test
  void control_characters_in_a_gates_output_are_escaped_in_its_tail() throws Exception {
    AgentOutcome outcome = run(request(succeedingAgent(),
        gates(sh("tests", "printf 'red \\033[31mX\\033[0m\\tcol\\rback\\001\\n'; exit 1"))));

    CommandRun gate = outcome.checks().get(0);
    assertEquals("red \\x1b[31mX\\x1b[0m\tcol\\rback\\x01", gate.tail());
    assertTrue(outcome.context().contains("red \\x1b[31mX\\x1b[0m\tcol\\rback\\x01"), outcome.context());
    // the log keeps the bytes as printed
    assertEquals("red \033[31mX\033[0m\tcol\rback\001\n", Files.readString(gate.log()));
  }

  @Test
  void a_secret_is_masked_in_a_gates_tail_log_and_the_failure_it_feeds_back() throws Exception {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("DEPLOY_CREDENTIAL", "hunter2-very-secret");
    AgentRunner runner = new AgentRunner(Clock.systemUTC(), env, SecretEnv.NONE);
    AgentConfig agent = succeedingAgent().withSafety(List.of("DEPLOY_CREDENTIAL"), true, false);

    AgentOutcome outcome = start(runner, request(agent, gates(sh("deploy",
        "echo \"using $DEPLOY_CREDENTIAL\"; echo \"bad $DEPLOY_CREDENTIAL\" >&2; exit 1")))).await();

    CommandRun gate = outcome.checks().get(0);
    assertEquals("using ***\nbad ***", gate.tail());
    assertFalse(Files.readString(gate.log()).contains("hunter2"), Files.readString(gate.log()));
    assertTrue(Files.readString(gate.log()).contains("using ***\n"), Files.readString(gate.log()));
    assertFalse(outcome.context().contains("hunter2"), outcome.context());
  }

  @Test
  void cancelling_a_job_during_a_gate_stops_the_gate_and_ends_the_job_cancelled() throws Exception {
    Path started = dir.resolve("gate.pid");
    AgentRunner runner = new AgentRunner(Clock.systemUTC());
    RunningAgent running = start(runner, request(succeedingAgent(),
        gates(sh("slow", "sleep 300 & echo $! > " + started + "; wait"), sh("after", "echo no > after.txt"))));
    TestAgents.awaitFile(started, Duration.ofSeconds(20));
    Thread.sleep(100);
    running.cancel();
    AgentOutcome outcome = running.await();

    assertEquals(OutcomeClass.CANCELLED, outcome.kind());
    assertEquals(1, outcome.checks().size());
    assertEquals(CommandRun.Ending.CANCELLED, outcome.checks().get(0).ending());
    assertFalse(Files.exists(dir.resolve("after.txt")));
    assertTrue(TestAgents.becomesGone(TestAgents.readPid(started), Duration.ofSeconds(5)));
  }

  @Test
  void a_gate_printing_fifty_megabytes_is_capped_in_its_log_and_its_tail() throws Exception {
    AgentConfig agent = TestAgents.withOutputLimits(succeedingAgent(), 256 * 1024, 2000);
    AgentOutcome outcome = run(request(agent, gates(
        sh("flood", "head -c 50000000 /dev/zero | tr '\\0' x; echo; echo LAST LINE; exit 1"),
        sh("never", "true"))));

    CommandRun gate = outcome.checks().get(0);
    assertEquals(CommandRun.Ending.FAILED, gate.ending());
    long size = Files.size(gate.log());
    assertTrue(size <= 256 * 1024 + CappedLog.CLOSING_ROOM, "log of " + size + " bytes");
    assertTrue(size >= 256 * 1024, "log of " + size + " bytes");
    String log = Files.readString(gate.log());
    assertTrue(log.contains("…["), "no omission marker");
    assertTrue(log.endsWith("LAST LINE\n"), log.substring(log.length() - 200));
    assertTrue(gate.tail().length() <= CommandRun.TAIL_MAX_CHARS, "tail of " + gate.tail().length());
    assertTrue(gate.tail().endsWith("x\nLAST LINE"), gate.tail().substring(gate.tail().length() - 50));
    assertTrue(outcome.context().length() <= AgentOutcome.TEXT_MAX_CHARS, "context of " + outcome.context().length());
    assertTrue(outcome.context().contains("LAST LINE"), "the end of the output reaches the next prompt");
  }

  @Test
  void an_agent_that_times_out_in_a_job_with_gates_runs_no_gate() throws Exception {
    AgentConfig agent = TestAgents.withTimeout(TestAgents.config(List.of("/bin/sh", "-c", "sleep 300")),
        Duration.ofMillis(500), Duration.ofMillis(200));
    AgentOutcome outcome = run(request(agent, gates(sh("tests", "echo ran > gate-ran.txt"))));

    assertEquals(OutcomeClass.TIMED_OUT, outcome.kind());
    assertEquals(List.of(), outcome.checks());
    assertFalse(Files.exists(dir.resolve("gate-ran.txt")));
  }

  // --- set-up ---

  @Test
  void a_failed_set_up_blocks_the_job_before_the_agent_runs() throws Exception {
    JobRequest.Steps steps = new JobRequest.Steps(List.of(sh("prepare", "echo prepared"),
        sh("deps", "echo 'npm ERR! missing lockfile' >&2; exit 2"), sh("later", "echo no > later.txt")),
        null, null, List.of(sh("tests", "echo no > gate.txt")));

    AgentOutcome outcome = run(request(succeedingAgent(), steps));

    assertEquals(AgentResult.BLOCKED, outcome.result());
    assertEquals(OutcomeClass.BLOCKED, outcome.kind());
    assertEquals(List.of("prepare", "deps"), outcome.checks().stream().map(CommandRun::name).toList());
    assertTrue(outcome.checks().stream().allMatch(c -> c.kind() == CommandRun.Kind.SETUP));
    assertEquals(2, outcome.checks().get(1).exitCode());
    assertEquals("prepared\n", Files.readString(dir.resolve("job/setup-prepare.log")));
    assertEquals("npm ERR! missing lockfile\n", Files.readString(dir.resolve("job/setup-deps.log")));
    assertFalse(Files.exists(dir.resolve("agent.sh.ran")), "the agent ran");
    assertFalse(Files.exists(dir.resolve("later.txt")));
    assertFalse(Files.exists(dir.resolve("gate.txt")));
    assertTrue(outcome.context().matches("(?s)workspace\\.setup 'deps' failed \\(exit 2\\) after \\d+\\.\\ds "
        + java.util.regex.Pattern.quote("(echo 'npm ERR! missing lockfile' >&2; exit 2)") + " in the "
        + "new worktree, so no agent ran \\(log: " + java.util.regex.Pattern.quote(dir.resolve("job/setup-deps.log")
            .toString())
        + "\\); fix the command or the project, then unblock the item\\. The end of its output:\n"
        + "npm ERR! missing lockfile"), outcome.context());
  }

  @Test
  void a_passing_set_up_runs_before_the_agent_and_is_recorded_with_the_gates() throws Exception {
    JobRequest.Steps steps = new JobRequest.Steps(List.of(sh("deps", "echo installed > deps.txt")), null, null,
        List.of(sh("tests", "test -f deps.txt && test -f agent.sh.ran")));

    AgentOutcome outcome = run(request(succeedingAgent(), steps));

    assertEquals(OutcomeClass.SUCCEEDED, outcome.kind(), outcome.context());
    assertEquals(List.of("setup:deps:passed", "gate:tests:passed"), outcome.checks().stream()
        .map(c -> c.kind().key() + ":" + c.name() + ":" + c.ending().key()).toList());
    assertEquals(outcome.checks().subList(1, 2), gates(outcome));
  }

  // --- resume ---

  /**
   * A fake Claude Code: records its argv and stdin per call; with {@code --resume known-1} it
   * continues that session, with any other id it says what Claude Code says and exits 1; without
   * {@code --resume} it starts session fresh-2.
   */
  private AgentConfig fakeClaude() throws Exception {
    Path fake = script("claude.sh", """
        n=$(ls "$(dirname "$0")"/call-*.argv 2>/dev/null | wc -l)
        n=$((n + 1))
        printf '%s\\n' "$@" > "$(dirname "$0")/call-$n.argv"
        cat > "$(dirname "$0")/call-$n.stdin"
        resume=""
        while [ $# -gt 0 ]; do
          if [ "$1" = "--resume" ]; then resume="$2"; fi
          shift
        done
        if [ -n "$resume" ] && [ "$resume" != "known-1" ]; then
          echo "No conversation found with session ID: $resume" >&2
          exit 1
        fi
        id=${resume:-fresh-2}
        echo '{"type":"system","subtype":"init","cwd":"/w","session_id":"'$id'","tools":[]}'
        echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"'$id'",\
        "total_cost_usd":0.01,"usage":{"input_tokens":10,"output_tokens":2}}'
        """);
    AgentConfig c = TestAgents.config(List.of("/bin/sh", fake.toString(), "-p", "--output-format", "stream-json"));
    return new AgentConfig(c.command(), c.timeout(), c.killGrace(), c.env(), ResultFallback.EXIT_CODE,
        c.logMaxBytes(), c.outputTailChars(), AgentPreset.CLAUDE, List.of(), null).withResume(true);
  }

  private JobRequest resumeRequest(AgentConfig agent, String session) {
    return new JobRequest("ITEM-7", "build", 2, "SHORT: fix the red test.\n", agent, dir, dir.resolve("job"), null,
        new JobRequest.Steps(List.of(), session, "FULL PROMPT: the whole item.\n", List.of()));
  }

  @Test
  void a_fresh_claude_run_records_the_session_id_it_printed() throws Exception {
    AgentOutcome outcome = run(new JobRequest("ITEM-7", "build", 1, "FULL\n", fakeClaude(), dir,
        dir.resolve("job"), null, gates(sh("ok", "true"))));

    assertEquals(OutcomeClass.SUCCEEDED, outcome.kind(), outcome.context());
    assertEquals(new AgentSession("fresh-2", AgentSession.Start.FRESH), outcome.session());
    assertEquals(List.of("-p", "--output-format", "stream-json"), lines(dir.resolve("call-1.argv")));
  }

  @Test
  void a_resumed_job_passes_the_session_on_argv_and_only_the_short_prompt() throws Exception {
    AgentOutcome outcome = run(resumeRequest(fakeClaude(), "known-1"));

    assertEquals(OutcomeClass.SUCCEEDED, outcome.kind(), outcome.context());
    assertEquals(List.of("-p", "--output-format", "stream-json", "--resume", "known-1"),
        lines(dir.resolve("call-1.argv")));
    assertEquals("SHORT: fix the red test.\n", Files.readString(dir.resolve("call-1.stdin")));
    assertFalse(Files.exists(dir.resolve("call-2.argv")), "the agent ran twice");
    assertEquals(new AgentSession("known-1", AgentSession.Start.RESUMED), outcome.session());
    assertEquals("SHORT: fix the red test.\n", Files.readString(dir.resolve("job/prompt.md")));
    assertFalse(Files.exists(dir.resolve("job/prompt-resume.md")));
  }

  @Test
  void a_session_the_cli_no_longer_knows_falls_back_to_a_fresh_run_with_the_full_prompt() throws Exception {
    AgentOutcome outcome = run(resumeRequest(fakeClaude(), "gone-9"));

    assertEquals(OutcomeClass.SUCCEEDED, outcome.kind(), outcome.context());
    assertEquals(List.of("-p", "--output-format", "stream-json", "--resume", "gone-9"),
        lines(dir.resolve("call-1.argv")));
    assertEquals(List.of("-p", "--output-format", "stream-json"), lines(dir.resolve("call-2.argv")));
    assertEquals("FULL PROMPT: the whole item.\n", Files.readString(dir.resolve("call-2.stdin")));
    assertEquals(new AgentSession("fresh-2", AgentSession.Start.RESUME_FAILED), outcome.session());
    assertEquals("fresh_after_failed_resume", outcome.session().start().key());
    assertEquals("SHORT: fix the red test.\n", Files.readString(dir.resolve("job/prompt-resume.md")));
    assertEquals("FULL PROMPT: the whole item.\n", Files.readString(dir.resolve("job/prompt.md")));
    assertEquals("No conversation found with session ID: gone-9\n",
        Files.readString(dir.resolve("job/output-resume.log")));
    assertTrue(Files.readString(dir.resolve("job/output.log")).contains("\"session_id\":\"fresh-2\""));
  }

  @Test
  void links_a_refused_resume_plants_in_its_job_directory_are_never_followed() throws Exception {
    // The agent of the refused resume knows its job directory (ORCHESTRATE_RESULT_FILE's): it plants
    // links where orchestrate then moves the resume's files, writes the fresh prompt and a gate's log.
    Path outside = Files.writeString(dir.resolve("outside.txt"), "precious\n");
    Path planter = script("claude.sh", """
        job=$(dirname "$ORCHESTRATE_RESULT_FILE")
        case "$*" in
          *--resume*)
            for f in prompt-resume.md output-resume.log gate-check.log; do ln -sf '%s' "$job/$f"; done
            echo "No conversation found with session ID: gone-9" >&2; exit 1 ;;
        esac
        echo '{"type":"system","subtype":"init","cwd":"/w","session_id":"fresh-2","tools":[]}'
        echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"fresh-2"}'
        """.formatted(outside));
    AgentConfig c = TestAgents.config(List.of("/bin/sh", planter.toString()));
    AgentConfig claude = new AgentConfig(c.command(), c.timeout(), c.killGrace(), c.env(), ResultFallback.EXIT_CODE,
        c.logMaxBytes(), c.outputTailChars(), AgentPreset.CLAUDE, List.of(), null).withResume(true);
    JobRequest request = new JobRequest("ITEM-7", "build", 2, "SHORT\n", claude, dir, dir.resolve("job"), null,
        new JobRequest.Steps(List.of(), "gone-9", "FULL\n", List.of(sh("check", "echo gate ran"))));

    AgentOutcome outcome = run(request);

    assertEquals(AgentSession.Start.RESUME_FAILED, outcome.session().start(), outcome.context());
    assertEquals("precious\n", Files.readString(outside), "nothing was written through a planted link");
    for (String f : List.of("prompt-resume.md", "output-resume.log", "gate-check.log", "prompt.md")) {
      assertFalse(Files.isSymbolicLink(dir.resolve("job").resolve(f)), f + " is still a link");
    }
    assertEquals("FULL\n", Files.readString(dir.resolve("job/prompt.md")));
    assertEquals("gate ran\n", Files.readString(dir.resolve("job/gate-check.log")));
  }

  @Test
  void a_resumed_run_whose_gate_fails_keeps_the_session_for_the_next_attempt() throws Exception {
    JobRequest request = new JobRequest("ITEM-7", "build", 2, "SHORT\n", fakeClaude(), dir, dir.resolve("job"), null,
        new JobRequest.Steps(List.of(), "known-1", "FULL\n", List.of(sh("tests", "echo still red; exit 1"))));

    AgentOutcome outcome = run(request);

    assertEquals(OutcomeClass.VERIFY_FAILED, outcome.kind());
    assertEquals(new AgentSession("known-1", AgentSession.Start.RESUMED), outcome.session());
  }

  private static List<String> lines(Path file) throws Exception {
    return Files.readAllLines(file, StandardCharsets.UTF_8);
  }

  private static List<CommandRun> gates(AgentOutcome outcome) {
    return outcome.checks().stream().filter(c -> c.kind() == CommandRun.Kind.GATE).toList();
  }
}
