package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The run loop against real bash agents and a real SQLite file. */
class SchedulerTest {
  /** Appends "ITEM PHASE ATTEMPT" to calls.txt and saves each prompt as prompt-ITEM-PHASE-ATTEMPT.md. */
  private static final String RECORD = """
      echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
      cat > "prompt-$ORCHESTRATE_ITEM_ID-$ORCHESTRATE_PHASE-$ORCHESTRATE_ATTEMPT.md"
      """;

  @TempDir
  Path dir;

  private RunReport run(Config config, List<BacklogItem> items, int cap) {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      Scheduler scheduler = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), items),
          dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()), Clock.systemUTC()).build();
      return scheduler.run(cap);
    }
  }

  private List<String> calls() throws Exception {
    return Files.readAllLines(dir.resolve("calls.txt"));
  }

  /** The events of {@code kind} the runs logged, oldest first. */
  private List<Event> events(String kind) {
    return TestStores.read(dir.resolve("state"), store -> TestStores.events(store).stream()
        .map(EventLog.Entry::event).filter(e -> e.kind().equals(kind)).toList());
  }

  private List<ItemState> items() {
    return StateRows.items(dir.resolve("state"));
  }

  private ItemState stored(String id) {
    return StateRows.item(dir.resolve("state"), id);
  }

  /** Items added as follow-ups, in the order they were added. */
  private List<ItemState> followUps() {
    return items().stream().filter(i -> i.origin() != null).toList();
  }

  private List<String> statuses() {
    return items().stream().map(i -> i.status().key()).toList();
  }

  /** The states of the jobs {@code which} admits, oldest first. */
  private List<String> jobStates(java.util.function.Predicate<JobRecord> which) {
    return StateRows.jobs(dir.resolve("state")).stream().filter(which).map(j -> j.state().key()).toList();
  }

  @Test
  void items_run_through_every_phase_in_backlog_order_after_their_dependencies() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD)), 2);
    RunReport report = run(config, List.of(item("A"), item("B", "C"), item("C")), 100);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(3, report.done());
    assertEquals(3, report.doneThisRun());
    assertEquals(12, report.phasesRun());
    assertEquals(List.of(
        "A scope 1", "A design 1", "A build 1", "A review 1",
        "C scope 1", "C design 1", "C build 1", "C review 1",
        "B scope 1", "B design 1", "B build 1", "B review 1"), calls());
    assertEquals(List.of("done", "done", "done"), statuses());
  }

  @Test
  void a_failed_attempt_is_retried_with_its_failure_context_and_then_succeeds() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD + """
        if [ "$ORCHESTRATE_PHASE" = build ] && [ "$ORCHESTRATE_ATTEMPT" = 1 ]; then
          echo "error: src/Main.java:12: cannot find symbol" >&2
          exit 1
        fi
        """)), 2);
    RunReport report = run(config, List.of(item("A")), 100);

    assertEquals(1, report.done());
    assertTrue(calls().containsAll(List.of("A build 1", "A build 2")));
    String retryPrompt = Files.readString(dir.resolve("prompt-A-build-2.md"));
    assertTrue(retryPrompt.contains("## Previous Failure"), retryPrompt);
    assertTrue(retryPrompt.contains("agent exited with code 1"), retryPrompt);
    assertTrue(retryPrompt.contains("error: src/Main.java:12: cannot find symbol"), retryPrompt);
    assertTrue(retryPrompt.contains("attempt 2 of 3"), retryPrompt);
    assertEquals(List.of("failed", "completed"),
        jobStates(j -> j.itemId().equals("A") && j.phase().equals("build")));
  }

  @Test
  void exhausted_retries_block_the_item_and_the_run_goes_on_with_the_next() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD + """
        if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = design ]; then echo "no disk" >&2; exit 3; fi
        """)), 2);
    RunReport report = run(config, List.of(item("A"), item("B")), 100);

    assertEquals(1, report.done());
    assertEquals(1, report.blocked());
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    List<String> reason = List.of(stored("A").progress().blockedReason());
    assertTrue(reason.get(0).startsWith("retries exhausted in phase design after 3 attempts: agent exited with code 3"),
        reason.get(0));
    Progress a = stored("A").progress();
    assertEquals(List.of("in_progress|design"), List.of(a.blockedFrom().key() + "|" + a.phase()));
    assertEquals(3, calls().stream().filter(c -> c.startsWith("A design")).count());
  }

  @Test
  void the_circuit_breaker_halts_after_consecutive_retry_exhaustions_and_a_completed_phase_resets_it()
      throws Exception {
    // Every attempt of A, B, D and E fails; C and F succeed.
    Config config = config(agent(script(dir, "agent.sh", RECORD + """
        case "$ORCHESTRATE_ITEM_ID" in C|F) exit 0 ;; *) echo "no network" >&2; exit 1 ;; esac
        """)), 1);
    config = config.withExecution(ConfigWithers.withCircuitBreaker(config.execution(), 2));
    RunReport report = run(config, List.of(item("A"), item("C"), item("B"), item("D"), item("E"), item("F")), 100);

    assertEquals(HaltReason.CIRCUIT_BREAKER, report.haltReason());
    // A exhausted (1), C's phases reset the count, B exhausted (1), D exhausted (2): halt before E.
    assertEquals(List.of("blocked", "done", "blocked", "blocked", "new", "new"),
        statuses());
    assertEquals(1, report.doneThisRun());
  }

  @Test
  void a_dependent_of_a_blocked_item_waits_and_the_run_says_so() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD + """
        if [ "$ORCHESTRATE_ITEM_ID" = A ]; then
          printf '{"result": "blocked", "context": "which provider?"}' > "$ORCHESTRATE_RESULT_FILE"
        fi
        """)), 2);
    RunReport report = run(config, List.of(item("A"), item("B", "A")), 100);

    assertEquals(HaltReason.WAITING_ON_BLOCKED, report.haltReason());
    assertEquals(List.of("B"), report.waiting());
    assertEquals(List.of("A scope 1"), calls());
    assertEquals(List.of("agent reported blocked in phase scope: which provider?"),
        List.of(stored("A").progress().blockedReason()));
  }

  @Test
  void the_summary_of_a_phase_reaches_the_next_phase_prompt_and_subphases_rerun_the_phase() throws Exception {
    Config config = config(
        agent(script(dir, "agent.sh",
            RECORD
                + """
                    if [ "$ORCHESTRATE_PHASE" = build ] && [ "$ORCHESTRATE_ATTEMPT" = 1 ] && [ ! -f sub-done ]; then
                      touch sub-done
                      printf '{"result": "subphase_complete", "summary": "half of the build: src/a.c"}' > "$ORCHESTRATE_RESULT_FILE"
                      exit 0
                    fi
                    printf '{"result": "phase_complete", "summary": "summary of %s"}' "$ORCHESTRATE_PHASE" > "$ORCHESTRATE_RESULT_FILE"
                    """)),
        2);
    run(config, List.of(item("A")), 100);

    assertEquals(List.of("A scope 1", "A design 1", "A build 1", "A build 1", "A review 1"), calls());
    String build = Files.readString(dir.resolve("prompt-A-build-1.md"));
    // The prompt file is overwritten by the rerun: it is the second build attempt's prompt.
    assertTrue(build.contains("## Previous Phase Summary\n\nhalf of the build: src/a.c"), build);
    String review = Files.readString(dir.resolve("prompt-A-review-1.md"));
    assertTrue(review.contains("## Previous Phase Summary\n\nsummary of build"), review);
    String design = Files.readString(dir.resolve("prompt-A-design-1.md"));
    assertTrue(design.contains("summary of scope"), design);
  }

  @Test
  void a_run_stopped_by_the_cap_continues_next_time_without_repeating_completed_phases() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD)), 2);
    List<BacklogItem> items = List.of(item("A"), item("B"));

    RunReport first = run(config, items, 3);
    assertEquals(HaltReason.PHASE_CAP, first.haltReason());
    assertEquals(List.of("A scope 1", "A design 1", "A build 1"), calls());
    ItemState a = stored("A");
    assertEquals(List.of("in_progress|review"), List.of(a.status().key() + "|" + a.progress().phase()));

    RunReport second = run(config, items, 100);
    assertEquals(HaltReason.ALL_DONE, second.haltReason());
    assertEquals(2, second.done());
    assertEquals(2, second.doneThisRun(), "A and B both finish in the second run");
    assertEquals(List.of("A scope 1", "A design 1", "A build 1", "A review 1",
        "B scope 1", "B design 1", "B build 1", "B review 1"), calls());
    assertEquals(List.of("8"), List.of(String.valueOf(jobStates(j -> j.state() == JobState.COMPLETED).size())));
  }

  @Test
  void a_job_left_running_by_a_crash_is_recorded_as_interrupted_and_its_phase_runs_again() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD)), 2);
    List<BacklogItem> items = List.of(item("A"));
    run(config, items, 2); // scope and design complete
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      // What a kill -9 during "build" leaves behind: the job recorded as running.
      store.items().jobStarted(new JobStart(1, "A", "build", 1, Instant.now(), null));
    }
    RunReport report = run(config, items, 100);

    assertEquals(1, report.interruptedJobs());
    assertEquals(List.of("A scope 1", "A design 1", "A build 1", "A review 1"), calls());
    assertEquals(List.of("interrupted", "completed"),
        jobStates(j -> j.phase().equals("build")));
  }

  @Test
  void a_stop_request_cancels_the_running_agent_and_leaves_the_item_where_it_was() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD + "sleep 60\n")), 2);
    Scheduler[] holder = new Scheduler[1];
    RunListener stopOnStart = new RunListener() {
      @Override
      public void jobStarted(ItemState item, String phase, int attempt) {
        new Thread(() -> {
          sleepQuietly(300);
          holder[0].requestStop();
        }).start();
      }
    };
    long started = System.nanoTime();
    RunReport report;
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      holder[0] = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()), Clock.systemUTC())
          .listener(stopOnStart).build();
      report = holder[0].run(100);
    }
    assertTrue(Duration.ofNanos(System.nanoTime() - started).toSeconds() < 15, "the agent was not left running");
    assertEquals(HaltReason.INTERRUPTED, report.haltReason());
    assertEquals(List.of("cancelled"), jobStates(j -> true));
    assertEquals(List.of("scoping|scope|0"), items().stream()
        .map(i -> i.status().key() + "|" + i.progress().phase() + "|" + i.progress().attempts()).toList());
  }

  @Test
  void follow_ups_an_agent_reports_become_items_with_their_origin_and_run_to_done_in_the_same_run()
      throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD + """
        if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = build ]; then
          printf '{"result": "phase_complete", "follow_ups": [{"title": "Add retries", "description": "too eager"},
            {"title": "Document the flag"}]}' > "$ORCHESTRATE_RESULT_FILE"
        fi
        """)), 2);
    RunReport report = run(config, List.of(item("A"), item("B")), 100);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(4, report.doneThisRun());
    List<String> ids = items().stream().map(ItemState::id).toList();
    assertEquals(4, ids.size());
    assertEquals(List.of("A", "B"), ids.subList(0, 2));
    String retries = ids.get(2);
    assertTrue(retries.matches("A-fu-[0-9a-f]{8}"), retries);
    assertEquals(List.of("Add retries|too eager|A/build|feature|medium|done|1",
        "Document the flag||A/build|feature|medium|done|1"),
        followUps().stream().map(i -> i.definition().title() + "|" + i.definition().description() + "|" + i.origin()
            + "|" + i.definition().pipeline() + "|" + i.definition().priority().key() + "|" + i.status().key() + "|"
            + (i.inBacklog() ? 1 : 0)).toList());
    // The follow-ups run after the backlog items, in the order they were reported.
    List<String> calls = calls();
    assertEquals(retries + " scope 1", calls.get(8));
    assertEquals(16, calls.size());
    assertEquals(List.of(Map.of("status", "new", "origin", "A/build")), events("item.added").stream()
        .filter(e -> retries.equals(e.itemId())).map(Event::payload).toList());
  }

  @Test
  void a_retried_attempt_that_reports_the_same_follow_up_does_not_duplicate_it() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD + """
        if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = build ]; then
          result=failed; [ "$ORCHESTRATE_ATTEMPT" = 2 ] && result=phase_complete
          printf '{"result": "%s", "follow_ups": [{"title": "Add retries"}]}' "$result" > "$ORCHESTRATE_RESULT_FILE"
        fi
        """)), 2);
    RunReport report = run(config, List.of(item("A")), 100);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertTrue(calls().containsAll(List.of("A build 1", "A build 2")));
    assertEquals(List.of("A/build|done"), followUps().stream().map(i -> i.origin() + "|" + i.status().key()).toList());
  }

  @Test
  void a_second_run_with_the_same_backlog_keeps_the_follow_ups_and_does_not_call_them_vanished() throws Exception {
    Config config = config(agent(script(dir, "agent.sh", RECORD + """
        if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = review ]; then
          printf '{"result": "phase_complete", "follow_ups": [{"title": "Later"}]}' > "$ORCHESTRATE_RESULT_FILE"
        fi
        """)), 2);
    List<BacklogItem> items = List.of(item("A"));
    RunReport first = run(config, items, 5); // A's four phases, then the follow-up's scope
    assertEquals(HaltReason.PHASE_CAP, first.haltReason());

    RunReport second = run(config, items, 100);
    assertEquals(List.of(), second.sync().vanished());
    assertEquals(HaltReason.ALL_DONE, second.haltReason());
    assertEquals(2, second.total());
    assertEquals(2, second.done());
    assertEquals(List.of("A/review|1|done"),
        followUps().stream().map(i -> i.origin() + "|" + (i.inBacklog() ? 1 : 0) + "|" + i.status().key()).toList());
    assertEquals(List.of(), events("item.vanished"));
  }

  @Test
  void a_follow_up_whose_pipeline_left_the_config_is_blocked_with_the_reason_and_the_run_goes_on()
      throws Exception {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), Instant.now());
      long run = items.runStarted(Instant.now(), 1);
      long job = items.jobStarted(new JobStart(run, "A", "scope", 1, Instant.now(), null));
      items.jobEnded(job, new JobEnd(JobState.FAILED, "failed", 1, "boom", Instant.now()), null,
          FollowUpItem.of("A", "scope", List.of(new AgentOutcome.FollowUp("Old", "")), "retired"),
          Instant.now());
    }
    Config config = config(agent(script(dir, "agent.sh", RECORD)), 2);
    RunReport report = run(config, List.of(item("A")), 100);

    assertEquals(1, report.done());
    assertEquals(1, report.blocked());
    assertEquals(List.of("new|unknown pipeline 'retired' (the config changed since this follow-up was added)"),
        followUps().stream().map(i -> i.progress().blockedFrom().key() + "|" + i.progress().blockedReason()).toList());
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
