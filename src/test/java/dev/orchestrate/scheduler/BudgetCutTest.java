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
import dev.orchestrate.config.OnUsageLimit;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.item.ItemLanding;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.Placement;
import dev.orchestrate.jobs.AgentLauncher;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.InProcessLauncher;
import dev.orchestrate.testing.TestAgents;
import dev.orchestrate.testing.TestStores;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cut by the agent's own budget flag (issue 44, item 2) is not the agent's failure: never counted
 * against max_retries, never a block, the phase's completed work kept, the next attempt continuing
 * the session in the worktree as the cut left it; and every job's spend is recorded however it
 * ended (item 3). Real SQLite state; an in-process agent, or real processes replaying what Claude
 * Code 2.1.330 printed (src/test/resources/agent-outputs).
 */
class BudgetCutTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(Scheduler.class, ProviderPauses.class);

  @TempDir
  Path dir;

  /** build alone: one phase, changes not required. */
  private static final Pipeline BUILD = new Pipeline("feature", List.of(), List.of(phase("build")), null, null,
      List.of());
  private static final Usage TURNS = new Usage(2400L, 70L, 600L, 100L, 0.01162);

  private final List<JobRequest> requests = new CopyOnWriteArrayList<>();

  private static AgentConfig claude(List<String> command, Duration timeout) {
    return new AgentConfig(command, timeout, Duration.ofMillis(500), Map.of(), ResultFallback.EXIT_CODE, 1024 * 1024,
        2000, AgentPreset.CLAUDE, List.of(), null).withResume(true);
  }

  private AgentOutcome cut(JobRequest r) {
    return InProcessLauncher.outcome(AgentResult.FAILED, "")
        .withProvider(ProviderFailure.of(OutcomeClass.BUDGET_EXHAUSTED,
            "error_max_budget_usd: Reached maximum budget ($0.01)"))
        .withUsage(TURNS).withSession(new AgentSession("s-" + requests.size(), AgentSession.Start.FRESH));
  }

  private RunReport run(Config config, AgentLauncher launcher, ItemWorkspaces workspaces, int cap) {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      return Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), launcher, Clock.systemUTC()).build().workspaces(workspaces, ItemLanding.NONE)
          .run(cap);
    }
  }

  /** The jobs recorded, oldest first, with their class and usage. */
  private List<JobRecord> jobs() {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      return TestStores.jobs(store);
    }
  }

  private Map<Long, OutcomeClass> outcomes() {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      return new java.util.TreeMap<>(
          store.items().outcomes(TestStores.jobs(store).stream().map(JobRecord::id).toList()));
    }
  }

  private Map<Long, Usage> usage() {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      return new java.util.TreeMap<>(
          store.items().jobUsage(TestStores.jobs(store).stream().map(JobRecord::id).toList()));
    }
  }

  /** A worktree per item without git, saying how each attempt's worktree was prepared and what was committed. */
  private static final class Worktrees implements ItemWorkspaces {
    final List<String> prepared = new CopyOnWriteArrayList<>();
    final List<String> commits = new CopyOnWriteArrayList<>();
    private final Path dir;

    Worktrees(Path dir) {
      this.dir = dir;
    }

    @Override
    public Placement prepare(String itemId, Path backlogDir, boolean keep) {
      prepared.add(keep ? "kept" : "reset");
      return new Placement(dir.resolve("wt"), dir.resolve("wt"), "orchestrate/" + itemId, keep, List.of());
    }

    @Override
    public String commit(String itemId, String phase, int attempt, long jobId, String summary) {
      commits.add(phase + ": " + summary);
      return "c0ffee" + jobId;
    }
  }

  @Test
  void budget_cuts_are_not_counted_block_nothing_and_the_next_attempt_continues_in_the_kept_worktree() {
    Worktrees worktrees = new Worktrees(dir);
    Function<JobRequest, AgentOutcome> agent = r -> {
      requests.add(r);
      return requests.size() <= 2 ? cut(r) : InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "built");
    };
    // max_retries 0: one counted failure would block the item
    Config config = TestAgents.config(claude(List.of("claude"), Duration.ofMinutes(1)), 0, BUILD);
    RunReport report;
    try (InProcessLauncher launcher = new InProcessLauncher(agent)) {
      report = run(config, launcher, worktrees, 100);
    }

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(1, report.done());
    assertEquals(0, report.blocked());
    assertEquals(3, report.phasesRun(), "a budget cut spent: it is a phase of the cap");
    // each attempt is the first one again, continuing the session the cut left, in its worktree
    assertEquals(List.of(1, 1, 1), requests.stream().map(JobRequest::attempt).toList());
    assertEquals(java.util.Arrays.asList(null, "s-1", "s-2"),
        requests.stream().map(r -> r.steps().resumeSession()).toList());
    assertEquals(List.of("reset", "kept", "kept"), worktrees.prepared);
    assertEquals(List.of("build: built"), worktrees.commits, "a cut commits nothing");
    assertEquals(List.of(OutcomeClass.BUDGET_EXHAUSTED, OutcomeClass.BUDGET_EXHAUSTED, OutcomeClass.SUCCEEDED),
        List.copyOf(outcomes().values()));
    List<Usage> spent = List.copyOf(usage().values());
    assertEquals(TURNS, spent.get(0));
    assertEquals(TURNS, spent.get(1));
    assertEquals(0.02324, report.usage().costUsd(), 1e-9);
  }

  @Test
  void three_cuts_in_a_row_of_one_phase_halt_the_run_saying_the_agents_own_cap_is_too_small() {
    Function<JobRequest, AgentOutcome> agent = r -> {
      requests.add(r);
      return cut(r); // a fixed --max-budget-usd in agent.args, too small for the phase: every attempt is cut
    };
    Config config = TestAgents.config(claude(List.of("claude"), Duration.ofMinutes(1)), 0, BUILD);
    RunReport report;
    try (InProcessLauncher launcher = new InProcessLauncher(agent)) {
      report = run(config, launcher, new Worktrees(dir), 100);
    }

    assertEquals(HaltReason.BUDGET, report.haltReason(), "not 100 paid attempts up to the phase cap");
    assertEquals(3, requests.size());
    assertEquals("A: phase build was cut by its agent's own budget 3 times in a row (budget_exhausted, not counted): "
        + "raise the cap the agent is given (--max-budget-usd in agent.args, or the run's budget) or split the work",
        report.haltDetail());
    assertEquals(0, report.blocked(), "nothing blocked: the item waits for a larger cap");
    assertEquals(Map.of("budget_exhausted", 3), report.limited(), "tallied with the uncounted attempts");
  }

  @Test
  void a_job_cut_off_before_its_result_is_held_to_its_whole_share_of_the_budget() {
    Function<JobRequest, AgentOutcome> agent = r -> {
      requests.add(r); // timed out: its messages' tokens, no cost (Claude Code says it in its result only)
      return InProcessLauncher.outcome(AgentResult.FAILED, "timed out").withUsage(new Usage(5000L, 10L, null, null,
          null));
    };
    Config config = TestAgents.config(claude(List.of("claude"), Duration.ofMinutes(1)), 5, BUILD);
    config = config.withExecution(config.execution().withMaxCostUsd(1.0));
    RunReport report;
    try (InProcessLauncher launcher = new InProcessLauncher(agent)) {
      report = run(config, launcher, new Worktrees(dir), 100);
    }

    assertEquals(HaltReason.BUDGET, report.haltReason());
    assertEquals(1, requests.size(), "the first job, alone, held $1.00: spent, as far as the budget knows");
    assertEquals(null, report.usage().costUsd(), "reported as unknown all the same");
  }

  @Test
  void a_phase_completed_before_the_cut_is_committed_and_the_item_moves_on() {
    Worktrees worktrees = new Worktrees(dir);
    // the result file said phase_complete, then the budget cut the session: the result file wins
    Function<JobRequest, AgentOutcome> agent = r -> InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "built")
        .withProvider(ProviderFailure.of(OutcomeClass.BUDGET_EXHAUSTED, "error_max_budget_usd: Reached maximum "
            + "budget ($0.01)"))
        .withUsage(TURNS);
    Config config = TestAgents.config(claude(List.of("claude"), Duration.ofMinutes(1)), 0, BUILD);
    RunReport report;
    try (InProcessLauncher launcher = new InProcessLauncher(agent)) {
      report = run(config, launcher, worktrees, 100);
    }
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(1, report.done());
    assertEquals(List.of("build: built"), worktrees.commits);
    assertEquals(List.of(OutcomeClass.SUCCEEDED), List.copyOf(outcomes().values()));
    assertEquals(List.of(TURNS), List.copyOf(usage().values()));
  }

  private static String path(String resource) {
    try {
      return Path.of(BudgetCutTest.class.getResource(resource).toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> replay(String script, String... args) {
    List<String> argv = new java.util.ArrayList<>(List.of("bash", path("/agents/jobs/" + script)));
    argv.addAll(List.of(args));
    return argv;
  }

  @Test
  void claude_codes_recorded_budget_cuts_record_their_spend_and_never_block_an_item_of_no_retries() {
    // the real CLI's output, cut by --max-budget-usd after two turns; then, resumed, cut after two
    // more (its total_cost_usd the session's, its model_usage_since_last_result the run's); exit 1
    AgentConfig agent = claude(replay("replay_claude.sh",
        path("/agent-outputs/claude-code-2.1.330/resume-after-budget-exhausted.first.stdout"),
        path("/agent-outputs/claude-code-2.1.330/resume-after-budget-exhausted.stdout"), "1"), Duration.ofSeconds(20));
    RunReport report = run(TestAgents.config(agent, 0, BUILD), new AgentRunner(Clock.systemUTC()),
        ItemWorkspaces.SHARED, 2);

    assertEquals(HaltReason.PHASE_CAP, report.haltReason(), "the cap ends it, not a block");
    assertEquals(0, report.blocked());
    ItemState a = StateRows.items(dir.resolve("state")).get(0);
    assertEquals(ItemStatus.IN_PROGRESS, a.status());
    assertEquals(0, a.progress().attempts());
    assertNull(a.progress().blockedReason());
    assertEquals(List.of(OutcomeClass.BUDGET_EXHAUSTED, OutcomeClass.BUDGET_EXHAUSTED),
        List.copyOf(outcomes().values()));
    // the second job's own spend: the session's $0.02324 less the first job's
    List<Usage> spent = List.copyOf(usage().values());
    assertEquals(TURNS, spent.get(0));
    assertEquals(2400L, spent.get(1).inputTokens());
    assertEquals(0.01162, spent.get(1).costUsd(), 1e-9);
    assertTrue(jobs().get(0).reason().contains("Reached maximum budget ($0.01)"), jobs().get(0).reason());
  }

  @Test
  void a_timed_out_job_records_the_tokens_its_messages_reported() {
    // the real CLI's output before its provider hung; the replay then waits until it is stopped
    AgentConfig agent = claude(replay("replay_then_hang.sh",
        path("/agent-outputs/claude-code-2.1.330/hang-after-turn-killed.stdout")), Duration.ofSeconds(2));
    RunReport report = run(TestAgents.config(agent, 0, BUILD), new AgentRunner(Clock.systemUTC()),
        ItemWorkspaces.SHARED, 100);

    assertEquals(1, report.blocked(), "a timeout is the agent's: counted, and max_retries is 0");
    assertEquals(List.of(OutcomeClass.TIMED_OUT), List.copyOf(outcomes().values()));
    // one message of 1200 fresh input tokens, printed as two events; Claude Code prints no cost before its result
    assertEquals(List.of(new Usage(1200L, 1L, 300L, 50L, null)), List.copyOf(usage().values()));
    assertEquals(1551L, report.usage().totalTokens());
  }

  /** The feature pipeline falling back to the profile "backup" while the default one is paused. */
  private static Config withBackup(Config c) {
    Pipeline feature = c.pipelines().values().iterator().next();
    Pipeline withFallback = new Pipeline(feature.name(), feature.prePhases(), feature.phases(), null,
        List.of("backup"));
    return new Config(c.source(), c.agent().asProfile(null, 0), c.execution(), c.defaultPipeline(),
        Map.of(feature.name(), withFallback), c.context(), c.memoryKeepRecent(), c.memoryBootContextChars(),
        c.retention(), c.state(), c.budget(), Map.of("backup", c.agent().asProfile("backup", 0)));
  }

  @Test
  void with_a_fallback_the_usage_limit_message_says_the_profile_is_paused_and_the_fallback_takes_over() {
    List<String> notices = new CopyOnWriteArrayList<>();
    Instant t0 = Instant.parse("2026-11-26T10:30:00Z");
    Config config = withBackup(TestAgents.config(TestAgents.agent(dir.resolve("unused.sh"))
        .withLimits(OnUsageLimit.HALT, Duration.ofHours(6)), 0, BUILD));
    Function<JobRequest, AgentOutcome> agent = r -> r.agent().profileName().equals("agent")
        ? InProcessLauncher.outcome(AgentResult.FAILED, "").withProvider(new ProviderFailure(
            OutcomeClass.USAGE_LIMIT, "You've hit your limit · resets 11pm (UTC)", null, null))
        : InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "done by backup");
    RunReport report;
    try (StateStore store = TestStores.open(dir.resolve("state"));
        InProcessLauncher launcher = new InProcessLauncher(agent)) {
      report = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), launcher, Clock.fixed(t0, ZoneOffset.UTC)).pauses(store.pauses())
          .listener(new RunListener() {
            @Override
            public void providerLimit(String message) {
              notices.add(message);
            }
          }).build().run(100);
    }
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(List.of("agent hit its usage limit: paused until 23:01 (UTC); its fallback takes its phases "
        + "meanwhile"), notices);
  }
}
