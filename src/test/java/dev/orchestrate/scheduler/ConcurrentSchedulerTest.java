package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.InProcessLauncher.outcome;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.RunFigures;
import dev.orchestrate.jobs.AgentLauncher;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.InProcessLauncher;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The concurrent run loop: parallel agents, the phase-summary map, the job table, halts. */
class ConcurrentSchedulerTest {
  private static final String PREVIOUS = "## Previous Phase Summary";

  @TempDir
  Path dir;

  /** scope | design, build */
  private static Pipeline twoPhases() {
    return new Pipeline("feature", List.of(phase("scope")), List.of(phase("design"), phase("build")));
  }

  private static Config concurrent(Config config, int maxWip, int maxConcurrent) {
    return config.withExecution(config.execution().withMaxWip(maxWip).withMaxConcurrent(maxConcurrent));
  }

  private static Config inProcess(Pipeline pipeline, int maxRetries, int maxWip, int maxConcurrent) {
    return concurrent(config(agent(Path.of("unused.sh")), maxRetries, pipeline), maxWip, maxConcurrent);
  }

  private RunReport run(Config config, List<BacklogItem> items, AgentLauncher launcher, RunOptions options) {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      Scheduler scheduler = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), items),
          dir.resolve("state/jobs"), launcher, Clock.systemUTC()).build();
      return scheduler.run(options);
    }
  }

  /** The states of the jobs {@code which} admits, oldest first. */
  private List<String> jobStates(java.util.function.Predicate<JobRecord> which) {
    return StateRows.jobs(dir.resolve("state")).stream().filter(which).map(j -> j.state().key()).toList();
  }

  @Test
  void two_thousand_items_at_max_wip_2_and_max_concurrent_2_leave_an_empty_summary_map_that_never_held_more_than_4()
      throws Exception {
    List<BacklogItem> items = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      items.add(item(String.format("I%04d", i)));
    }
    RunReport report;
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      report = run(inProcess(twoPhases(), 0, 2, 2), items, launcher, RunOptions.cap(10_000));
      assertTrue(launcher.maxRunning() <= 2, "at most max_concurrent at once: " + launcher.maxRunning());
    }
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(2_000, report.done());
    assertEquals(6_000, report.phasesRun());
    RunFigures f = report.figures();
    assertEquals(0, f.summaryMapFinal());
    assertTrue(f.summaryMapPeak() <= 4, "summary map peak " + f.summaryMapPeak());
    assertTrue(f.summaryMapPeak() >= 2, "the map was used: peak " + f.summaryMapPeak());
    assertTrue(f.jobTablePeakActive() <= 2, "peak active " + f.jobTablePeakActive());
    assertEquals(3, f.jobTablePeakInactive());
    assertEquals(3, f.jobTableFinal());
    List<DashboardQueries.RunBounds> runs = TestStores.read(dir.resolve("state"),
        store -> store.dashboard().runBounds(10));
    assertEquals(List.of("0|" + f.summaryMapPeak() + "|" + f.jobTablePeakActive() + "|3|3"),
        runs.stream().map(r -> r.summaryMapFinal() + "|" + r.summaryMapPeak() + "|" + r.jobTablePeakActive() + "|"
            + r.jobTablePeakInactive() + "|" + r.jobTableFinal()).toList());
    assertEquals(List.of("6000"), List.of(String.valueOf(jobStates(j -> j.state() == JobState.COMPLETED).size())));
  }

  @Test
  void max_concurrent_agents_really_run_at_the_same_time() throws Exception {
    // Each agent waits (up to 10 s) until both have started: run one after the other, both fail.
    Path agent = script(dir, "agent.sh", """
        touch "started-$ORCHESTRATE_ITEM_ID"
        for i in $(seq 100); do
          [ -e started-A ] && [ -e started-B ] && exit 0
          sleep 0.1
        done
        exit 1
        """);
    Pipeline one = new Pipeline("feature", List.of(), List.of(phase("work")));
    Config config = concurrent(config(agent(agent), 0, one), 2, 2);
    long started = System.nanoTime();
    RunReport report = run(config, List.of(item("A"), item("B")), new AgentRunner(Clock.systemUTC()),
        RunOptions.cap(10));
    assertEquals(2, report.doneThisRun(), "both agents saw each other running");
    assertTrue(Duration.ofNanos(System.nanoTime() - started).toSeconds() < 9);
    assertEquals(List.of("completed", "completed"), jobStates(j -> true));
  }

  @Test
  void a_terminal_success_never_puts_a_summary_and_done_removes_the_one_there() {
    Pipeline one = new Pipeline("feature", List.of(), List.of(phase("work")));
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(inProcess(one, 0, 1, 1), List.of(item("A"), item("B")), launcher, RunOptions.cap(10));
      assertEquals(2, report.done());
      assertEquals(0, report.figures().summaryMapPeak(), "never inserted-then-removed");
    }
  }

  @Test
  void the_summary_reaches_the_next_phase_prompt_and_done_removes_it() {
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(inProcess(twoPhases(), 0, 1, 1), List.of(item("A")), launcher, RunOptions.cap(10));
      assertEquals(1, report.done());
      assertFalse(launcher.prompt("A", "scope", 1).contains(PREVIOUS));
      assertTrue(launcher.prompt("A", "design", 1).contains(PREVIOUS + "\n\nA scope done"),
          launcher.prompt("A", "design", 1));
      assertTrue(launcher.prompt("A", "build", 1).contains("A design done"));
      assertEquals(1, report.figures().summaryMapPeak());
      assertEquals(0, report.figures().summaryMapFinal());
    }
  }

  @Test
  void retries_keep_the_summary_and_exhausting_them_removes_it() {
    try (InProcessLauncher launcher = new InProcessLauncher(r -> r.phase().equals("build")
        ? outcome(AgentResult.FAILED, "") : outcome(AgentResult.PHASE_COMPLETE, r.phase() + " ok"))) {
      RunReport report = run(inProcess(twoPhases(), 2, 1, 1), List.of(item("A")), launcher, RunOptions.cap(10));
      assertEquals(1, report.blocked());
      for (int attempt = 1; attempt <= 3; attempt++) {
        String prompt = launcher.prompt("A", "build", attempt);
        assertTrue(prompt.contains("design ok"), "attempt " + attempt + " has the design summary");
      }
      assertEquals(1, report.figures().summaryMapPeak());
      assertEquals(0, report.figures().summaryMapFinal(), "blocked by exhaustion: removed");
    }
  }

  @Test
  void a_retry_that_then_succeeds_keeps_the_summary_and_puts_its_own() {
    try (InProcessLauncher launcher = new InProcessLauncher(r -> r.phase().equals("design") && r.attempt() == 1
        ? outcome(AgentResult.FAILED, "") : outcome(AgentResult.PHASE_COMPLETE, r.phase() + " ok " + r.attempt()))) {
      RunReport report = run(inProcess(twoPhases(), 2, 1, 1), List.of(item("A")), launcher, RunOptions.cap(10));
      assertEquals(1, report.done());
      assertTrue(launcher.prompt("A", "design", 2).contains("scope ok 1"));
      assertTrue(launcher.prompt("A", "build", 1).contains("design ok 2"));
    }
  }

  @Test
  void an_agent_that_reports_blocked_removes_the_summary() {
    try (InProcessLauncher launcher = new InProcessLauncher(r -> r.phase().equals("build")
        ? outcome(AgentResult.BLOCKED, "") : outcome(AgentResult.PHASE_COMPLETE, r.phase() + " ok"))) {
      RunReport report = run(inProcess(twoPhases(), 2, 1, 1), List.of(item("A"), item("B")), launcher,
          RunOptions.cap(20));
      assertEquals(2, report.blocked());
      assertEquals(0, report.figures().summaryMapFinal());
      assertEquals(1, report.figures().summaryMapPeak());
    }
  }

  @Test
  void a_subphase_keeps_the_item_in_the_map_with_its_new_summary() {
    try (InProcessLauncher launcher = new InProcessLauncher(r -> r.phase().equals("design") && r.attempt() == 1
        && !r.prompt().contains("design part 1")
            ? outcome(AgentResult.SUBPHASE_COMPLETE, "design part 1")
            : outcome(AgentResult.PHASE_COMPLETE, r.phase() + " ok"))) {
      RunReport report = run(inProcess(twoPhases(), 0, 1, 1), List.of(item("A")), launcher, RunOptions.cap(10));
      assertEquals(1, report.done());
      assertEquals(4, report.phasesRun());
      assertEquals(0, report.figures().summaryMapFinal());
    }
  }

  @Test
  void a_new_session_restores_the_summary_of_an_item_left_in_progress() {
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport first = run(inProcess(twoPhases(), 0, 1, 1), List.of(item("A")), launcher, RunOptions.cap(2));
      assertEquals(HaltReason.PHASE_CAP, first.haltReason());
      assertEquals(1, first.figures().summaryMapFinal(), "A is still active");
    }
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport second = run(inProcess(twoPhases(), 0, 1, 1), List.of(item("A")), launcher, RunOptions.cap(10));
      assertEquals(1, second.done());
      assertNotNull(launcher.prompt("A", "build", 1));
      assertTrue(launcher.prompt("A", "build", 1).contains(PREVIOUS + "\n\nA design done"));
    }
  }

  @Test
  void the_phase_cap_counts_started_phases_when_several_run_at_once() throws Exception {
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(inProcess(twoPhases(), 0, 3, 3), List.of(item("A"), item("B"), item("C")), launcher,
          RunOptions.cap(4));
      assertEquals(HaltReason.PHASE_CAP, report.haltReason());
      assertEquals(4, report.phasesRun());
      assertEquals(4, launcher.started());
    }
    assertEquals(List.of("4"), List.of(String.valueOf(jobStates(j -> j.state() == JobState.COMPLETED).size())));
  }

  @Test
  void a_run_whose_last_needed_phase_is_the_cap_th_is_all_done_not_capped() throws Exception {
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(inProcess(twoPhases(), 0, 1, 1), List.of(item("A")), launcher, RunOptions.cap(3));
      assertEquals(3, report.phasesRun(), "scope, design, build");
      assertEquals(HaltReason.ALL_DONE, report.haltReason());
    }
  }

  @Test
  void at_the_cap_no_item_changes_status_without_a_job_to_show_for_it() throws Exception {
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      // Two slots: the round that starts A's scope (the cap-th phase) also picks B to start scoping.
      RunReport report = run(inProcess(twoPhases(), 0, 2, 2), List.of(item("A"), item("B")), launcher,
          RunOptions.cap(1));
      assertEquals(HaltReason.PHASE_CAP, report.haltReason());
    }
    assertEquals(List.of("A|ready", "B|new"),
        StateRows.items(dir.resolve("state")).stream().map(i -> i.id() + "|" + i.status().key()).toList(),
        "B is not taken into scoping by a run that can start no phase of it");
    assertEquals(List.of("0"), List.of(String.valueOf(jobStates(j -> j.itemId().equals("B")).size())));
  }

  @Test
  void targets_run_in_order_with_their_dependencies_and_the_run_halts_when_they_are_done() throws Exception {
    ItemFilter filter = ItemFilter.parse(List.of(), List.of("C", "A"));
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(inProcess(twoPhases(), 0, 2, 2),
          List.of(item("A"), item("B"), item("C", "D"), item("D"), item("E")), launcher, new RunOptions(100, filter));
      assertEquals(HaltReason.TARGETS_DONE, report.haltReason());
    }
    assertEquals(List.of("A|done", "B|new", "C|done", "D|done", "E|new"),
        StateRows.items(dir.resolve("state")).stream().map(i -> i.id() + "|" + i.status().key()).toList());
  }

  @Test
  void only_runs_the_matching_items_and_ends_when_they_are_finished() throws Exception {
    ItemFilter filter = ItemFilter.parse(List.of("status=new"), List.of());
    List<BacklogItem> items = List.of(item("A"), item("B", dev.orchestrate.backlog.InitialStatus.READY), item("C"));
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(inProcess(twoPhases(), 0, 2, 2), items, launcher, new RunOptions(100, filter));
      assertEquals(HaltReason.ALL_DONE, report.haltReason());
    }
    assertEquals(List.of("A|done", "B|ready", "C|done"),
        StateRows.items(dir.resolve("state")).stream().map(i -> i.id() + "|" + i.status().key()).toList());
  }

  @Test
  void a_stop_cancels_every_running_agent_and_leaves_their_items_where_they_were() throws Exception {
    Path agent = script(dir, "agent.sh", "touch \"started-$ORCHESTRATE_ITEM_ID\"\nsleep 60\n");
    Pipeline one = new Pipeline("feature", List.of(), List.of(new PhaseDef("work", "Work.", null, false)));
    Config config = concurrent(config(agent(agent), 0, one), 2, 2);
    Scheduler[] holder = new Scheduler[1];
    RunListener stopWhenBothRun = new RunListener() {
      int started;

      @Override
      public void jobStarted(ItemState item, String phase, int attempt) {
        if (++started == 2) {
          new Thread(() -> {
            for (int i = 0; i < 100 && !(java.nio.file.Files.exists(dir.resolve("started-A"))
                && java.nio.file.Files.exists(dir.resolve("started-B"))); i++) {
              sleep(50);
            }
            holder[0].requestStop();
          }).start();
        }
      }
    };
    long started = System.nanoTime();
    RunReport report;
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      holder[0] = Scheduler.builder(store.items(), config,
          new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"), item("B"))), dir.resolve("state/jobs"),
          new AgentRunner(Clock.systemUTC()), Clock.systemUTC())
          .listener(stopWhenBothRun).build();
      report = holder[0].run(100);
    }
    assertTrue(Duration.ofNanos(System.nanoTime() - started).toSeconds() < 15, "no agent was left running");
    assertEquals(HaltReason.INTERRUPTED, report.haltReason());
    assertEquals(List.of("cancelled", "cancelled"), jobStates(j -> true));
    assertEquals(List.of("in_progress|work|0", "in_progress|work|0"),
        StateRows.items(dir.resolve("state")).stream()
            .map(i -> i.status().key() + "|" + i.progress().phase() + "|" + i.progress().attempts()).toList());
    assertEquals(2, report.figures().jobTablePeakActive());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
