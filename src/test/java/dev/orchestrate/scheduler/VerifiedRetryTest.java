package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.item.ItemLanding;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.Placement;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.Db;
import dev.orchestrate.testing.InProcessLauncher;
import dev.orchestrate.testing.TestAgents;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A red gate in a real run (issue 29), with an in-process agent and real SQLite state: it counts as
 * an attempt, its failure is the next prompt's Previous Failure, and the next attempt continues
 * the agent's session when its profile resumes.
 */
class VerifiedRetryTest {
  @TempDir
  Path dir;

  private static final List<ProjectCommand> GATES = List.of(ProjectCommand.shell("tests", "make test",
      Duration.ofMinutes(5)));
  /** scope | build, with the pipeline's gate on build. */
  private static final Pipeline PIPELINE = new Pipeline("feature", List.of(phase("scope")), List.of(phase("build")),
      null, null, GATES);
  private static final String RED = "You reported the phase complete, but gate 'tests' failed (exit 1): "
      + "FAILED test_add";

  private final List<JobRequest> requests = new CopyOnWriteArrayList<>();

  private static AgentConfig claude(boolean resume) {
    return new AgentConfig(List.of("claude"), Duration.ofMinutes(1), Duration.ofSeconds(1), Map.of(),
        ResultFallback.EXIT_CODE, 1024 * 1024, 2000, AgentPreset.CLAUDE, List.of(), null).withResume(resume);
  }

  /** Build's first {@code reds} attempts turn red at the gate; every attempt prints session s-N. */
  private Function<JobRequest, AgentOutcome> agent(int reds) {
    return r -> {
      requests.add(r);
      AgentOutcome done = InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, r.phase() + " done")
          .withSession(new AgentSession("s-" + r.attempt(), r.steps().resumeSession() != null
              ? AgentSession.Start.RESUMED : AgentSession.Start.FRESH));
      if (r.phase().equals("build") && r.attempt() <= reds) {
        CommandRun gate = new CommandRun(CommandRun.Kind.GATE, "tests", 1, CommandRun.Ending.FAILED,
            Duration.ofMillis(1200), r.jobDir().resolve("gate-tests.log"), "FAILED test_add");
        return done.withChecks(List.of(gate)).refutedAs(OutcomeClass.VERIFY_FAILED, RED);
      }
      return done;
    };
  }

  private RunReport run(AgentConfig agent, int maxRetries, Function<JobRequest, AgentOutcome> behaviour) {
    return run(agent, maxRetries, behaviour, PIPELINE, ItemWorkspaces.SHARED);
  }

  private RunReport run(AgentConfig agent, int maxRetries, Function<JobRequest, AgentOutcome> behaviour,
      Pipeline pipeline, ItemWorkspaces workspaces) {
    Config config = TestAgents.config(agent, maxRetries, pipeline);
    try (StateStore store = TestStores.open(dir.resolve("state"));
        InProcessLauncher launcher = new InProcessLauncher(behaviour)) {
      return Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), launcher, Clock.systemUTC()).build().workspaces(workspaces, ItemLanding.NONE)
          .run(100);
    }
  }

  /**
   * A worktree per item without git: build's first attempt commits nothing; an inspection can
   * report a breach for one attempt.
   */
  private final class FakeWorktrees implements ItemWorkspaces {
    final List<String> prepared = new CopyOnWriteArrayList<>();
    private final String breachAtBuildAttempt;
    private int buildCommits;

    FakeWorktrees(String breachAtBuildAttempt) {
      this.breachAtBuildAttempt = breachAtBuildAttempt;
    }

    @Override
    public Placement prepare(String itemId, Path backlogDir, boolean keep) {
      prepared.add(itemId + (keep ? " kept" : " reset"));
      return new Placement(dir.resolve("wt"), dir.resolve("wt"), "orchestrate/" + itemId, keep, List.of());
    }

    @Override
    public String commit(String itemId, String phase, int attempt, long jobId, String summary) {
      return phase.equals("build") && ++buildCommits == 1 ? null : "c0ffee" + jobId;
    }

    @Override
    public String inspect(String itemId) {
      JobRequest last = requests.get(requests.size() - 1);
      return last.phase().equals("build") && String.valueOf(last.attempt()).equals(breachAtBuildAttempt)
          ? "the agent moved the base branch" : null;
    }
  }

  @Test
  void an_attempt_that_changed_nothing_in_a_changes_required_phase_fails_as_no_changes_and_is_continued()
      throws Exception {
    Pipeline required = new Pipeline("feature", List.of(), List.of(phase("build").withVerify(null,
        dev.orchestrate.config.PhaseDef.Changes.REQUIRED)), null, null, List.of());
    FakeWorktrees worktrees = new FakeWorktrees(null);
    RunReport report = run(claude(true), 2, agent(0), required, worktrees);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(List.of("build/1", "build/2"), requests.stream().map(r -> r.phase() + "/" + r.attempt()).toList());
    assertEquals(List.of("A reset", "A kept"), worktrees.prepared);
    JobRequest retry = request("build", 2);
    assertEquals("s-1", retry.steps().resumeSession());
    assertTrue(retry.prompt().contains("## Previous Failure\n\n" + Integration.NO_CHANGES + "\n"), retry.prompt());
    List<JobRecord> jobs = StateRows.jobs(dir.resolve("state"));
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      Map<Long, OutcomeClass> classes = store.items().outcomes(jobs.stream().map(JobRecord::id).toList());
      assertEquals(OutcomeClass.NO_CHANGES, classes.get(jobs.get(0).id()));
      assertEquals(OutcomeClass.SUCCEEDED, classes.get(jobs.get(1).id()));
    }
  }

  @Test
  void a_job_whose_agent_breached_its_workspace_keeps_its_gate_record_and_session() throws Exception {
    RunReport report = run(claude(true), 2, agent(1), PIPELINE, new FakeWorktrees("1"));

    assertEquals(1, report.blocked());
    List<JobRecord> jobs = StateRows.jobs(dir.resolve("state"));
    JobRecord build = jobs.stream().filter(j -> j.phase().equals("build")).findFirst().orElseThrow();
    Path db = dir.resolve("state/state.db");
    assertEquals(List.of(build.id() + "|gate|tests|failed"), Db.column(db,
        "SELECT job_id || '|' || kind || '|' || name || '|' || ending FROM job_checks ORDER BY job_id, seq"));
    assertEquals(List.of("s-1|fresh"), Db.column(db, "SELECT session_id || '|' || session_start FROM jobs WHERE id = "
        + build.id()));
  }

  private JobRequest request(String phase, int attempt) {
    return requests.stream().filter(r -> r.phase().equals(phase) && r.attempt() == attempt).findFirst()
        .orElseThrow(() -> new AssertionError("no attempt " + attempt + " of " + phase + " in " + requests));
  }

  @Test
  void a_red_gate_counts_its_failure_is_fed_back_and_the_retry_continues_the_session() throws Exception {
    RunReport report = run(claude(true), 2, agent(1));

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(List.of("scope/1", "build/1", "build/2"),
        requests.stream().map(r -> r.phase() + "/" + r.attempt()).toList());
    assertEquals(List.of(), request("scope", 1).steps().verify(), "a pre-phase has none of the pipeline's gates");
    assertEquals(GATES, request("build", 1).steps().verify());
    assertNull(request("build", 1).steps().resumeSession());
    assertTrue(request("build", 1).prompt().contains("## Checks"), request("build", 1).prompt());

    JobRequest retry = request("build", 2);
    assertEquals("s-1", retry.steps().resumeSession());
    assertEquals(GATES, retry.steps().verify());
    assertTrue(retry.prompt().startsWith("# orchestrate: A / build, attempt 2 of 3\n\nThis continues your last "
        + "attempt"), retry.prompt());
    assertTrue(retry.prompt().contains("## Previous Failure\n\n" + RED + "\n"), retry.prompt());
    assertTrue(retry.steps().freshPrompt().contains("## Previous Failure\n\n" + RED + "\n"),
        retry.steps().freshPrompt());
    assertTrue(retry.steps().freshPrompt().contains("## Task: build"), retry.steps().freshPrompt());

    List<JobRecord> jobs = StateRows.jobs(dir.resolve("state"));
    assertEquals(3, jobs.size());
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      Map<Long, OutcomeClass> classes = store.items().outcomes(jobs.stream().map(JobRecord::id).toList());
      assertEquals(OutcomeClass.VERIFY_FAILED, classes.get(jobs.get(1).id()));
      assertEquals(OutcomeClass.SUCCEEDED, classes.get(jobs.get(2).id()));
    }
    Path db = dir.resolve("state/state.db");
    assertEquals(List.of(jobs.get(1).id() + "|1|gate|tests|1|failed|1200|gate-tests.log"), Db.column(db,
        "SELECT job_id || '|' || seq || '|' || kind || '|' || name || '|' || exit_code || '|' || ending || '|' "
            + "|| duration_ms || '|' || log_file FROM job_checks ORDER BY job_id, seq"));
    assertEquals(List.of("s-1|fresh", "s-2|resumed"), Db.column(db, "SELECT session_id || '|' || session_start "
        + "FROM jobs WHERE phase = 'build' ORDER BY id"));
    ItemState a = StateRows.item(dir.resolve("state"), "A");
    assertEquals(ItemStatus.DONE, a.status());
    assertNull(a.progress().resume());
  }

  @Test
  void without_agent_resume_the_retry_starts_fresh_with_the_full_prompt_and_the_failure() {
    RunReport report = run(claude(false), 2, agent(1));

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    JobRequest retry = request("build", 2);
    assertNull(retry.steps().resumeSession());
    assertNull(retry.steps().freshPrompt());
    assertTrue(retry.prompt().contains("## Task: build"), retry.prompt());
    assertTrue(retry.prompt().contains("## Previous Failure\n\n" + RED + "\n"), retry.prompt());
  }

  @Test
  void red_gates_use_up_the_retries_and_block_the_item_with_the_gates_failure() {
    RunReport report = run(claude(true), 1, agent(5));

    assertEquals(1, report.blocked());
    assertEquals(List.of("scope/1", "build/1", "build/2"),
        requests.stream().map(r -> r.phase() + "/" + r.attempt()).toList());
    ItemState a = StateRows.item(dir.resolve("state"), "A");
    assertEquals(ItemStatus.BLOCKED, a.status());
    assertTrue(a.progress().blockedReason().startsWith("retries exhausted in phase build after 2 attempts"),
        a.progress().blockedReason());
    assertTrue(a.progress().blockedReason().contains("FAILED test_add"), a.progress().blockedReason());
    assertNull(a.progress().resume());
  }
}
