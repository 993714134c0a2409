package dev.orchestrate.state;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import dev.orchestrate.context.ContextSummary;
import dev.orchestrate.context.Turn;
import dev.orchestrate.context.TurnRepository;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.item.EventLog.EventCompaction;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.ReviewDecision;
import dev.orchestrate.item.RunFigures;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.memory.MemoryCompaction;
import dev.orchestrate.memory.MemoryException;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.MemoryRepository;
import dev.orchestrate.memory.NewMemory;
import dev.orchestrate.outcome.AgentOutcome.FollowUp;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.retention.Retention;
import dev.orchestrate.retention.RetentionPass;
import dev.orchestrate.retention.RetentionStore;
import dev.orchestrate.state.DashboardQueries.DashboardFilter;
import dev.orchestrate.state.DashboardQueries.Page;
import dev.orchestrate.stats.Sample;
import dev.orchestrate.stats.Spending;
import dev.orchestrate.stats.StatsInput;
import dev.orchestrate.stats.Structure;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link StateBackend} and the {@link StateStore}s it opens must do, written against the
 * port alone (no SQL, no backend class, no file of the state): a backend passes it by adding one
 * subclass that says how to make a backend over an empty state. Each test starts from a fresh,
 * empty state.
 *
 * <p>Retention is covered as the port offers it (scans from a cursor, deletes of given ids) and
 * through {@code retention/Retention}'s full pass over it; the pass's decisions have their own
 * unit tests over an in-memory store.
 */
public abstract class StateStoreContract {
  protected static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  /** A backend over a fresh, empty state kept under {@code dir} (an empty directory of its own). */
  protected abstract StateBackend backend(Path dir);

  @TempDir
  Path tmp;

  private StateBackend backend;

  @BeforeEach
  void freshBackend() {
    backend = backend(tmp.resolve("state"));
  }

  private StateStore open() {
    return backend.open(StateStore.Mode.READ_WRITE);
  }

  private StateStore openReadOnly() {
    return backend.open(StateStore.Mode.READ_ONLY);
  }

  private Path log(String name) {
    return backend.directory().jobs().resolve(name).resolve("output.log");
  }

  private static Instant at(long seconds) {
    return T0.plusSeconds(seconds);
  }

  private static BacklogItem backlogItem(String id, String title, Priority priority, List<String> tags,
      InitialStatus status) {
    return new BacklogItem(id, title, "feature", priority, List.of(), tags, "", status);
  }

  private static List<String> ids(List<ItemState> items) {
    return items.stream().map(ItemState::id).toList();
  }

  private static List<String> memoryIds(List<MemoryItem> items) {
    return items.stream().map(MemoryItem::id).toList();
  }

  private static Step to(ItemState item, Progress progress) {
    return new Step(item.with(progress), List.of(Event.statusChange(item.id(), item.status(), progress.status(),
        progress.phase(), progress.blockedReason())));
  }

  private static JobEnd completed(Instant endedAt) {
    return new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, endedAt);
  }

  private static Structure structure(StatsInput stats, String name) {
    return stats.structures().stream().filter(s -> s.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no structure " + name + " in " + stats.structures()));
  }

  // ---------------------------------------------------------------- backend

  @Test
  void a_fresh_state_does_not_exist_takes_no_bytes_and_has_no_problem() {
    assertFalse(backend.exists());
    assertEquals(0, backend.bytes());
    assertEquals(Optional.empty(), backend.problem());
    assertFalse(backend.leaseHeld());
  }

  @Test
  void a_read_write_open_creates_the_state_at_the_latest_schema() {
    try (StateStore store = open()) {
      assertEquals(store.latestSchemaVersion(), store.schemaVersion());
      assertTrue(store.latestSchemaVersion() > 0);
    }
    assertTrue(backend.exists());
    assertTrue(backend.bytes() > 0);
  }

  @Test
  void the_bytes_of_the_state_grow_as_rows_are_written() {
    open().close();
    long empty = backend.bytes();
    try (StateStore store = open()) {
      List<BacklogItem> many = IntStream.range(0, 2_000).mapToObj(i -> new BacklogItem("B" + i, "Title " + i,
          "feature", Priority.MEDIUM, List.of(), List.of(), "description ".repeat(40), InitialStatus.NEW)).toList();
      store.items().sync(many, T0);
    }
    assertTrue(backend.bytes() > empty, backend.bytes() + " bytes after writing, " + empty + " before");
  }

  @Test
  void a_read_only_store_reads_what_a_read_write_store_wrote() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A"), item("B", InitialStatus.DONE)), T0);
      store.memory().put(new NewMemory("fact", MemoryKind.SEMANTIC, "t", "the sky is blue", List.of(), null), T0);
      store.turns().appendTurn("A", "design", 1, Turn.Role.ASSISTANT, "done designing", T0);
    }
    try (StateStore store = openReadOnly()) {
      assertEquals(store.latestSchemaVersion(), store.schemaVersion());
      assertEquals(List.of("A", "B"), ids(store.items().items()));
      assertEquals(ItemStatus.DONE, store.items().item("B").orElseThrow().status());
      assertEquals(Set.of("A", "B"), store.itemIds());
      assertEquals("the sky is blue", store.memory().get("fact").orElseThrow().content());
      assertEquals(1, store.turns().lastTurnSeq("A"));
      assertEquals(List.of(new ItemHistory.KeptAnswer("design", 1, "done designing")), store.history().answers("A"));
      assertEquals(Map.of("new", 1L, "done", 1L), store.dashboard().statusCounts());
    }
  }

  @Test
  void the_dashboards_waiting_lists_are_oldest_first_and_say_which_have_a_decision_queued() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B"), item("C"), item("D"), item("E")), T0);
      Progress awaiting = new Progress(ItemStatus.AWAITING_REVIEW, "build", 0, null, null, null, "built", null);
      items.apply(to(items.item("B").orElseThrow(), awaiting), at(10));
      items.apply(to(items.item("A").orElseThrow(), awaiting), at(20));
      items.apply(to(items.item("C").orElseThrow(), awaiting), at(5));
      // a later write of an item that stays awaiting review keeps when its wait began
      items.apply(to(items.item("C").orElseThrow(), awaiting), at(30));
      Progress blocked = new Progress(ItemStatus.BLOCKED, "build", 1, "red", ItemStatus.IN_PROGRESS, null, null,
          null);
      items.apply(to(items.item("E").orElseThrow(), blocked), at(40));
      items.apply(to(items.item("D").orElseThrow(), blocked), at(50));
      items.queueDecisions(List.of(new ReviewDecision(0, "A", true, null, null, at(60))), at(60));
    }
    try (StateStore store = openReadOnly()) {
      DashboardQueries.Page<DashboardQueries.Waiting> review = store.dashboard().waiting(ItemStatus.AWAITING_REVIEW,
          2);
      assertEquals(3, review.total());
      assertEquals(List.of("C", "B"), review.rows().stream().map(w -> w.item().id()).toList(), "oldest first, 2");
      assertEquals(at(5), review.rows().get(0).since());
      assertEquals(List.of("A"), store.dashboard().waiting(ItemStatus.AWAITING_REVIEW, 10).rows().stream()
          .filter(DashboardQueries.Waiting::decisionQueued).map(w -> w.item().id()).toList());
      assertEquals(List.of("E", "D"), store.dashboard().waiting(ItemStatus.BLOCKED, 10).rows().stream()
          .map(w -> w.item().id()).toList());
    }
  }

  @Test
  void a_read_only_store_refuses_writes_and_leaves_the_state_as_it_was() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
    }
    try (StateStore store = openReadOnly()) {
      assertThrows(StoreException.class, () -> store.items().sync(List.of(item("A"), item("B")), at(1)));
      assertThrows(StoreException.class, () -> store.memory().put(memory("m", MemoryKind.SEMANTIC), at(1)));
    }
    try (StateStore store = open()) {
      assertEquals(List.of("A"), ids(store.items().items()));
      assertEquals(0, store.memory().size());
    }
  }

  @Test
  void the_ids_near_an_unknown_one_are_a_bounded_window_of_its_neighbours_in_sort_order() {
    List<BacklogItem> many = new java.util.ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      many.add(item(String.format("I%05d", i)));
    }
    try (StateStore store = open()) {
      store.items().sync(many, T0);
    }
    try (StateStore store = openReadOnly()) {
      List<String> near = store.idsNear("I0150", 5); // a typo of I01500 (a digit left out)
      assertTrue(near.size() <= 20, near.toString());
      assertTrue(near.contains("I01500"), near.toString());
      assertFalse(near.contains("I00000"), near.toString());
      assertTrue(store.idsNear("I01234", 5).contains("I01234"), "a known id is among its own neighbours");
      assertTrue(store.idsNear("i01234", 5).contains("I01234"), "and so is the upper-cased form of a lower-cased one");
    }
  }

  @Test
  void two_stores_of_one_backend_see_each_others_committed_writes() {
    try (StateStore writer = open(); StateStore reader = open()) {
      writer.items().sync(List.of(item("A")), T0);
      assertEquals(List.of("A"), ids(reader.items().items()));
      reader.memory().put(memory("fact", MemoryKind.SEMANTIC), T0);
      assertTrue(writer.memory().get("fact").isPresent());
    }
  }

  @Test
  void opening_a_fresh_state_read_only_creates_nothing() {
    try (StateStore store = openReadOnly()) {
      assertEquals(0, store.schemaVersion());
      assertEquals(List.of(), store.items().items());
      assertEquals(Set.of(), store.itemIds());
    } catch (StoreException e) {
      // a backend may refuse to open a state that does not exist; it must still create nothing
    }
    assertFalse(backend.exists());
  }

  // ---------------------------------------------------------------- lease

  @Test
  @SuppressWarnings("try") // held for the block, never read
  void a_second_lease_is_refused_while_the_first_is_held() {
    try (RunLease held = backend.acquireLease(T0)) {
      if (backend.shared()) { // runners share the state: each registers under its own id
        try (RunLease second = backend.acquireLease(at(1))) {
          assertNotNull(held.runnerId());
          assertNotNull(second.runnerId());
          assertNotEquals(held.runnerId(), second.runnerId());
        }
      } else {
        assertThrows(StateLockedException.class, () -> backend.acquireLease(at(1)));
        assertNull(held.runnerId(), "one run at a time names no runner");
      }
      assertTrue(backend.leaseHeld());
    }
  }

  @Test
  @SuppressWarnings("try")
  void a_lease_is_refused_to_another_thread_of_the_same_process() throws Exception {
    try (RunLease held = backend.acquireLease(T0)) {
      Throwable thrown = CompletableFuture.supplyAsync(() -> {
        try {
          backend.acquireLease(at(1)).close();
          return null;
        } catch (Throwable t) {
          return t;
        }
      }).get(10, TimeUnit.SECONDS);
      if (backend.shared()) {
        assertNull(thrown, "a shared state registers another runner");
      } else {
        assertTrue(thrown instanceof StateLockedException, "expected StateLockedException, got " + thrown);
      }
      assertTrue(CompletableFuture.supplyAsync(backend::leaseHeld).get(10, TimeUnit.SECONDS));
    }
  }

  @Test
  void the_lease_is_released_on_close_and_can_be_taken_again() {
    assertFalse(backend.leaseHeld());
    RunLease first = backend.acquireLease(T0);
    assertTrue(backend.leaseHeld());
    assertEquals(backend.shared(), backend.exists(), "a lease is state only where runners register in it");
    first.close();
    assertFalse(backend.leaseHeld());
    try (RunLease second = backend.acquireLease(at(1))) {
      assertTrue(backend.leaseHeld());
    }
    assertFalse(backend.leaseHeld());
  }

  @Test
  @SuppressWarnings("try")
  void a_store_can_be_opened_and_written_while_the_lease_is_held() {
    try (RunLease held = backend.acquireLease(T0); StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      assertEquals(List.of("A"), ids(store.items().items()));
    }
  }

  // ---------------------------------------------------------------- items

  @Test
  void sync_adds_new_items_in_backlog_order_with_their_initial_status() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      SyncResult result = items.sync(List.of(item("B"), item("A", InitialStatus.READY), item("C", InitialStatus.DONE),
          item("D", InitialStatus.BLOCKED)), T0);
      assertEquals(List.of("B", "A", "C", "D"), result.added());
      assertEquals(List.of(), result.vanished());
      assertEquals(List.of(), result.returned());
      List<ItemState> all = items.items();
      assertEquals(List.of("B", "A", "C", "D"), ids(all));
      assertEquals(List.of(ItemStatus.NEW, ItemStatus.READY, ItemStatus.DONE, ItemStatus.BLOCKED),
          all.stream().map(ItemState::status).toList());
      assertTrue(all.stream().allMatch(ItemState::inBacklog));
      assertTrue(all.get(0).seq() < all.get(1).seq() && all.get(2).seq() < all.get(3).seq(), "backlog order");
      assertNotNull(all.get(3).progress().blockedReason());
      assertEquals(item("B"), items.item("B").orElseThrow().definition());
      assertTrue(items.item("nope").isEmpty());
      assertTrue(items.sync(List.of(item("B"), item("A"), item("C"), item("D")), at(1)).isEmpty(), "nothing changed");
    }
  }

  @Test
  void sync_reports_vanished_and_returned_items_and_keeps_their_progress() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B")), T0);
      ItemState a = items.item("A").orElseThrow();
      items.apply(to(a, Progress.of(ItemStatus.NEW).atPhase(ItemStatus.IN_PROGRESS, "build")), T0);

      SyncResult second = items.sync(List.of(item("A", InitialStatus.DONE), item("C")), at(1));
      assertEquals(List.of("C"), second.added());
      assertEquals(List.of("B"), second.vanished());
      assertEquals(List.of(), second.returned());
      ItemState kept = items.item("A").orElseThrow();
      assertEquals(ItemStatus.IN_PROGRESS, kept.status(), "the status hint applies only when first seen");
      assertEquals("build", kept.progress().phase());
      assertFalse(items.item("B").orElseThrow().inBacklog(), "vanished, never deleted");
      assertEquals(List.of("A", "B", "C"), ids(items.items()));

      SyncResult third = items.sync(List.of(item("A"), item("B"), item("C")), at(2));
      assertEquals(List.of(), third.added());
      assertEquals(List.of("B"), third.returned());
      assertTrue(items.item("B").orElseThrow().inBacklog());
      assertEquals(List.of("A", "B", "C"), ids(items.items()), "a returned item keeps its place");
    }
  }

  @Test
  void sync_takes_the_definition_of_a_known_item_from_the_file() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      BacklogItem edited = new BacklogItem("A", "New title", "bugfix", Priority.HIGH, List.of("Z"), List.of("x"),
          "more", InitialStatus.NEW);
      store.items().sync(List.of(edited), at(1));
      assertEquals(edited, store.items().item("A").orElseThrow().definition());
    }
  }

  @Test
  void an_applied_step_is_there_after_reopening() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A", "Z")), T0);
      ItemState a = store.items().item("A").orElseThrow();
      store.items().apply(to(a, Progress.blocked(ItemStatus.IN_PROGRESS, "build", "needs a decision")), at(1));
    }
    try (StateStore store = open()) {
      ItemState a = store.items().item("A").orElseThrow();
      assertEquals(ItemStatus.BLOCKED, a.status());
      assertEquals(ItemStatus.IN_PROGRESS, a.progress().blockedFrom());
      assertEquals("build", a.progress().phase());
      assertEquals("needs a decision", a.progress().blockedReason());
      assertEquals(List.of("Z"), a.definition().dependsOn());
    }
  }

  @Test
  void applying_a_step_to_an_unknown_item_fails_and_writes_nothing() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      ItemState ghost = new ItemState(item("GHOST"), 99, true, Progress.of(ItemStatus.NEW));
      assertThrows(StoreException.class, () -> store.items().apply(to(ghost, Progress.of(ItemStatus.DONE)), at(1)));
      assertFalse(store.items().applyIf(to(ghost, Progress.of(ItemStatus.DONE)), ItemStatus.NEW, at(1)));
      ItemState a = store.items().item("A").orElseThrow();
      assertFalse(store.items().applyAllIf(List.of(to(a, Progress.of(ItemStatus.READY)),
          to(ghost, Progress.of(ItemStatus.READY))), ItemStatus.NEW, at(1)));
      assertEquals(ItemStatus.NEW, store.items().item("A").orElseThrow().status(), "all or nothing");
      assertEquals(Set.of("A"), store.itemIds());
    }
  }

  @Test
  void each_jobs_outcome_class_is_recorded_with_its_end_and_read_by_id() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      long run = store.items().runStarted(T0, 1);
      long limited = store.items().jobStarted(new JobStart(run, "A", "build", 1, T0, null));
      store.items().jobEnded(limited, new JobEnd(JobState.FAILED, "failed", 1, "You've hit your limit", at(1), 0,
          Usage.UNKNOWN, OutcomeClass.USAGE_LIMIT), null, List.of(), at(1));
      long cancelled = store.items().jobStarted(new JobStart(run, "A", "build", 1, at(2), null));
      store.items().jobEnded(cancelled, new JobEnd(JobState.CANCELLED, null, null, "cancelled", at(3)), null,
          List.of(), at(3));
      long running = store.items().jobStarted(new JobStart(run, "A", "build", 1, at(4), null));
      assertEquals(Map.of(limited, OutcomeClass.USAGE_LIMIT, cancelled, OutcomeClass.CANCELLED),
          store.items().outcomes(List.of(limited, cancelled, running)));
      assertEquals(Map.of(), store.items().outcomes(List.of()));
    }
  }

  @Test
  void each_jobs_session_and_checks_are_recorded_with_its_end_and_read_for_many_jobs_at_once() {
    long gated;
    long plain;
    long running;
    Path jobDir = backend.directory().jobs().resolve("a-build-1");
    List<CommandRun> runs = List.of(
        new CommandRun(CommandRun.Kind.SETUP, "deps", 0, CommandRun.Ending.PASSED, Duration.ofMillis(1500),
            jobDir.resolve("setup-deps.log"), "installed"),
        new CommandRun(CommandRun.Kind.GATE, "tests", 1, CommandRun.Ending.FAILED, Duration.ofMillis(3200),
            jobDir.resolve("gate-tests.log"), "FAILED test_export"),
        new CommandRun(CommandRun.Kind.GATE, "lint", null, CommandRun.Ending.TIMED_OUT, Duration.ofMinutes(10),
            null, ""));
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), T0);
      long run = items.runStarted(T0, 1);
      gated = items.jobStarted(new JobStart(run, "A", "build", 1, T0, jobDir.resolve("output.log")));
      items.jobEnded(gated, new JobEnd(JobState.FAILED, "phase_complete", 0, "gate 'tests' failed", at(20), 0,
          Usage.UNKNOWN, OutcomeClass.VERIFY_FAILED).with(new AgentSession("sess-1", AgentSession.Start.RESUMED), runs),
          null, List.of(), at(20));
      plain = items.jobStarted(new JobStart(run, "A", "build", 2, at(21), null));
      items.jobEnded(plain, completed(at(22)), null, at(22));
      running = items.jobStarted(new JobStart(run, "A", "build", 3, at(23), null));
    }
    List<CheckRecord> expected = List.of(
        new CheckRecord(CommandRun.Kind.SETUP, "deps", 0, CommandRun.Ending.PASSED, Duration.ofMillis(1500),
            "setup-deps.log"),
        new CheckRecord(CommandRun.Kind.GATE, "tests", 1, CommandRun.Ending.FAILED, Duration.ofMillis(3200),
            "gate-tests.log"),
        new CheckRecord(CommandRun.Kind.GATE, "lint", null, CommandRun.Ending.TIMED_OUT, Duration.ofMinutes(10), null));
    List<Long> all = List.of(gated, plain, running);
    try (StateStore store = openReadOnly()) {
      // Every ended job says how it began; a running one has no session yet.
      assertEquals(Map.of(gated, new AgentSession("sess-1", AgentSession.Start.RESUMED), plain, AgentSession.NONE),
          store.items().sessions(all));
      assertEquals(Map.of(gated, expected), store.items().checks(all));
      assertEquals(Map.of(gated, OutcomeClass.VERIFY_FAILED), store.items().outcomes(all));
      assertEquals(store.items().sessions(all), store.dashboard().jobSessions(all));
      assertEquals(store.items().checks(all), store.dashboard().jobChecks(all));
      assertEquals(Map.of(), store.items().checks(List.of()));
      assertEquals(Map.of(), store.items().sessions(List.of(running)));
      JobRecord job = store.history().job(gated).orElseThrow();
      assertEquals(jobDir.resolve("gate-tests.log"), expected.get(1).log(job));
      assertNull(expected.get(2).log(job), "a check without a log");
    }
  }

  @Test
  void a_session_that_fell_back_to_a_fresh_start_is_recorded_without_checks() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), T0);
      long job = items.jobStarted(new JobStart(items.runStarted(T0, 1), "A", "build", 2, T0, null));
      items.jobEnded(job, completed(at(1)).with(new AgentSession(null, AgentSession.Start.RESUME_FAILED), List.of()),
          null, at(1));
      assertEquals(Map.of(job, new AgentSession(null, AgentSession.Start.RESUME_FAILED)),
          items.sessions(List.of(job)));
      assertEquals(Map.of(), items.checks(List.of(job)));
    }
  }

  @Test
  void an_agent_profiles_pause_is_kept_replaced_and_cleared_and_survives_reopening() {
    AgentPauses.Pause limit = new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, at(3600), "resets 4am", T0, 1);
    AgentPauses.Pause unknown = new AgentPauses.Pause("codex", OutcomeClass.RATE_LIMITED, null, "429", at(1), 3);
    try (StateStore store = open()) {
      assertEquals(List.of(), store.pauses().all());
      store.pauses().put(limit);
      store.pauses().put(unknown);
      store.pauses().put(new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, at(7200), "later", T0, 2));
    }
    try (StateStore store = open()) {
      assertEquals(
          List.of(new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, at(7200), "later", T0, 2), unknown),
          store.pauses().all());
      store.pauses().clear("claude");
      store.pauses().clear("nobody");
      assertEquals(List.of(unknown), store.pauses().all());
    }
    try (StateStore store = openReadOnly()) {
      assertEquals(List.of(unknown), store.pauses().all(), "status and stats read it without writing");
    }
  }

  @Test
  void the_transition_commands_called_are_kept_per_item_and_hook_until_cleared() {
    try (StateStore store = open()) {
      assertEquals(java.util.Set.of(), store.backlogHooks().called("on_done"));
      store.backlogHooks().recordCalled("GH-1", "on_done", T0);
      store.backlogHooks().recordCalled("GH-1", "on_done", at(5)); // a second record of the same call
      store.backlogHooks().recordCalled("GH-2", "on_blocked", T0);
    }
    try (StateStore store = open()) {
      assertEquals(java.util.Set.of("GH-1"), store.backlogHooks().called("on_done"));
      store.backlogHooks().clear("GH-2", "on_blocked");
      store.backlogHooks().clear("GH-9", "on_blocked");
      assertEquals(java.util.Set.of(), store.backlogHooks().called("on_blocked"));
    }
    try (StateStore store = openReadOnly()) {
      assertEquals(java.util.Set.of("GH-1"), store.backlogHooks().called("on_done"));
    }
  }

  @Test
  void a_resumed_profiles_pause_is_removed_and_returned_and_a_profile_not_paused_changes_nothing() {
    AgentPauses.Pause claude = new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, at(3600), "resets 4am", T0, 2);
    AgentPauses.Pause codex = new AgentPauses.Pause("codex", OutcomeClass.RATE_LIMITED, at(60), "429", T0, 1);
    try (StateStore store = open()) {
      assertEquals(Optional.empty(), store.pauses().remove("claude"), "nothing paused yet");
      store.pauses().put(claude);
      store.pauses().put(codex);
      assertEquals(Optional.of(claude), store.pauses().remove("claude"));
      assertEquals(Optional.empty(), store.pauses().remove("claude"), "a second resume finds nothing");
    }
    try (StateStore store = open()) {
      assertEquals(List.of(codex), store.pauses().all(), "the other profile's pause is kept");
    }
  }

  @Test
  void each_profiles_spend_since_a_time_and_its_last_outcomes_are_read_from_its_jobs() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), T0);
      long run = items.runStarted(T0, 1);
      AgentActivity activity = store.agentActivity();
      assertEquals(Map.of(), activity.usageSince(T0));
      assertEquals(List.of(), activity.recentOutcomes("claude", 10));
      long early = items.jobStarted(new JobStart(run, "A", "build", 1, T0, null, "claude"));
      items.jobEnded(early, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, at(5), 0,
          new Usage(100L, 10L, null, null, 1.0), OutcomeClass.SUCCEEDED), null, List.of(), at(5));
      long limited = items.jobStarted(new JobStart(run, "A", "build", 2, at(10), null, "claude"));
      items.jobEnded(limited, new JobEnd(JobState.FAILED, "failed", 1, "limit", at(11), 0,
          new Usage(7L, 3L, null, null, 0.5), OutcomeClass.USAGE_LIMIT), null, List.of(), at(11));
      long codex = items.jobStarted(new JobStart(run, "A", "build", 3, at(12), null, "codex"));
      items.jobEnded(codex, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, at(13), 0,
          new Usage(40L, 2L, null, null, null), OutcomeClass.SUCCEEDED), null, List.of(), at(13));
      items.jobStarted(new JobStart(run, "A", "build", 4, at(14), null, "claude")); // running: no outcome yet

      assertEquals(Map.of("claude", new Usage(7L, 3L, null, null, 0.5), "codex", new Usage(40L, 2L, null, null, null)),
          activity.usageSince(at(6)), "a job that ended before the window is not counted; unknown cost stays null");
      assertEquals(new Usage(107L, 13L, null, null, 1.5), activity.usageSince(T0).get("claude"));
      assertEquals(List.of(new AgentActivity.Outcome(limited, "A", "build", OutcomeClass.USAGE_LIMIT, at(11)),
          new AgentActivity.Outcome(early, "A", "build", OutcomeClass.SUCCEEDED, at(5))),
          activity.recentOutcomes("claude", 10), "newest first, the running job left out");
      assertEquals(List.of(OutcomeClass.USAGE_LIMIT),
          activity.recentOutcomes("claude", 1).stream().map(AgentActivity.Outcome::outcome).toList());
      assertEquals(List.of(), activity.recentOutcomes("gemini", 10));
      assertThrows(IllegalArgumentException.class, () -> activity.recentOutcomes("claude", 0));
    }
  }

  @Test
  void a_follow_up_listed_in_the_file_takes_its_definition_and_keeps_its_origin() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      long job = store.items().jobStarted(new JobStart(store.items().runStarted(T0, 1), "A", "build", 1, T0, null));
      String id = store.items().jobEnded(job, completed(at(1)), null, followUps("A", "build", "Add retries"), at(1))
          .get(0).id();
      SyncResult listed = store.items().sync(List.of(item("A"), item(id)), at(2));
      assertEquals(List.of(), listed.added());
      ItemState followUp = store.items().item(id).orElseThrow();
      assertEquals("Title of " + id, followUp.definition().title(), "the file's definition wins");
      assertEquals("A/build", followUp.origin());
      assertEquals(List.of(), store.items().sync(List.of(item("A")), at(3)).vanished(), "dropped from the file again");
      assertTrue(store.items().item(id).orElseThrow().inBacklog());
    }
  }

  @Test
  void an_item_added_to_the_state_goes_last_once_and_a_sync_of_the_file_keeps_it() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A"), item("B")), T0);
      ItemState added = store.items().add(new FollowUpItem(item("N"), "mcp"), at(1)).orElseThrow();
      assertEquals("mcp", added.origin());
      assertEquals(ItemStatus.NEW, added.status());
      assertEquals(Optional.empty(), store.items().add(new FollowUpItem(item("A"), "mcp"), at(2)),
          "a taken id writes nothing");
      assertEquals("Title of A", store.items().item("A").orElseThrow().definition().title());
      SyncResult sync = store.items().sync(List.of(item("A"), item("B"), item("C")), at(3));
      assertEquals(List.of("C"), sync.added());
      assertEquals(List.of(), sync.vanished(), "never in the file: no news");
      assertEquals(List.of("A", "B", "N", "C"), store.items().items().stream().map(ItemState::id).toList());
      assertTrue(store.items().item("N").orElseThrow().inBacklog());
    }
  }

  @Test
  void every_progress_field_is_stored_as_given() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      Progress full = new Progress(ItemStatus.IN_PROGRESS, "review", 2, null, null, "tests failed", "designed it",
          "use the other API");
      ItemState a = store.items().item("A").orElseThrow();
      store.items().apply(new Step(a.with(full), List.of()), at(1));
      assertEquals(full, store.items().item("A").orElseThrow().progress());
    }
  }

  @Test
  void the_wait_for_a_review_starts_when_an_item_enters_awaiting_review_is_kept_and_ends_when_it_moves_on() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B")), T0);
      assertEquals(java.util.Map.of(), items.reviewWaits());
      Progress awaiting = new Progress(ItemStatus.AWAITING_REVIEW, "review", 0, null, null, null, "reviewed", null);
      items.apply(to(items.item("A").orElseThrow(), awaiting), at(10));
      items.apply(to(items.item("B").orElseThrow(), awaiting), at(20));
      assertEquals(List.of("A", "B"), List.copyOf(items.reviewWaits().keySet()));
      assertEquals(at(10), items.reviewWaits().get("A"));
      // A write that keeps it awaiting (an event, say) keeps when the wait began.
      items.apply(new Step(items.item("A").orElseThrow(), List.of()), at(30));
      assertEquals(at(10), items.reviewWaits().get("A"));
      assertEquals(awaiting, items.item("A").orElseThrow().progress());
      assertTrue(items.applyIf(to(items.item("A").orElseThrow(), Progress.of(ItemStatus.DONE)),
          ItemStatus.AWAITING_REVIEW, at(40)));
      assertEquals(java.util.Map.of("B", at(20)), items.reviewWaits());
    }
  }

  /**
   * The review decisions queued beside a run: oldest first; applied with the item change in one
   * transaction (once: a second apply finds it gone; a change that cannot be written leaves it
   * queued); dropped with an event on the item that a waiting command reads.
   */
  @Test
  void review_decisions_are_queued_in_order_applied_once_with_their_change_and_dropped_with_an_event() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B"), item("C")), T0);
      Progress awaiting = new Progress(ItemStatus.AWAITING_REVIEW, "review", 0, null, null, null, "reviewed", null);
      items.apply(to(items.item("A").orElseThrow(), awaiting), at(1));
      items.apply(to(items.item("B").orElseThrow(), awaiting), at(1));
      items.apply(to(items.item("C").orElseThrow(), awaiting), at(1));
      assertEquals(List.of(), items.reviewDecisions(10));
      List<Long> ids = items.queueDecisions(List.of(
          new dev.orchestrate.item.ReviewDecision(0, "A", true, null, null, at(2)),
          new dev.orchestrate.item.ReviewDecision(0, "B", false, "redo", "build", at(2)),
          new dev.orchestrate.item.ReviewDecision(0, "C", true, null, null, at(2))), at(2)).ids();
      List<dev.orchestrate.item.ReviewDecision> queue = items.reviewDecisions(10);
      assertEquals(ids, queue.stream().map(dev.orchestrate.item.ReviewDecision::id).toList());
      assertEquals(new dev.orchestrate.item.ReviewDecision(ids.get(1), "B", false, "redo", "build", at(2)),
          queue.get(1));
      assertEquals(1, items.reviewDecisions(1).size());

      Step done = to(items.item("A").orElseThrow(), Progress.of(ItemStatus.DONE));
      assertTrue(items.applyDecision(ids.get(0), done, at(3)));
      assertEquals(ItemStatus.DONE, items.item("A").orElseThrow().status());
      assertFalse(items.applyDecision(ids.get(0), done, at(4)), "applied once");
      // C no longer awaits review: the change is not written, and the decision stays queued.
      items.apply(to(items.item("C").orElseThrow(), Progress.of(ItemStatus.NEW)), at(4));
      Step cDone = to(items.item("C").orElseThrow(), Progress.of(ItemStatus.DONE));
      assertThrows(dev.orchestrate.item.LeaseLostException.class, () -> items.applyDecision(ids.get(2), cDone, at(5)));
      assertNotEquals(ItemStatus.DONE, items.item("C").orElseThrow().status());
      assertEquals(List.of(ids.get(1), ids.get(2)), items.reviewDecisions(10).stream()
          .map(dev.orchestrate.item.ReviewDecision::id).toList());

      assertFalse(items.decisionDropped("C", at(5)));
      items.dropDecision(queue.get(2), "it is new, no longer awaiting review", at(6));
      assertTrue(items.decisionDropped("C", at(5)));
      assertFalse(items.decisionDropped("C", at(7)), "only a drop since then");
      assertFalse(items.decisionDropped("B", at(0)));
      assertEquals(List.of(ids.get(1)), items.reviewDecisions(10).stream()
          .map(dev.orchestrate.item.ReviewDecision::id).toList());
    }
  }

  /**
   * A decision is a claim (issue 43): queued only while its item awaits review with none queued for
   * it, written at once only while none is queued; all or none; the loser learns what took the item.
   */
  @Test
  void a_decision_claims_its_items_and_a_second_one_learns_what_took_them() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B"), item("C")), T0);
      Progress awaiting = new Progress(ItemStatus.AWAITING_REVIEW, "review", 0, null, null, null, "reviewed", null);
      for (String id : List.of("A", "B", "C")) {
        items.apply(to(items.item(id).orElseThrow(), awaiting), at(1));
      }
      dev.orchestrate.item.ReviewDecision approveA = new dev.orchestrate.item.ReviewDecision(0, "A", true, null, null,
          at(2));
      dev.orchestrate.item.ReviewDecision rejectB = new dev.orchestrate.item.ReviewDecision(0, "B", false, "redo",
          "build", at(2));
      assertTrue(items.queueDecisions(List.of(approveA), at(2)).won());

      dev.orchestrate.item.ReviewQueue.Claim second = items.queueDecisions(List.of(rejectB,
          new dev.orchestrate.item.ReviewDecision(0, "A", false, "no", null, at(3))), at(3));
      assertFalse(second.won());
      assertEquals(List.of(), second.ids());
      assertEquals(List.of(new dev.orchestrate.item.ReviewQueue.Taken("A", ItemStatus.AWAITING_REVIEW, "review",
          "approve", null)), second.taken());
      assertEquals(List.of("A"), items.reviewDecisions(10).stream().map(dev.orchestrate.item.ReviewDecision::itemId)
          .toList(), "all or none: B was not queued");

      Step doneA = to(items.item("A").orElseThrow(), Progress.of(ItemStatus.DONE));
      assertEquals(List.of("A"), items.decideAllIf(List.of(doneA), ItemStatus.AWAITING_REVIEW, at(4)).stream()
          .map(dev.orchestrate.item.ReviewQueue.Taken::itemId).toList(), "a decision is queued for A");
      assertEquals(ItemStatus.AWAITING_REVIEW, items.item("A").orElseThrow().status());

      ItemState b = items.item("B").orElseThrow();
      Step doneB = new Step(b.with(Progress.of(ItemStatus.DONE)), List.of(dev.orchestrate.item.Event.statusChange("B",
          ItemStatus.AWAITING_REVIEW, ItemStatus.DONE, null, "approved")));
      assertEquals(List.of(), items.decideAllIf(List.of(doneB), ItemStatus.AWAITING_REVIEW, at(5)));
      assertEquals(ItemStatus.DONE, items.item("B").orElseThrow().status());
      Step rejectC = to(items.item("C").orElseThrow(), Progress.of(ItemStatus.READY));
      assertEquals(List.of(new dev.orchestrate.item.ReviewQueue.Taken("B", ItemStatus.DONE, null, null, "approved")),
          items.decideAllIf(List.of(rejectC, doneB), ItemStatus.AWAITING_REVIEW, at(6)), "B was decided first");
      assertEquals(ItemStatus.AWAITING_REVIEW, items.item("C").orElseThrow().status(), "all or none");
      assertEquals(List.of(new dev.orchestrate.item.ReviewQueue.Taken("B", ItemStatus.DONE, null, null, "approved")),
          items.queueDecisions(List.of(rejectB), at(7)).taken(), "nor queued once decided");
      assertEquals(List.of(), items.taken(List.of("C", "X"), ItemStatus.AWAITING_REVIEW), "unknown ids are left out");
    }
  }

  @Test
  void apply_if_writes_nothing_when_the_stored_status_differs() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A", InitialStatus.BLOCKED)), T0);
      ItemState blocked = items.item("A").orElseThrow();
      Step unblock = to(blocked, Progress.of(ItemStatus.NEW));
      assertFalse(items.applyIf(unblock, ItemStatus.DONE, at(1)));
      assertEquals(ItemStatus.BLOCKED, items.item("A").orElseThrow().status());
      assertTrue(items.applyIf(unblock, ItemStatus.BLOCKED, at(2)));
      assertEquals(ItemStatus.NEW, items.item("A").orElseThrow().status());
      assertFalse(items.applyIf(unblock, ItemStatus.BLOCKED, at(3)), "no longer blocked");
    }
  }

  @Test
  void apply_all_if_applies_every_step_or_none() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A", InitialStatus.BLOCKED), item("B", InitialStatus.BLOCKED),
          item("C", InitialStatus.DONE)), T0);
      List<Step> all = ids(items.items()).stream()
          .map(id -> to(items.item(id).orElseThrow(), Progress.of(ItemStatus.READY))).toList();

      assertFalse(items.applyAllIf(all, ItemStatus.BLOCKED, at(1)), "C is not blocked");
      assertEquals(List.of(ItemStatus.BLOCKED, ItemStatus.BLOCKED, ItemStatus.DONE),
          items.items().stream().map(ItemState::status).toList(), "nothing was applied");

      assertTrue(items.applyAllIf(all.subList(0, 2), ItemStatus.BLOCKED, at(2)));
      assertEquals(List.of(ItemStatus.READY, ItemStatus.READY, ItemStatus.DONE),
          items.items().stream().map(ItemState::status).toList());
      assertTrue(items.applyAllIf(List.of(), ItemStatus.BLOCKED, at(3)), "no steps: trivially all applied");
    }
  }

  // ---------------------------------------------------------------- jobs and runs

  private static List<FollowUpItem> followUps(String itemId, String phase, String... titles) {
    return FollowUpItem.of(itemId, phase,
        java.util.Arrays.stream(titles).map(t -> new FollowUp(t, "why: " + t)).toList(),
        "feature");
  }

  @Test
  void a_job_end_is_recorded_with_the_item_step_and_its_follow_ups() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B")), T0);
      long run = items.runStarted(T0, 42);
      long job = items.jobStarted(new JobStart(run, "A", "build", 1, at(1), log("a-build-1")));
      ItemState a = items.item("A").orElseThrow();
      List<ItemState> added = items.jobEnded(job, completed(at(4)), to(a, Progress.of(ItemStatus.DONE)),
          followUps("A", "build", "Add retries", "Docs"), at(4));

      assertEquals(2, added.size());
      assertEquals(ids(added), ids(items.items()).subList(2, 4), "appended to backlog order");
      ItemState first = items.item(added.get(0).id()).orElseThrow();
      assertEquals("A/build", first.origin());
      assertEquals("Add retries", first.definition().title());
      assertEquals("why: Add retries", first.definition().description());
      assertEquals(ItemStatus.NEW, first.status());
      assertTrue(first.inBacklog());
      assertNull(items.item("A").orElseThrow().origin());
      assertEquals(ItemStatus.DONE, items.item("A").orElseThrow().status());

      assertEquals(new JobRecord(job, run, "A", "build", 1, JobState.COMPLETED, "phase_complete", at(1), at(4), 0,
          log("a-build-1"), null), store.history().job(job).orElseThrow());

      long again = items.jobStarted(new JobStart(run, "A", "build", 2, at(5), null));
      assertEquals(List.of(), items.jobEnded(again, completed(at(6)), null, followUps("A", "build", "Add retries"),
          at(6)), "a follow-up the state knows is skipped");
      assertEquals(4, items.items().size());

      assertEquals(List.of(), items.sync(List.of(item("A"), item("B")), at(7)).vanished(),
          "follow-ups are never in the file and stay in the backlog");
      assertTrue(items.item(added.get(1).id()).orElseThrow().inBacklog());
    }
  }

  @Test
  void a_job_end_without_a_step_leaves_the_item_as_it_was() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), T0);
      long job = items.jobStarted(new JobStart(items.runStarted(T0, 1), "A", "build", 1, T0, null));
      items.jobEnded(job, new JobEnd(JobState.FAILED, "failed", 3, "boom", at(2)), null, at(2));
      assertEquals(ItemStatus.NEW, items.item("A").orElseThrow().status());
      JobRecord failed = items.recentJobs(1).get(0);
      assertEquals(JobState.FAILED, failed.state());
      assertEquals(3, failed.exitCode());
      assertEquals("boom", failed.reason());
      assertNull(failed.logPath());
    }
  }

  @Test
  void jobs_left_running_are_marked_interrupted_once() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), T0);
      long run = items.runStarted(T0, 1);
      long done = items.jobStarted(new JobStart(run, "A", "design", 1, T0, null));
      items.jobEnded(done, completed(at(1)), null, at(1));
      items.jobStarted(new JobStart(run, "A", "build", 1, at(2), null));
      items.jobStarted(new JobStart(run, "A", "build", 2, at(3), null));
      assertEquals(2, store.dashboard().runningJobs(10).size());

      assertEquals(2, items.interruptRunningJobs(at(10)));
      assertEquals(0, items.interruptRunningJobs(at(11)));
      List<JobRecord> jobs = items.recentJobs(10);
      assertEquals(List.of(JobState.INTERRUPTED, JobState.INTERRUPTED, JobState.COMPLETED),
          jobs.stream().map(JobRecord::state).toList());
      assertEquals(at(10), jobs.get(0).endedAt());
      assertEquals(List.of(), store.dashboard().runningJobs(10));
    }
  }

  @Test
  void recent_jobs_are_newest_first_within_the_limit() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B")), T0);
      assertEquals(List.of(), items.recentJobs(10));
      long run = items.runStarted(T0, 1);
      List<Long> started = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        started.add(items.jobStarted(new JobStart(run, i % 2 == 0 ? "A" : "B", "build", i + 1, at(i), null)));
      }
      List<Long> newestFirst = new ArrayList<>(started);
      java.util.Collections.reverse(newestFirst);
      assertEquals(newestFirst, items.recentJobs(10).stream().map(JobRecord::id).toList());
      assertEquals(newestFirst.subList(0, 2), items.recentJobs(2).stream().map(JobRecord::id).toList());
      JobRecord newest = items.recentJobs(1).get(0);
      assertEquals(new JobRecord(started.get(4), run, "A", "build", 5, JobState.RUNNING, null, at(4), null, null, null,
          null), newest);
    }
  }

  @Test
  void the_last_run_is_the_newest_and_its_end_is_recorded() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      assertTrue(items.lastRun().isEmpty());
      long first = items.runStarted(T0, 11);
      items.runEnded(first, at(5), "all_done");
      assertEquals(new RunRecord(first, T0, at(5), 11, "all_done"), items.lastRun().orElseThrow());
      long second = items.runStarted(at(10), 22);
      assertTrue(second != first);
      assertEquals(new RunRecord(second, at(10), null, 22, null), items.lastRun().orElseThrow());
      assertFalse(items.lastRun().orElseThrow().ended());
      assertEquals(items.lastRun(), store.dashboard().lastRun());

      items.runEnded(second, at(20), "stopped", new RunFigures(1, 4, 2, 3, 5));
      assertEquals(new RunRecord(second, at(10), at(20), 22, "stopped"), items.lastRun().orElseThrow());
      DashboardQueries.RunBounds bounds = store.dashboard().runBounds(5).get(0);
      assertEquals(new DashboardQueries.RunBounds(second, at(10), at(20).toEpochMilli(), "stopped", 4L, 1L, 2L, 3L, 5L),
          bounds);
      assertEquals(2, store.dashboard().runBounds(5).size());
      var lastRun = store.stats().read(at(30)).lastRun();
      assertEquals(second, lastRun.id());
      assertEquals(4, lastRun.summaryMapPeak());
      assertEquals(5, lastRun.jobTableFinal());
    }
  }

  @Test
  void usage_is_recorded_per_job_summed_per_item_and_over_the_lifetime() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B"), item("C")), T0);
      Spending none = store.stats().spending();
      assertEquals(0, none.jobsReported());
      assertNull(none.lastRunId());
      assertTrue(none.lifetime().isUnknown());

      long run = items.runStarted(T0, 1);
      long a1 = items.jobStarted(new JobStart(run, "A", "build", 1, T0, null));
      long a2 = items.jobStarted(new JobStart(run, "A", "build", 2, T0, null));
      long b1 = items.jobStarted(new JobStart(run, "B", "build", 1, T0, null));
      long c1 = items.jobStarted(new JobStart(run, "C", "build", 1, T0, null));
      Usage u1 = new Usage(100L, 20L, 5L, null, 0.25);
      Usage u2 = new Usage(50L, 10L, null, null, 0.5);
      Usage u3 = new Usage(7L, 3L, null, null, null);
      items.jobEnded(a1, completed(at(1)).withUsage(u1), null, at(1));
      items.jobEnded(a2, completed(at(2)).withUsage(u2), null, at(2));
      items.jobEnded(b1, completed(at(3)).withUsage(u3), null, at(3));
      items.jobEnded(c1, completed(at(4)), null, at(4));

      Map<Long, Usage> perJob = items.jobUsage(List.of(a1, a2, b1, c1));
      assertEquals(u1, perJob.get(a1));
      assertEquals(u2, perJob.get(a2));
      assertEquals(u3, perJob.get(b1));
      assertTrue(perJob.get(c1).isUnknown(), "unknown is never 0: " + perJob.get(c1));

      Map<String, Usage> perItem = items.itemUsage();
      assertEquals(u1.plus(u2), perItem.get("A"));
      assertEquals(u3, perItem.get("B"));
      assertTrue(perItem.get("C") == null || perItem.get("C").isUnknown(), String.valueOf(perItem.get("C")));

      Usage spent = u1.plus(u2).plus(u3);
      items.runSpend(run, spent, 2.0, 10_000L);
      items.runEnded(run, at(10), "all_done");
      Spending spending = store.stats().spending();
      assertEquals(spent, spending.lifetime());
      assertEquals(3, spending.jobsReported());
      assertEquals(run, spending.lastRunId());
      assertEquals(spent, spending.lastRun());
      assertEquals(2.0, spending.maxCostUsd());
      assertEquals(10_000L, spending.maxTokens());

      DashboardQueries.Spend spend = store.dashboard().runSpend(run).orElseThrow();
      assertEquals(0.75, spend.costUsd(), 1e-9);
      assertEquals(2, spend.jobsReported(), "jobs that reported a cost");
      assertEquals(2.0, spend.budgetUsd());
      Map<Long, Double> costs = store.dashboard().jobCosts(List.of(a1, a2, b1, c1));
      assertEquals(Map.of(a1, 0.25, a2, 0.5), costs);
      assertEquals(Map.of("phase_complete", 4L), store.dashboard().runJobResults(run));
    }
  }

  @Test
  void recent_usage_is_newest_first_and_usage_since_sums_the_jobs_ended_in_the_window() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), T0);
      assertEquals(List.of(), items.recentUsage(20));
      assertTrue(items.usageSince(T0).isUnknown(), "no job: nothing known, never 0");
      long run = items.runStarted(T0, 1);
      Usage u1 = new Usage(100L, 20L, null, null, 0.25);
      Usage u2 = new Usage(50L, 10L, 5L, null, 0.5);
      long j1 = items.jobStarted(new JobStart(run, "A", "build", 1, T0, null));
      items.jobEnded(j1, completed(at(10)).withUsage(u1), null, at(10));
      long j2 = items.jobStarted(new JobStart(run, "A", "build", 2, at(11), null));
      items.jobEnded(j2, completed(at(20)).withUsage(u2), null, at(20));
      long silent = items.jobStarted(new JobStart(run, "A", "build", 3, at(21), null));
      items.jobEnded(silent, completed(at(22)), null, at(22));
      items.jobStarted(new JobStart(run, "A", "build", 4, at(23), null)); // still running

      assertEquals(List.of(u2, u1), items.recentUsage(20), "jobs that reported nothing are left out");
      assertEquals(List.of(u2), items.recentUsage(1));
      assertEquals(u1.plus(u2), items.usageSince(at(10)));
      assertEquals(u2, items.usageSince(at(11)));
      Usage fromSilent = items.usageSince(at(21));
      assertTrue(fromSilent.isUnknown(), String.valueOf(fromSilent));
    }
  }

  // ---------------------------------------------------------------- memory

  private static NewMemory memory(String id, MemoryKind kind, String... tags) {
    return new NewMemory(id, kind, null, "content of " + id, List.of(tags), null);
  }

  @Test
  void put_is_an_upsert_by_id_that_keeps_the_insertion_order() {
    try (StateStore store = open()) {
      MemoryRepository memory = store.memory();
      assertTrue(memory.get("a").isEmpty());
      MemoryItem a = memory.put(memory("a", MemoryKind.EPISODIC), T0);
      assertEquals("a", a.id());
      memory.put(memory("b", MemoryKind.EPISODIC), T0);
      memory.put(new NewMemory("a", MemoryKind.SEMANTIC, "title", "new content", List.of("x"), "WRK-1"), at(1));

      assertEquals(List.of("a", "b"), memoryIds(memory.listActive(null, null)));
      assertEquals(2, memory.size());
      MemoryItem updated = memory.get("a").orElseThrow();
      assertEquals(MemoryKind.SEMANTIC, updated.kind());
      assertEquals("title", updated.title());
      assertEquals("new content", updated.content());
      assertEquals(List.of("x"), updated.tags());
      assertEquals("WRK-1", updated.sourceItem());
      assertTrue(updated.active());
      assertEquals(List.of("a"), memoryIds(memory.activeLoadBearing()));

      MemoryItem generated = memory.put(new NewMemory(null, MemoryKind.EPISODIC, null, "c", List.of(), null), T0);
      assertNotNull(generated.id());
      assertEquals(generated.id(), memory.get(generated.id()).orElseThrow().id());
      assertEquals(3, memory.size());
    }
  }

  @Test
  void list_active_filters_by_kind_and_tag_and_recent_prunable_is_newest_first() {
    try (StateStore store = open()) {
      MemoryRepository memory = store.memory();
      memory.put(memory("a", MemoryKind.EPISODIC, "db"), T0);
      memory.put(memory("b", MemoryKind.SEMANTIC, "db", "api"), T0);
      memory.put(memory("c", MemoryKind.SEMANTIC), T0);
      memory.put(memory("d", MemoryKind.EPISODIC), T0);
      memory.put(memory("e", MemoryKind.EPISODIC, MemoryItem.REJECTED_PATH), T0);
      assertEquals(List.of("b", "c"), memoryIds(memory.listActive(MemoryKind.SEMANTIC, null)));
      assertEquals(List.of("a", "b"), memoryIds(memory.listActive(null, "db")));
      assertEquals(List.of("b"), memoryIds(memory.listActive(MemoryKind.SEMANTIC, "db")));
      assertEquals(List.of("b", "c", "e"), memoryIds(memory.activeLoadBearing()));
      assertEquals(List.of("d", "a"), memoryIds(memory.recentPrunable(10)));
      assertEquals(List.of("d"), memoryIds(memory.recentPrunable(1)));
    }
  }

  @Test
  void supersede_hides_the_old_item_and_refuses_unknown_or_equal_ids() {
    try (StateStore store = open()) {
      MemoryRepository memory = store.memory();
      memory.put(memory("a", MemoryKind.SEMANTIC), T0);
      memory.put(memory("b", MemoryKind.SEMANTIC), T0);
      assertThrows(MemoryException.class, () -> memory.supersede("a", "nope", T0));
      assertThrows(MemoryException.class, () -> memory.supersede("nope", "a", T0));
      assertThrows(MemoryException.class, () -> memory.supersede("a", "a", T0));
      assertNull(memory.get("a").orElseThrow().supersededBy());

      memory.supersede("a", "b", at(1));
      assertEquals("b", memory.get("a").orElseThrow().supersededBy());
      assertEquals(List.of("b"), memoryIds(memory.listActive(null, null)));
      assertEquals(List.of("b"), memoryIds(memory.activeLoadBearing()));
      assertEquals(2, memory.size(), "superseded, not deleted");
    }
  }

  @Test
  void import_all_is_idempotent_by_id_and_size_counts_every_row() {
    List<NewMemory> all = new ArrayList<>();
    for (int i = 0; i < 1_500; i++) {
      all.add(new NewMemory("m" + i, MemoryKind.EPISODIC, null, "line " + i, List.of(), null));
    }
    // Every imported memory has an id: the caller gives it or derives it from the content (JsonLinesImport).
    try (StateStore store = open()) {
      MemoryRepository memory = store.memory();
      assertEquals(0, memory.size());
      assertEquals(1_500, memory.importAll(all.iterator(), T0));
      assertEquals(1_500, memory.size());
      List<MemoryItem> listed = memory.listActive(null, null);
      assertEquals("line 0", listed.get(0).content());
      assertEquals("line 1499", listed.get(1_499).content());

      assertEquals(1_500, memory.importAll(all.iterator(), at(1)), "written again");
      assertEquals(1_500, memory.size(), "the same ids: updated in place, nothing added");
      assertEquals(memoryIds(listed), memoryIds(memory.listActive(null, null)));

      List<NewMemory> edited = all.stream().map(m -> new NewMemory(m.id(), m.kind(), "t", m.content() + " (edited)",
          m.tags(), null)).toList();
      assertEquals(1_500, memory.importAll(edited.iterator(), at(2)));
      assertEquals(1_500, memory.size());
      assertEquals("line 7 (edited)", memory.get("m7").orElseThrow().content());
      assertEquals(memoryIds(listed), memoryIds(memory.listActive(null, null)), "the insertion order is kept");
    }
  }

  /** 5,000 memories: every 20 of them a semantic, a procedural and a rejected path; 10 episodes superseded. */
  private static final int MEMORIES = 5_000;
  private static final int SUPERSEDED = 10;

  private static List<NewMemory> manyMemories() {
    List<NewMemory> all = new ArrayList<>();
    for (int i = 0; i < MEMORIES; i++) {
      MemoryKind kind = i % 20 == 0 ? MemoryKind.SEMANTIC : i % 20 == 1 ? MemoryKind.PROCEDURAL : MemoryKind.EPISODIC;
      List<String> tags = i % 20 == 2 ? List.of(MemoryItem.REJECTED_PATH) : i % 2 == 0 ? List.of("outcome") : List.of();
      all.add(new NewMemory("m" + i, kind, null, "memory number " + i + " " + "x".repeat(200), tags, null));
    }
    return all;
  }

  /** Imports {@link #manyMemories} and supersedes the 10 oldest episodes; returns the ids in insertion order. */
  private static List<String> seedMany(MemoryRepository memory) {
    List<NewMemory> all = manyMemories();
    memory.importAll(all.iterator(), T0);
    int superseded = 0;
    for (int i = 0; superseded < SUPERSEDED; i++) {
      if (!all.get(i).isLoadBearing()) {
        memory.supersede("m" + i, "m0", T0);
        superseded++;
      }
    }
    return all.stream().map(NewMemory::id).toList();
  }

  @Test
  void compaction_at_scale_keeps_every_load_bearing_item_and_the_k_most_recent_prunable_ones() {
    int keep = 100;
    try (StateStore store = open()) {
      MemoryRepository memory = store.memory();
      seedMany(memory);
      List<MemoryItem> before = memory.listActive(null, null);
      List<String> loadBearing = before.stream().filter(MemoryItem::isLoadBearing).map(MemoryItem::id).toList();
      List<String> prunable = before.stream().filter(m -> !m.isLoadBearing()).map(MemoryItem::id).toList();
      assertEquals(750, loadBearing.size());
      assertEquals(MEMORIES - 750 - SUPERSEDED, prunable.size());

      MemoryCompaction result = memory.compact(keep, at(1));
      assertFalse(result.dryRun());
      assertEquals(prunable.size() - keep, result.deleted());
      assertEquals(loadBearing.size(), result.keptLoadBearing());
      assertEquals(keep, result.keptRecent());
      assertEquals(SUPERSEDED, result.superseded());
      assertEquals(Map.of("semantic", 250L, "procedural", 250L, "rejected-path", 250L), result.protectedBy());

      Set<String> survivors = new java.util.HashSet<>(loadBearing);
      survivors.addAll(prunable.subList(prunable.size() - keep, prunable.size()));
      List<String> expected = memoryIds(before).stream().filter(survivors::contains).toList();
      assertEquals(expected, memoryIds(memory.listActive(null, null)), "in insertion order");
      assertEquals(MEMORIES - result.deleted(), memory.size(), "superseded items are not touched");
      assertEquals("m0", memory.get("m3").orElseThrow().supersededBy());
    }
  }

  @Test
  void a_second_compaction_deletes_nothing_and_changes_nothing() {
    try (StateStore store = open()) {
      MemoryRepository memory = store.memory();
      seedMany(memory);
      assertTrue(memory.compact(100, at(1)).deleted() > 0);
      List<String> after = memoryIds(memory.listActive(null, null));
      MemoryCompaction second = memory.compact(100, at(2));
      assertEquals(0, second.deleted());
      assertEquals(100, second.keptRecent());
      assertEquals(after, memoryIds(memory.listActive(null, null)));
    }
  }

  @Test
  void keep_0_deletes_every_prunable_item_and_keeps_every_load_bearing_one() {
    try (StateStore store = open()) {
      MemoryRepository memory = store.memory();
      seedMany(memory);
      List<String> loadBearing = memoryIds(memory.activeLoadBearing());
      MemoryCompaction result = memory.compact(0, at(1));
      assertEquals(MEMORIES - 750 - SUPERSEDED, result.deleted());
      assertEquals(0, result.keptRecent());
      assertEquals(loadBearing, memoryIds(memory.listActive(null, null)));
      assertEquals(List.of(), memory.recentPrunable(10));
    }
  }

  @Test
  void preview_reports_exactly_what_compact_then_deletes_and_changes_nothing() {
    try (StateStore store = open()) {
      MemoryRepository memory = store.memory();
      seedMany(memory);
      List<String> before = memoryIds(memory.listActive(null, null));
      MemoryCompaction preview = memory.preview(100, MEMORIES);
      assertTrue(preview.dryRun());
      assertEquals(before, memoryIds(memory.listActive(null, null)), "a preview changes nothing");
      assertEquals(preview.deletedIds().subList(0, 1), memory.preview(100, 1).deletedIds(), "the sample is capped");

      MemoryCompaction done = memory.compact(100, at(1));
      assertEquals(preview.deleted(), done.deleted());
      assertEquals(preview.keptLoadBearing(), done.keptLoadBearing());
      assertEquals(preview.keptRecent(), done.keptRecent());
      assertEquals(preview.superseded(), done.superseded());
      assertEquals(preview.protectedBy(), done.protectedBy());
      List<String> after = memoryIds(memory.listActive(null, null));
      List<String> gone = before.stream().filter(id -> !after.contains(id)).toList();
      assertEquals(gone, preview.deletedIds(), "the ids that went, oldest first");
    }
  }

  // ---------------------------------------------------------------- turns

  @Test
  void turns_are_numbered_per_item_and_read_back_by_range_oldest_first() {
    try (StateStore store = open()) {
      TurnRepository turns = store.turns();
      assertEquals(0, turns.lastTurnSeq("A"));
      Turn first = turns.appendTurn("A", "design", 1, Turn.Role.USER, "Design it.", T0);
      turns.appendTurn("B", "design", 1, Turn.Role.USER, "Design B.", T0);
      turns.appendTurn("A", "design", 1, Turn.Role.ASSISTANT, "result: phase_complete", at(1));
      turns.appendTurn("A", "build", 2, Turn.Role.USER, "Build it.", at(2));

      assertEquals(1, first.seq());
      assertEquals("A", first.itemId());
      assertEquals(3, turns.lastTurnSeq("A"));
      assertEquals(1, turns.lastTurnSeq("B"));
      assertEquals(List.of(first), turns.turns("A", 0, 1));
      List<Turn> middle = turns.turns("A", 1, 3);
      assertEquals(List.of(2L, 3L), middle.stream().map(Turn::seq).toList());
      assertEquals(Turn.Role.ASSISTANT, middle.get(0).role());
      assertEquals("result: phase_complete", middle.get(0).text());
      assertEquals("build", middle.get(1).phase());
      assertEquals(2, middle.get(1).attempt());
      assertEquals(at(2), middle.get(1).at());
      assertEquals(List.of(), turns.turns("A", 3, 10));
    }
  }

  @Test
  void a_summary_replaces_the_last_one_and_pruning_deletes_only_the_turns_it_covers() {
    try (StateStore store = open()) {
      TurnRepository turns = store.turns();
      for (int i = 0; i < 5; i++) {
        turns.appendTurn("A", "build", 1, i % 2 == 0 ? Turn.Role.USER : Turn.Role.ASSISTANT, "turn " + (i + 1), at(i));
      }
      turns.appendTurn("B", "build", 1, Turn.Role.USER, "B's turn", T0);
      assertTrue(turns.summary("A").isEmpty());

      ContextSummary first = new ContextSummary("A", "- first", 1, 2, 2, "builtin", at(10), false, 2);
      turns.saveSummary(first, "summarization:complete", Map.of("turnsCondensed", 2));
      assertEquals(first, turns.summary("A").orElseThrow());
      assertEquals(5, turns.turns("A", 0, 100).size(), "saving alone deletes nothing");

      ContextSummary second = new ContextSummary("A", "- second", 1, 3, 3, "openai:m", at(20), true, 3);
      assertEquals(3, turns.saveSummaryAndPrune(second, false, "summarization:complete",
          Map.<String, Object>of("turnsCondensed", 3)));
      assertEquals(second, turns.summary("A").orElseThrow());
      assertEquals(List.of(4L, 5L), turns.turns("A", 0, 100).stream().map(Turn::seq).toList());
      assertEquals(1, turns.turns("B", 0, 100).size(), "another item's turns stay");
      assertTrue(turns.summary("B").isEmpty());

      ContextSummary all = new ContextSummary("A", "- all", 1, 5, 5, "builtin", at(30), false, 4);
      assertEquals(2, turns.saveSummaryAndPrune(all, false, "summarization:complete", Map.of()));
      assertEquals(5, turns.lastTurnSeq("A"), "numbering goes on after the pruned turns");
      assertEquals(6, turns.appendTurn("A", "review", 1, Turn.Role.USER, "Review it.", at(40)).seq());
    }
  }

  // ---------------------------------------------------------------- events

  /**
   * An item and {@code n} events of it in one step: every 50th a block (load-bearing), the others
   * routine phase results, the newest one routine. With the item's own item.added, n + 1 events.
   */
  private static int writeEvents(StateStore store, int n) {
    store.items().sync(List.of(item("A")), T0);
    ItemState a = store.items().item("A").orElseThrow();
    List<Event> events = new ArrayList<>();
    int loadBearing = 0;
    for (int i = 0; i < n; i++) {
      if (i % 50 == 0 && i < n - 1) {
        events.add(Event.statusChange("A", ItemStatus.IN_PROGRESS, ItemStatus.BLOCKED, "build", "reason " + i));
        loadBearing++;
      } else {
        events.add(new Event("A", Event.PHASE_RESULT, Map.of("phase", "build", "result", "failed", "n", i)));
      }
    }
    store.items().apply(new Step(a, events), at(1));
    return loadBearing;
  }

  @Test
  void recent_events_are_read_back_newest_first_with_their_time_item_kind_and_payload() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      Map<String, Object> payload = new LinkedHashMap<>();
      payload.put("phase", "build");
      payload.put("n", 3L);
      payload.put("ok", true);
      payload.put("none", null);
      Event result = new Event("A", Event.PHASE_RESULT, payload);
      store.items().apply(new Step(store.items().item("A").orElseThrow(), List.of(result)), at(1));
      store.turns().recordEvent("A", "summarization:complete", Map.of("turnsCondensed", 2, "degraded", false), at(2));
      store.memory().put(memory("fact", MemoryKind.SEMANTIC), at(3));

      List<EventLog.Entry> all = store.events().recent(100);
      assertEquals(List.of("memory.put", "summarization:complete", Event.PHASE_RESULT, Event.ITEM_ADDED),
          all.stream().map(e -> e.event().kind()).toList());
      assertEquals(new EventLog.Entry(at(1), result), all.get(2), "as it was written");
      assertEquals(Map.of("turnsCondensed", 2L, "degraded", false), all.get(1).event().payload(),
          "numbers read back as Long");
      assertEquals("A", all.get(1).event().itemId());
      assertEquals(at(2), all.get(1).at());
      assertNull(all.get(0).event().itemId(), "a memory change is of no item");
      assertEquals(at(3), all.get(0).at());
      assertEquals("A", all.get(3).event().itemId());
      assertEquals(all.subList(0, 2), store.events().recent(2), "at most the limit, the newest");
      assertThrows(IllegalArgumentException.class, () -> store.events().recent(0));
    }
    try (StateStore store = openReadOnly()) {
      assertEquals(4, store.events().recent(100).size(), "a read-only store reads the log");
    }
  }

  @Test
  void event_compaction_at_scale_keeps_every_load_bearing_event_and_the_newest_one() {
    try (StateStore store = open()) {
      int loadBearing = writeEvents(store, 5_000);
      long total = 5_001;
      long eventsBefore = structure(store.stats().read(at(2)), "events").rowsNow();
      assertEquals(total, eventsBefore);

      EventCompaction dry = store.events().compact(0, true);
      assertEquals(total - loadBearing - 1, dry.deleted());
      assertEquals(loadBearing + 1, dry.keptLoadBearing() + dry.keptRecent());
      assertEquals(total, structure(store.stats().read(at(2)), "events").rowsNow(), "a dry run changes nothing");

      EventCompaction done = store.events().compact(0, false);
      assertEquals(dry, done);
      Structure events = structure(store.stats().read(at(3)), "events");
      assertEquals(loadBearing + 1, events.rowsNow());
      assertEquals(done.deleted(), events.rowsPruned());

      EventCompaction again = store.events().compact(0, true);
      assertEquals(0, again.deleted(), "what is left is load-bearing or the newest");
      assertEquals(loadBearing + 1, again.keptLoadBearing() + again.keptRecent());
    }
  }

  @Test
  void event_compaction_keeps_the_k_newest_routine_events_besides_the_load_bearing_ones() {
    try (StateStore store = open()) {
      int loadBearing = writeEvents(store, 3_000);
      long total = 3_001;
      EventCompaction done = store.events().compact(100, false);
      assertEquals(total - loadBearing - 1 - 100, done.deleted());
      assertEquals(100, done.keptRecent());
      assertEquals(loadBearing + 1 + 100, structure(store.stats().read(at(2)), "events").rowsNow());
      EventCompaction again = store.events().compact(100, false);
      assertEquals(0, again.deleted());
      assertEquals(100, again.keptRecent());
      assertEquals(total - loadBearing - 1, store.events().compact(0, true).deleted() + done.deleted());
    }
  }

  @Test
  void memory_changes_and_unknown_events_are_load_bearing() {
    try (StateStore store = open()) {
      store.memory().put(memory("fact", MemoryKind.SEMANTIC), T0);
      store.turns().recordEvent("A", "webhook.delivered", Map.of("status", 200), at(1));
      for (int i = 0; i < 10; i++) {
        store.turns().recordEvent("A", "summarization:complete", Map.of("turnsCondensed", i), at(2));
      }
      store.turns().recordEvent("A", Event.PHASE_RESULT, Map.of(), at(3));
      long before = structure(store.stats().read(at(4)), "events").rowsNow();
      EventCompaction done = store.events().compact(0, false);
      assertEquals(10, done.deleted(), "the summarization events; not memory.*, the unknown kind or the newest");
      assertEquals(before - 10, structure(store.stats().read(at(4)), "events").rowsNow());
    }
  }

  // ---------------------------------------------------------------- status rows

  @Test
  void status_rows_stream_every_item_in_backlog_order_across_pages_with_what_each_row_needs() {
    int n = 2 * StatusRows.PAGE + 1;
    String late = "S" + (n - StatusRows.PAGE - 2);
    List<BacklogItem> backlog = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      // Ids sort apart from backlog order; item i waits on the one a page and a bit before it, and on an unknown id.
      backlog.add(i >= StatusRows.PAGE + 2
          ? item("S" + (n - i), "S" + (n - i + StatusRows.PAGE + 2), "GHOST")
          : item("S" + (n - i)));
    }
    try (StateStore store = open()) {
      store.items().sync(backlog, T0);
      ItemState first = store.items().item("S" + n).orElseThrow();
      store.items().apply(to(first, Progress.of(ItemStatus.DONE)), at(1));
      long run = store.items().runStarted(T0, 1);
      long job = store.items().jobStarted(new JobStart(run, late, "build", 1, at(2), null));
      store.items().jobEnded(job, completed(at(3)).withUsage(new Usage(10L, 20L, null, null, 0.5)), null, at(3));
      store.items().jobStarted(new JobStart(run, late, "build", 4, at(4), null));
      store.workspaces().save(workspace(late, "aaa111"), T0);
      store.workspaces().save(new WorkspaceRecord("S1", Path.of("/w/S1"), "orchestrate/S1", "main", Path.of("/g"),
          "base000", "bbb111", null, null, WorkspaceRecord.Integration.DEFERRED, "local changes", 1, T0, at(5), null),
          at(5));
      store.workspaces().save(new WorkspaceRecord("S10", Path.of("/w/S10"), "orchestrate/S10", "main",
          Path.of("/g"), "base000", "ccc111", null, null, WorkspaceRecord.Integration.DEFERRED, null, 1, T0, at(5),
          null), at(5));
    }
    try (StateStore store = openReadOnly()) {
      List<StatusRows.Row> rows = new ArrayList<>();
      store.statusRows().forEach(rows::add);
      assertEquals(ids(store.items().items()), rows.stream().map(r -> r.item().id()).toList());
      assertEquals(n, rows.size());
      assertEquals(ItemStatus.DONE, rows.get(0).item().status());
      assertNull(rows.get(0).latestAttempt());
      assertEquals(Usage.UNKNOWN, rows.get(0).usage());
      assertNull(rows.get(0).workspace());

      StatusRows.Row withJobs = rows.get(StatusRows.PAGE + 2);
      assertEquals(late, withJobs.item().id());
      assertEquals(4, withJobs.latestAttempt(), "the attempt of the item's latest job");
      assertEquals(Long.valueOf(10), withJobs.usage().inputTokens());
      assertEquals("aaa111", withJobs.workspace().headCommit());
      assertEquals(Map.of("S" + n, ItemStatus.DONE), withJobs.dependencies(),
          "a known dependency a page back; the unknown one absent");
      assertEquals(Map.of("S" + (n - 1), ItemStatus.NEW), rows.get(StatusRows.PAGE + 3).dependencies());
      assertEquals(Map.of(), rows.get(1).dependencies());

      List<String> deferred = new ArrayList<>();
      store.statusRows().forEachDeferred(ws -> deferred.add(ws.itemId() + ": " + ws.note()));
      assertEquals(List.of("S1: local changes"), deferred, "deferred with a note only");
    }
  }

  @Test
  void one_items_status_row_and_its_follow_ups_are_read_alone() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("AB"), item("C", "A", "NOPE")), T0);
      long run = items.runStarted(T0, 42);
      long a = items.jobStarted(new JobStart(run, "A", "build", 2, at(1), null));
      items.jobEnded(a, completed(at(2)), null, followUps("A", "build", "Add retries", "Docs"), at(2));
      long ab = items.jobStarted(new JobStart(run, "AB", "build", 1, at(3), null));
      items.jobEnded(ab, completed(at(4)), null, followUps("AB", "build", "Not A's"), at(4));
      List<StatusRows.Row> all = new ArrayList<>();
      store.statusRows().forEach(all::add);

      assertEquals(Optional.of(all.get(0)), store.statusRows().row("A"));
      assertEquals(2, store.statusRows().row("A").orElseThrow().latestAttempt());
      assertEquals(Map.of("A", ItemStatus.NEW), store.statusRows().row("C").orElseThrow().dependencies());
      assertTrue(store.statusRows().row("NOPE").isEmpty());
      List<ItemState> followUps = store.statusRows().followUps("A");
      assertEquals(List.of("A/build", "A/build"), followUps.stream().map(ItemState::origin).toList());
      assertEquals(List.of("Add retries", "Docs"), followUps.stream().map(i -> i.definition().title()).toList());
      assertEquals(List.of(), store.statusRows().followUps("C"));
    }
  }

  @Test
  void status_rows_of_a_fresh_state_are_none() {
    try (StateStore store = open()) {
      List<StatusRows.Row> rows = new ArrayList<>();
      store.statusRows().forEach(rows::add);
      store.statusRows().forEachDeferred(ws -> rows.add(null));
      assertEquals(List.of(), rows);
    }
  }

  // ---------------------------------------------------------------- workspaces

  private WorkspaceRecord workspace(String itemId, String head) {
    Path root = backend.directory().root();
    return new WorkspaceRecord(itemId, root.resolve("worktrees").resolve(itemId), "orchestrate/" + itemId, "main",
        root.resolve("repo/.git"), "base000", head, null, null, null, null, 123, T0, null, null);
  }

  @Test
  void the_reviews_sent_and_the_land_failures_are_kept_per_item_bounded_and_survive_a_second_save() {
    try (StateStore store = open()) {
      var none = dev.orchestrate.workspace.ReviewRecord.NONE;
      assertEquals(none, store.workspaces().review("A"), "no row yet");
      store.workspaces().save(workspace("A", "aaa111"), T0);
      assertEquals(none, store.workspaces().review("A"));
      var review = none.withSent(List.of("PRR_1", "sha256:00ff")).withRounds(1).withLandFailures(2);
      store.workspaces().review("A", review, T0);
      assertEquals(review, store.workspaces().review("A"));
      store.workspaces().save(workspace("A", "bbb222"), T0);
      assertEquals(review, store.workspaces().review("A"), "a save (recreation) keeps what was sent");
      List<String> many = new ArrayList<>();
      for (int i = 0; i < dev.orchestrate.workspace.ReviewRecord.MAX_SENT + 10; i++) {
        many.add("IC_" + i);
      }
      store.workspaces().review("A", review.withSent(many), T0);
      List<String> kept = store.workspaces().review("A").sent();
      assertEquals(dev.orchestrate.workspace.ReviewRecord.MAX_SENT, kept.size());
      assertEquals("IC_" + (many.size() - 1), kept.get(kept.size() - 1), "the newest kept, the oldest forgotten");
      assertEquals(none, store.workspaces().review("B"));
    }
  }

  @Test
  void where_a_worktree_and_its_work_are_is_kept_per_item_and_survives_a_second_save() {
    try (StateStore store = open()) {
      assertEquals(dev.orchestrate.workspace.WorkspacePlace.NONE, store.workspaces().place("A"), "no row yet");
      store.workspaces().save(workspace("A", "aaa111"), T0);
      assertEquals(dev.orchestrate.workspace.WorkspacePlace.NONE, store.workspaces().place("A"));
      var place = new dev.orchestrate.workspace.WorkspacePlace("build-2:/srv/a", "origin refs/orchestrate/A");
      store.workspaces().place("A", place, T0);
      assertEquals(place, store.workspaces().place("A"));
      store.workspaces().save(workspace("A", "bbb222"), T0);
      assertEquals(place, store.workspaces().place("A"), "a save (recreation) leaves it to the next place()");
      assertEquals(dev.orchestrate.workspace.WorkspacePlace.NONE, store.workspaces().place("B"));
      assertEquals(java.util.Optional.empty(), store.statusRows().holder("A"), "no runner holds it");
    }
  }

  @Test
  void a_saved_workspace_is_read_back_and_a_second_save_replaces_it() {
    try (StateStore store = open()) {
      assertTrue(store.workspaces().workspace("A").isEmpty());
      assertEquals(Map.of(), store.workspaces().all());
      WorkspaceRecord a = workspace("A", "aaa111");
      store.workspaces().save(a, T0);
      store.workspaces().save(workspace("B", "bbb111"), T0);
      assertEquals(a, store.workspaces().workspace("A").orElseThrow());
      assertEquals(Set.of("A", "B"), store.workspaces().all().keySet());

      WorkspaceRecord moved = new WorkspaceRecord("A", a.path(), a.branch(), a.baseBranch(), a.gitDir(), a.baseCommit(),
          "aaa222", null, null, WorkspaceRecord.Integration.DEFERRED, "local changes", 456, T0, at(5), at(6));
      store.workspaces().save(moved, at(6));
      assertEquals(moved, store.workspaces().workspace("A").orElseThrow());
      assertEquals(moved, store.workspaces().all().get("A"));
      assertEquals(2, store.workspaces().all().size());
      assertEquals(List.of("B"), store.workspaces().onDisk().stream().map(WorkspaceRecord::itemId).toList());
      assertEquals(Optional.of(moved), store.dashboard().workspace("A"));
    }
  }

  @Test
  void a_push_record_is_read_back_with_its_workspace_and_a_save_leaves_it() {
    try (StateStore store = open()) {
      WorkspaceRecord a = workspace("A", "aaa111");
      store.workspaces().save(a, T0);
      store.workspaces().save(workspace("B", "bbb111"), T0);
      assertEquals(dev.orchestrate.workspace.PushRecord.NONE, store.workspaces().push("A"));
      assertEquals(Map.of(), store.workspaces().pushes());
      var failed = new dev.orchestrate.workspace.PushRecord(null, null, 2, at(3));
      store.workspaces().push("A", failed, at(3));
      assertEquals(failed, store.workspaces().push("A"));
      var pushed = new dev.orchestrate.workspace.PushRecord("aaa111", "https://forge.example/pr/1", 0, at(4));
      store.workspaces().push("A", pushed, at(4));
      store.workspaces().save(workspace("A", "aaa111"), at(5)); // a save never writes the push columns
      assertEquals(pushed, store.workspaces().push("A"));
      assertEquals(pushed, store.workspaces().workspace("A").orElseThrow().push());
      assertEquals(Map.of("A", pushed), store.workspaces().pushes());
      assertEquals(pushed, store.dashboard().workspace("A").orElseThrow().push());
      assertEquals(dev.orchestrate.workspace.PushRecord.NONE, store.workspaces().workspace("B").orElseThrow().push());
    }
  }

  @Test
  void a_confirmed_phase_commit_becomes_the_head_and_is_written_on_its_job() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A"), item("B")), T0);
      long run = store.items().runStarted(T0, 1);
      long jobA = store.items().jobStarted(new JobStart(run, "A", "build", 1, T0, null));
      long jobB = store.items().jobStarted(new JobStart(run, "B", "build", 1, T0, null));
      store.workspaces().save(workspace("A", "aaa111"), T0);
      store.workspaces().save(workspace("B", "bbb111"), T0);

      store.workspaces().commitPending("A", "aaa222", jobA, 500, at(1));
      WorkspaceRecord pending = store.workspaces().workspace("A").orElseThrow();
      assertEquals("aaa111", pending.headCommit(), "not the head before its job is recorded as completed");
      assertEquals("aaa222", pending.pendingCommit());
      assertEquals(jobA, pending.pendingJobId());
      store.items().jobEnded(jobA, completed(at(2)), null, at(2));
      store.workspaces().commitConfirmed("A", at(2));
      WorkspaceRecord confirmed = store.workspaces().workspace("A").orElseThrow();
      assertEquals("aaa222", confirmed.headCommit());
      assertNull(confirmed.pendingCommit());
      assertNull(confirmed.pendingJobId());

      store.workspaces().commitPending("B", "bbb222", jobB, 500, at(3));
      assertEquals(1, store.workspaces().settlePending(at(4)), "B's job did not complete: its commit is dropped");
      assertEquals("bbb111", store.workspaces().workspace("B").orElseThrow().headCommit());
      assertNull(store.workspaces().workspace("B").orElseThrow().pendingCommit());

      assertEquals(Map.of(jobA, "aaa222"), store.workspaces().commits(List.of(jobA, jobB)));
      assertEquals(Map.of(), store.workspaces().commits(List.of()));
    }
  }

  @Test
  void a_workspace_records_head_moves_integration_its_finish_and_removal() {
    try (StateStore store = open()) {
      store.workspaces().save(workspace("A", "aaa111"), T0);
      store.workspaces().save(workspace("B", "bbb111"), T0);
      store.workspaces().save(workspace("C", "ccc111"), T0);
      store.workspaces().headMoved("A", "aaa999", at(1));
      store.workspaces().integration("A", WorkspaceRecord.Integration.CONFLICT, "src/Main.java", at(2));
      store.workspaces().finished("A", at(3), at(3));
      store.workspaces().finished("C", at(2), at(3));
      WorkspaceRecord a = store.workspaces().workspace("A").orElseThrow();
      assertEquals("aaa999", a.headCommit());
      assertEquals(WorkspaceRecord.Integration.CONFLICT, a.integration());
      assertEquals("src/Main.java", a.note());
      assertEquals(at(3), a.finishedAt());
      assertTrue(a.onDisk());
      assertEquals(List.of("C", "A", "B"), store.workspaces().onDisk().stream().map(WorkspaceRecord::itemId).toList(),
          "oldest finished first, those at work last");

      store.workspaces().finished("A", null, at(4));
      assertNull(store.workspaces().workspace("A").orElseThrow().finishedAt(), "at work again");
      store.workspaces().removed("C", at(5));
      store.workspaces().removed("C", at(6));
      assertEquals(at(5), store.workspaces().workspace("C").orElseThrow().removedAt(), "the first removal counts");
      assertEquals(List.of("A", "B"),
          store.workspaces().onDisk().stream().map(WorkspaceRecord::itemId).sorted().toList());
    }
  }

  // ---------------------------------------------------------------- stats

  @Test
  void stats_counters_follow_the_rows_written_and_pruned() {
    try (StateStore store = open()) {
      StatsInput empty = store.stats().read(T0);
      assertTrue(empty.databaseExists());
      assertEquals(0, structure(empty, "items").rowsWritten());
      assertEquals(0, structure(empty, "jobs").rowsNow());
      assertNull(empty.lastRun());

      store.items().sync(List.of(item("A"), item("B"), item("C")), T0);
      long run = store.items().runStarted(T0, 1);
      store.items().jobStarted(new JobStart(run, "A", "build", 1, T0, null));
      for (int i = 1; i <= 4; i++) {
        store.turns().appendTurn("A", "build", 1, Turn.Role.USER, "turn " + i, T0);
      }
      store.turns().saveSummaryAndPrune(new ContextSummary("A", "- s", 1, 3, 3, "builtin", T0, false, 1), false,
          "summarization:complete", Map.<String, Object>of());
      for (int i = 0; i < 5; i++) {
        store.memory().put(memory("e" + i, MemoryKind.EPISODIC), T0);
      }
      store.memory().compact(2, T0);

      StatsInput stats = store.stats().read(at(1));
      assertEquals(at(1), stats.now());
      assertEquals(3, structure(stats, "items").rowsWritten());
      assertEquals(3, structure(stats, "items").rowsNow());
      assertEquals(1, structure(stats, "jobs").rowsWritten());
      assertEquals(4, structure(stats, "turns").rowsWritten());
      assertEquals(3, structure(stats, "turns").rowsPruned());
      assertEquals(1, structure(stats, "turns").rowsNow());
      assertEquals(1, structure(stats, "summaries").rowsNow());
      assertEquals(5, structure(stats, "memory").rowsWritten());
      assertEquals(3, structure(stats, "memory").rowsPruned());
      assertEquals(2, structure(stats, "memory").rowsNow());
      assertTrue(structure(stats, "events").rowsWritten() >= 3, "at least the three item.added");
      assertEquals(run, stats.lastRun().id());
      assertEquals(stats.structures(), store.dashboard().stats(at(1)).structures());
    }
  }

  @Test
  void job_logs_memory_kept_rows_and_truncated_writes_are_counted() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      long run = store.items().runStarted(T0, 1);
      long logged = store.items().jobStarted(new JobStart(run, "A", "build", 1, T0, log("a-build-1")));
      store.items().jobStarted(new JobStart(run, "A", "build", 2, T0, null));
      store.items().jobEnded(logged, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, at(1), 2)
          .withLogBytes(4_096), null, at(1));
      store.turns().appendTurn("A", "build", 1, Turn.Role.ASSISTANT, "cut", true, at(2));
      ItemState a = store.items().item("A").orElseThrow();
      store.items().apply(new Step(a.with(Progress.of(ItemStatus.READY)), List.of(), 1), at(3));
      store.memory().put(new NewMemory("big", MemoryKind.EPISODIC, null, "x".repeat(20_000), List.of(), null).capped(),
          at(4));
      store.memory().put(memory("fact", MemoryKind.SEMANTIC), at(4));
      store.memory().put(memory("old", MemoryKind.EPISODIC), at(4));
      store.memory().supersede("old", "fact", at(5));

      StatsInput stats = store.stats().read(at(6));
      Structure logs = structure(stats, "job_logs");
      assertEquals(1, logs.rowsNow(), "the job with a log");
      assertEquals(4_096, logs.bytes());
      assertEquals(1, structure(stats, "jobs").truncatedWrites());
      assertEquals(1, structure(stats, "turns").truncatedWrites());
      assertEquals(1, structure(stats, "items").truncatedWrites());
      assertEquals(1, structure(stats, "memory").truncatedWrites());
      Structure memory = structure(stats, "memory");
      assertEquals(3, memory.rowsNow());
      assertEquals(2, memory.keptRows(), "the load-bearing fact and the superseded episode");
      assertEquals(1, memory.prunableRows());
    }
  }

  @Test
  void recorded_samples_appear_in_the_trend_and_on_the_dashboard() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A"), item("B"), item("C")), T0);
      assertEquals(0, store.stats().read(T0).trend().samples());
      assertEquals(List.of(), store.dashboard().samples(10));

      store.stats().recordSample("run", T0);
      assertEquals(0, store.stats().recordSampleIfFree("stats", at(60)), "nothing to prune under the default policy");
      var trend = store.stats().read(at(120)).trend();
      assertEquals(2, trend.samples());
      assertEquals("run", trend.oldest().source());
      assertEquals(T0, trend.oldest().at());
      assertEquals(3L, trend.oldest().rows().get("items"));
      assertEquals(2, structure(store.stats().read(at(120)), "stats_samples").rowsNow());

      List<Sample> samples = store.dashboard().samples(10);
      assertEquals(List.of("run", "stats"), samples.stream().map(Sample::source).toList());
      assertEquals(List.of(T0, at(60)), samples.stream().map(Sample::at).toList());
      assertEquals(List.of("stats"), store.dashboard().samples(1).stream().map(Sample::source).toList());
      assertEquals(1, store.stats().read(at(60).plus(java.time.Duration.ofHours(24))).trend().samples(),
          "the trend window ends 24 hours back");
    }
  }

  // ---------------------------------------------------------------- history

  @Test
  void item_history_lists_the_landing_attempts_newest_first_with_what_was_gated() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B")), T0);
      ItemState a = items.item("A").orElseThrow();
      Map<String, Object> red = new java.util.LinkedHashMap<>();
      red.put("message", "integration gate tests failed");
      red.put("round", 1);
      red.put("base_commit", "b".repeat(40));
      red.put("tested_commit", "t".repeat(40));
      red.put("gates", "tests exited 1 2.0 s");
      red.put("gates_ms", 2000);
      items.apply(new Step(a, List.of(new Event("A", "workspace.integration_failed", red))), at(1));
      items.apply(new Step(a, List.of(new Event("A", "item.status", Map.of("from", "landing", "to", "in_progress")),
          new Event("A", "workspace.deferred", Map.of("message", "a lock")))), at(2));
      items.apply(new Step(a, List.of(new Event("A", "workspace.integrated", Map.of("message", "landed")))), at(3));

      List<ItemHistory.Landing> landings = store.history().landings("A", 10);
      assertEquals(List.of("integrated", "deferred", "integration_failed"),
          landings.stream().map(ItemHistory.Landing::result).toList(), "newest first, status changes left out");
      assertEquals(new ItemHistory.Landing(at(1), "integration_failed", "integration gate tests failed", 1L,
          "b".repeat(40), "t".repeat(40), "tests exited 1 2.0 s", 2000L), landings.get(2));
      assertEquals(new ItemHistory.Landing(at(3), "integrated", "landed", null, null, null, null, null),
          landings.get(0));
      assertEquals(2, store.history().landings("A", 2).size(), "at most the limit");
      assertEquals(List.of(), store.history().landings("B", 10));
    }
  }

  @Test
  void item_history_lists_jobs_oldest_first_and_the_latest_job_of_each_item() {
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B"), item("C")), T0);
      assertEquals(Map.of(), store.history().latestJobs());
      long run = items.runStarted(T0, 1);
      long a1 = items.jobStarted(new JobStart(run, "A", "design", 1, at(1), log("a-design-1")));
      items.jobEnded(a1, completed(at(2)), null, at(2));
      long b1 = items.jobStarted(new JobStart(run, "B", "design", 1, at(3), null));
      long a2 = items.jobStarted(new JobStart(run, "A", "build", 1, at(4), null));

      assertEquals(List.of(a1, a2), store.history().jobs("A").stream().map(JobRecord::id).toList());
      assertEquals(List.of(), store.history().jobs("C"));
      assertEquals(new JobRecord(a1, run, "A", "design", 1, JobState.COMPLETED, "phase_complete", at(1), at(2), 0,
          log("a-design-1"), null), store.history().job(a1).orElseThrow());
      assertTrue(store.history().job(a2 + 1000).isEmpty());
      Map<String, JobRecord> latest = store.history().latestJobs();
      assertEquals(Set.of("A", "B"), latest.keySet());
      assertEquals(a2, latest.get("A").id());
      assertEquals(b1, latest.get("B").id());

      assertEquals(List.of(a2, a1), store.dashboard().itemJobs("A", 10).stream().map(JobRecord::id).toList());
      assertEquals(List.of(a2), store.dashboard().itemJobs("A", 1).stream().map(JobRecord::id).toList());
      assertEquals(store.history().job(a1), store.dashboard().job(a1));
      assertEquals(Map.of("A", 1, "B", 1), store.dashboard().latestAttempts(List.of("A", "B", "C")));
    }
  }

  @Test
  void answers_are_the_assistant_turns_oldest_first_and_the_summary_is_read_back() {
    try (StateStore store = open()) {
      TurnRepository turns = store.turns();
      turns.appendTurn("A", "design", 1, Turn.Role.USER, "Design it.", T0);
      turns.appendTurn("A", "design", 1, Turn.Role.ASSISTANT, "designed", at(1));
      turns.appendTurn("A", "build", 1, Turn.Role.USER, "Build it.", at(2));
      turns.appendTurn("A", "build", 1, Turn.Role.ASSISTANT, "failed: tests", at(3));
      turns.appendTurn("A", "build", 2, Turn.Role.ASSISTANT, "built", at(4));
      turns.appendTurn("B", "design", 1, Turn.Role.ASSISTANT, "B designed", at(5));

      List<ItemHistory.KeptAnswer> answers = List.of(new ItemHistory.KeptAnswer("design", 1, "designed"),
          new ItemHistory.KeptAnswer("build", 1, "failed: tests"), new ItemHistory.KeptAnswer("build", 2, "built"));
      assertEquals(answers, store.history().answers("A"));
      assertEquals(answers.subList(1, 3), store.dashboard().answers("A", 2), "the last ones, oldest first");
      assertEquals(List.of(), store.history().answers("C"));

      assertTrue(store.history().contextSummary("A").isEmpty());
      turns.saveSummary(new ContextSummary("A", "- designed it", 1, 2, 2, "builtin", at(6), false, 3),
          "summarization:complete", Map.<String, Object>of());
      assertEquals("- designed it", store.history().contextSummary("A").orElseThrow());
      assertEquals("- designed it", store.dashboard().contextSummary("A").orElseThrow());
    }
  }

  // ---------------------------------------------------------------- dashboard

  /** I01..I25: every 5th done, the others new; every 3rd high priority; even ones tagged; I07 about the login. */
  private static List<BacklogItem> pagedBacklog() {
    List<BacklogItem> backlog = new ArrayList<>();
    for (int i = 1; i <= 25; i++) {
      backlog.add(backlogItem(String.format("I%02d", i), i == 7 ? "Fix the Login page" : "Task " + i,
          i % 3 == 0 ? Priority.HIGH : Priority.MEDIUM, i % 2 == 0 ? List.of("even") : List.of(),
          i % 5 == 0 ? InitialStatus.DONE : InitialStatus.NEW));
    }
    return backlog;
  }

  private static List<String> range(int... numbers) {
    return java.util.Arrays.stream(numbers).mapToObj(i -> String.format("I%02d", i)).toList();
  }

  @Test
  void the_dashboard_reads_a_state_at_the_latest_schema() {
    try (StateStore store = open()) {
      assertTrue(store.dashboard().readable());
    }
    try (StateStore store = openReadOnly()) {
      assertTrue(store.dashboard().readable());
    }
  }

  @Test
  void status_counts_cover_every_status_held() {
    try (StateStore store = open()) {
      assertEquals(Map.of(), store.dashboard().statusCounts());
      store.items().sync(pagedBacklog(), T0);
      assertEquals(Map.of("new", 20L, "done", 5L), store.dashboard().statusCounts());
      ItemState i01 = store.items().item("I01").orElseThrow();
      store.items().apply(to(i01, Progress.blocked(ItemStatus.NEW, null, "stuck")), at(1));
      assertEquals(Map.of("new", 19L, "done", 5L, "blocked", 1L), store.dashboard().statusCounts());
      assertEquals(1, store.dashboard().itemsFinishedSince(at(1)), "I01 was blocked at 1s");
      assertEquals(0, store.dashboard().itemsFinishedSince(at(2)));
    }
  }

  @Test
  void items_are_paged_in_backlog_order_under_a_filter() {
    try (StateStore store = open()) {
      store.items().sync(pagedBacklog(), T0);
      DashboardQueries dashboard = store.dashboard();
      DashboardFilter all = new DashboardFilter(null, null, null, null);

      Page<ItemState> first = dashboard.items(all, 10, 0);
      assertEquals(25, first.total());
      assertEquals(range(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), ids(first.rows()));
      Page<ItemState> last = dashboard.items(all, 10, 20);
      assertEquals(25, last.total());
      assertEquals(range(21, 22, 23, 24, 25), ids(last.rows()));
      assertEquals(List.of(), ids(dashboard.items(all, 10, 30).rows()));

      Page<ItemState> newAndEven = dashboard.items(new DashboardFilter("new", null, "even", null), 4, 4);
      assertEquals(10, newAndEven.total());
      assertEquals(range(12, 14, 16, 18), ids(newAndEven.rows()));
      Page<ItemState> high = dashboard.items(new DashboardFilter(null, "high", null, null), 100, 0);
      assertEquals(range(3, 6, 9, 12, 15, 18, 21, 24), ids(high.rows()));
      assertEquals(8, high.total());
      Page<ItemState> done = dashboard.items(new DashboardFilter("done", "high", null, null), 100, 0);
      assertEquals(range(15), ids(done.rows()));
      Page<ItemState> login = dashboard.items(new DashboardFilter(null, null, null, "login"), 100, 0);
      assertEquals(range(7), ids(login.rows()));
      assertEquals(1, login.total());
      Page<ItemState> none = dashboard.items(new DashboardFilter("blocked", null, null, null), 100, 0);
      assertEquals(0, none.total());
      assertEquals(List.of(), none.rows());
      assertEquals(store.items().item("I07"), dashboard.item("I07"));
      assertTrue(dashboard.item("nope").isEmpty());
    }
  }

  @Test
  void a_filter_no_index_answers_counts_up_to_the_cap_and_says_more_than_past_it() {
    try (StateStore store = open()) {
      store.items().sync(pagedBacklog(), T0);
      // A changed row moves in PostgreSQL's heap: the scan's order is not the backlog's.
      ItemState i02 = store.items().item("I02").orElseThrow();
      store.items().apply(to(i02, Progress.blocked(ItemStatus.NEW, null, "stuck")), at(1));
      DashboardQueries dashboard = store.dashboard();
      DashboardFilter medium = new DashboardFilter(null, "medium", null, null); // 17 of the 25

      Page<ItemState> first = dashboard.items(medium, 4, 0, 5);
      assertEquals(range(1, 2, 4, 5), ids(first.rows()));
      assertEquals(new Page<>(first.rows(), 5, true), first, "more than the cap of 5");
      Page<ItemState> deeper = dashboard.items(medium, 4, 8, 5);
      assertEquals(range(13, 14, 16, 17), ids(deeper.rows()));
      assertEquals(12, deeper.total(), "more than the rows up to this page's end");
      assertTrue(deeper.moreThan());
      Page<ItemState> last = dashboard.items(medium, 4, 16, 5);
      assertEquals(new Page<>(last.rows(), 17, false), last, "the last page ends the list: exact");
      assertEquals(range(25), ids(last.rows()));
      Page<ItemState> beyond = dashboard.items(medium, 4, 40, 5);
      assertEquals(new Page<ItemState>(List.of(), 5, true), beyond);

      Page<ItemState> uncapped = dashboard.items(medium, 4, 4, 17);
      assertEquals(new Page<>(uncapped.rows(), 17, false), uncapped, "as many as the cap: counted exactly");
      assertEquals(range(7, 8, 10, 11), ids(uncapped.rows()));
      assertEquals(new Page<ItemState>(List.of(), 17, false), dashboard.items(medium, 4, 20, 17));
      Page<ItemState> even = dashboard.items(new DashboardFilter(null, null, "even", null), 3, 9, 1000);
      assertEquals(new Page<>(even.rows(), 12, false), even);
      assertEquals(range(20, 22, 24), ids(even.rows()));
      assertEquals(new Page<ItemState>(List.of(), 0, false),
          dashboard.items(new DashboardFilter(null, null, "odd", null), 3, 0, 1000));
    }
  }

  @Test
  void a_tag_matches_whole_tags_only_whatever_characters_it_holds() {
    try (StateStore store = open()) {
      store.items().sync(List.of(
          backlogItem("A", "t7 in the title", Priority.LOW, List.of("t70", "x t7"), InitialStatus.NEW),
          backlogItem("B", "b", Priority.LOW, List.of("t7"), InitialStatus.NEW),
          backlogItem("C", "c", Priority.LOW, List.of("say \"hi\"", "back\\slash", "café", "a/b"), InitialStatus.NEW),
          backlogItem("D", "d", Priority.LOW, List.of("hi", "slash", "caf"), InitialStatus.NEW)), T0);
      DashboardQueries dashboard = store.dashboard();
      for (String tag : List.of("t7", "say \"hi\"", "back\\slash", "café", "a/b", "x t7", "caf", "hi")) {
        List<String> expected = switch (tag) {
          case "t7" -> List.of("B");
          case "x t7" -> List.of("A");
          case "caf", "hi" -> List.of("D");
          default -> List.of("C");
        };
        assertEquals(expected, ids(dashboard.items(new DashboardFilter(null, null, tag, null), 10, 0).rows()), tag);
      }
      assertEquals(List.of(), ids(dashboard.items(new DashboardFilter(null, null, "\"t7\"", null), 10, 0).rows()));
      assertEquals(List.of(), ids(dashboard.items(new DashboardFilter(null, null, "t", null), 10, 0).rows()));
    }
  }

  @Test
  void the_text_filter_ignores_case_and_takes_wildcards_and_backslashes_as_they_are() {
    try (StateStore store = open()) {
      store.items().sync(List.of(backlogItem("SALE", "50% off_now", Priority.LOW, List.of(), InitialStatus.NEW),
          backlogItem("PARSE", "Fix the Parser", Priority.LOW, List.of(), InitialStatus.NEW),
          backlogItem("XZY", "xzy and 50 offs", Priority.LOW, List.of(), InitialStatus.NEW),
          backlogItem("PATH", "C:\\Temp\\new", Priority.LOW, List.of(), InitialStatus.NEW)), T0);
      DashboardQueries dashboard = store.dashboard();
      assertEquals(List.of("SALE"),
          ids(dashboard.items(new DashboardFilter(null, null, null, "% OFF_"), 10, 0).rows()));
      assertEquals(List.of("PARSE"),
          ids(dashboard.items(new DashboardFilter(null, null, null, "parser"), 10, 0).rows()));
      assertEquals(List.of(), ids(dashboard.items(new DashboardFilter(null, null, null, "x_y"), 10, 0).rows()));
      assertEquals(List.of("PATH"),
          ids(dashboard.items(new DashboardFilter(null, null, null, "\\temp\\"), 10, 0).rows()));
      assertEquals(List.of("XZY"), ids(dashboard.items(new DashboardFilter(null, null, null, "xz"), 10, 0).rows()));
      assertEquals(List.of("PARSE", "PATH"),
          ids(dashboard.items(new DashboardFilter(null, null, null, "pa"), 10, 0).rows()),
          "ids match too");
      // No letter to fold: a plain substring test, wildcards still literal.
      assertEquals(List.of("SALE"), ids(dashboard.items(new DashboardFilter(null, null, null, "50%"), 10, 0).rows()));
      assertEquals(List.of("SALE", "XZY"),
          ids(dashboard.items(new DashboardFilter(null, null, null, "50"), 10, 0).rows()));
      assertEquals(List.of("PATH"), ids(dashboard.items(new DashboardFilter(null, null, null, ":\\"), 10, 0).rows()));
      assertEquals(List.of(), ids(dashboard.items(new DashboardFilter(null, null, null, "_%"), 10, 0).rows()));
    }
  }

  @Test
  void jobs_are_paged_newest_first_by_id() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
      assertEquals(new Page<JobRecord>(List.of(), 0), store.dashboard().jobs(Long.MAX_VALUE, 3));
      long run = store.items().runStarted(T0, 1);
      List<Long> ids = new ArrayList<>();
      for (int i = 1; i <= 7; i++) {
        ids.add(store.items().jobStarted(new JobStart(run, "A", "build", i, at(i), null)));
      }
      Page<JobRecord> first = store.dashboard().jobs(Long.MAX_VALUE, 3);
      assertEquals(7, first.total());
      assertEquals(List.of(ids.get(6), ids.get(5), ids.get(4)), first.rows().stream().map(JobRecord::id).toList());
      Page<JobRecord> second = store.dashboard().jobs(ids.get(4), 3);
      assertEquals(7, second.total());
      assertEquals(List.of(ids.get(3), ids.get(2), ids.get(1)), second.rows().stream().map(JobRecord::id).toList());
      Page<JobRecord> third = store.dashboard().jobs(ids.get(1), 3);
      assertEquals(List.of(ids.get(0)), third.rows().stream().map(JobRecord::id).toList());
      assertEquals(store.items().recentJobs(7), store.dashboard().jobs(Long.MAX_VALUE, 7).rows());
    }
  }

  @Test
  void follow_ups_of_an_item_are_listed_on_the_dashboard() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A"), item("AB")), T0);
      long run = store.items().runStarted(T0, 1);
      long job = store.items().jobStarted(new JobStart(run, "A", "build", 1, T0, null));
      List<ItemState> added = store.items().jobEnded(job, completed(at(1)), null,
          followUps("A", "build", "One", "Two"), at(1));
      long other = store.items().jobStarted(new JobStart(run, "AB", "build", 1, T0, null));
      store.items().jobEnded(other, completed(at(2)), null, followUps("AB", "build", "Three"), at(2));
      assertEquals(ids(added), ids(store.dashboard().followUps("A", 10)));
      assertEquals(ids(added).subList(0, 1), ids(store.dashboard().followUps("A", 1)));
      assertEquals(1, store.dashboard().followUps("AB", 10).size());
      // Ids are compared exactly, on every backend: another case, or _ and % are no wildcards.
      store.items().sync(List.of(item("a"), item("A_B")), T0);
      long lower = store.items().jobStarted(new JobStart(run, "a", "build", 1, T0, null));
      store.items().jobEnded(lower, completed(at(3)), null, followUps("a", "build", "Four"), at(3));
      assertEquals(ids(added), ids(store.dashboard().followUps("A", 10)));
      assertEquals(1, store.dashboard().followUps("a", 10).size());
      assertEquals(0, store.dashboard().followUps("A_B", 10).size());
      assertEquals(0, store.dashboard().followUps("A%", 10).size());
    }
  }

  @Test
  void the_memory_view_shows_load_bearing_items_recent_episodes_and_the_compaction_preview() {
    try (StateStore store = open()) {
      for (int i = 0; i < 6; i++) {
        store.memory().put(memory("e" + i, MemoryKind.EPISODIC), T0);
      }
      store.memory().put(memory("fact", MemoryKind.SEMANTIC), T0);
      DashboardQueries.MemoryView view = store.dashboard().memory(2, 3);
      assertEquals(List.of("fact"), memoryIds(view.loadBearing()));
      assertEquals(List.of("e5", "e4", "e3"), memoryIds(view.recentEpisodic()));
      assertEquals(4, view.preview().deleted());
      assertTrue(view.preview().dryRun());
      assertEquals(2, view.keepRecent());
      assertEquals(6, store.memory().recentPrunable(10).size(), "the view changes nothing");
      assertEquals(store.recordedPolicies().memoryKeepRecent(), store.dashboard().recordedKeepRecent());
    }
  }

  // ---------------------------------------------------------------- the store

  @Test
  void item_ids_hold_every_item_the_state_knows() {
    try (StateStore store = open()) {
      assertEquals(Set.of(), store.itemIds());
      store.items().sync(List.of(item("A"), item("B")), T0);
      long job = store.items().jobStarted(new JobStart(store.items().runStarted(T0, 1), "A", "build", 1, T0, null));
      String followUp = store.items().jobEnded(job, completed(at(1)), null, followUps("A", "build", "More"), at(1))
          .get(0).id();
      store.items().sync(List.of(item("A")), at(2));
      assertEquals(Set.of("A", "B", followUp), store.itemIds(), "vanished and follow-up items included");
    }
  }

  @Test
  void a_fresh_state_has_nothing_recorded_and_takes_the_default_policies() {
    try (StateStore store = open()) {
      RecordedPolicies policies = store.recordedPolicies();
      assertTrue(policies.nothingRecorded(), String.valueOf(policies));
      assertEquals(dev.orchestrate.config.RetentionConfig.defaults().jobs(), policies.retention().jobs());
      assertEquals(dev.orchestrate.config.RetentionConfig.defaults().events(), policies.retention().events());
    }
  }

  @Test
  void vacuum_reports_the_bytes_before_and_after_and_shrinks_the_state_after_a_large_delete() {
    try (StateStore store = open()) {
      List<NewMemory> big = new ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        big.add(new NewMemory("m" + i, MemoryKind.EPISODIC, null, "y".repeat(1_000) + i, List.of(), null));
      }
      store.memory().importAll(big.iterator(), T0);
      assertEquals(2_990, store.memory().compact(10, at(1)).deleted());
      StateStore.Vacuum vacuum = store.vacuum();
      assertTrue(vacuum.bytesBefore() > 0, String.valueOf(vacuum));
      assertTrue(vacuum.bytesAfter() > 0, String.valueOf(vacuum));
      assertTrue(vacuum.bytesAfter() < vacuum.bytesBefore(), String.valueOf(vacuum));
      assertEquals(10, store.memory().listActive(null, null).size(), "live data stays");
    }
  }

  @Test
  void a_maintenance_store_reads_and_writes_the_same_state() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A")), T0);
    }
    try (StateStore store = backend.open(StateStore.Mode.MAINTENANCE)) {
      assertEquals(List.of("A"), ids(store.items().items()));
      assertEquals(1_000, store.memory().importAll(IntStream.range(0, 1_000)
          .mapToObj(i -> memory("m" + i, MemoryKind.EPISODIC)).iterator(), T0));
      assertEquals(990, store.memory().compact(10, at(1)).deleted());
    }
    try (StateStore store = openReadOnly()) {
      assertEquals(10, store.memory().listActive(null, null).size());
    }
  }

  // Retention: what the store offers a pass and what it deletes; the decisions are retention/Retention's.

  @Test
  void an_event_scan_offers_routine_events_oldest_first_never_a_load_bearing_one_nor_the_newest() {
    try (StateStore store = open()) {
      int loadBearing = writeEvents(store, 1_000);
      RetentionStore retention = store.retention();
      List<RetentionStore.Row> rows = retention.scan(StructureName.EVENTS, 0, 10_000);

      assertEquals(1_001 - loadBearing - 1, rows.size(), "every routine event but the newest");
      assertTrue(rows.stream().allMatch(RetentionStore.Row::prunable));
      for (int i = 1; i < rows.size(); i++) {
        assertTrue(rows.get(i).id() > rows.get(i - 1).id(), "oldest first, by id");
      }
      assertEquals(rows.subList(10, 15), retention.scan(StructureName.EVENTS, rows.get(9).id(), 5),
          "from after the cursor, at most the limit");
      assertEquals(1_001 - loadBearing, retention.prunableRows(StructureName.EVENTS),
          "the rows its limit is about: load-bearing events are not counted");
    }
  }

  @Test
  void a_delete_removes_exactly_the_ids_given_and_saves_the_cursor_in_one_step() {
    try (StateStore store = open()) {
      writeEvents(store, 100);
      RetentionStore retention = store.retention();
      List<RetentionStore.Row> rows = retention.scan(StructureName.EVENTS, 0, 10);
      long before = retention.prunableRows(StructureName.EVENTS);

      assertEquals(10, retention.delete(StructureName.EVENTS, rows.stream().map(RetentionStore.Row::id).toList(),
          rows.get(9).id(), at(100)));
      assertEquals(rows.get(9).id(), retention.cursor(StructureName.EVENTS));
      assertEquals(before - 10, retention.prunableRows(StructureName.EVENTS));
      assertEquals(0, retention.delete(StructureName.EVENTS, List.of(rows.get(0).id()), 0, at(101)),
          "an id already gone deletes nothing");
      Structure events = structure(store.stats().read(at(102)), "events");
      assertEquals(10, events.rowsPruned());
      assertEquals(at(100), events.lastPrunedAt(), "the prune is recorded when a row went, not after");

      retention.resetCursors();
      assertEquals(0, retention.cursor(StructureName.EVENTS));
    }
  }

  @Test
  void a_running_job_is_never_offered_as_prunable_and_a_deleted_job_takes_its_log_directory_with_it()
      throws Exception {
    Path ended = log("run1-0001-A-build-1");
    Files.createDirectories(ended.getParent());
    Files.writeString(ended, "output");
    try (StateStore store = open()) {
      StateRepository items = store.items();
      items.sync(List.of(item("A"), item("B")), T0);
      long run = items.runStarted(T0, 1);
      long done = items.jobStarted(new JobStart(run, "A", "build", 1, at(1), ended));
      items.jobEnded(done, completed(at(2)), null, at(2));
      long running = items.jobStarted(new JobStart(run, "B", "build", 1, at(3), null));
      RetentionStore retention = store.retention();

      List<RetentionStore.Row> rows = retention.scan(StructureName.JOBS, 0, 10);
      assertEquals(List.of(done, running), rows.stream().map(RetentionStore.Row::id).toList());
      assertTrue(rows.get(0).prunable());
      assertFalse(rows.get(1).prunable(), "a running job");
      assertEquals(at(2).toEpochMilli(), rows.get(0).at(), "an ended job's age is its end");

      assertEquals(1, retention.delete(StructureName.JOBS, List.of(done), 0, at(10)));
      assertFalse(Files.exists(ended.getParent()), "the log directory went with its row");
      assertEquals(List.of(running), items.recentJobs(10).stream().map(JobRecord::id).toList());
    }
  }

  @Test
  void a_turn_scan_offers_covered_turns_as_prunable_and_a_finished_items_uncovered_ones_as_condensable() {
    try (StateStore store = open()) {
      store.items().sync(List.of(item("A"), item("B")), T0);
      TurnRepository turns = store.turns();
      for (int i = 0; i < 4; i++) {
        turns.appendTurn("A", "design", 1, Turn.Role.USER, "A " + i, at(i));
        turns.appendTurn("B", "design", 1, Turn.Role.USER, "B " + i, at(i));
      }
      turns.saveSummary(new ContextSummary("A", "- two", 1, 2, 2, "builtin", at(10), false, 1),
          "summarization:complete", Map.of());
      ItemState a = store.items().item("A").orElseThrow();
      store.items().apply(to(a, Progress.of(ItemStatus.DONE)), at(11));

      List<RetentionStore.Row> rows = store.retention().scan(StructureName.TURNS, 0, 100);
      assertEquals(8, rows.size());
      long prunable = rows.stream().filter(RetentionStore.Row::prunable).count();
      assertEquals(2, prunable, "A's two turns its summary covers");
      assertEquals(List.of("A", "A"), rows.stream().filter(r -> !r.prunable() && r.condensable() != null)
          .map(RetentionStore.Row::condensable).toList(), "A is done: its uncovered turns are condensed first");
      assertEquals(4, rows.stream().filter(r -> !r.prunable() && r.condensable() == null).count(),
          "B is active: the sliding window keeps its turns");
    }
  }

  @Test
  void a_full_retention_of_5000_events_keeps_its_target_every_load_bearing_event_and_the_newest() {
    try (StateStore store = open()) {
      int loadBearing = writeEvents(store, 5_000);
      RetentionConfig config = new RetentionConfig(Duration.ofMinutes(1), 500, Policy.NONE, Policy.NONE,
          Policy.of(1_000, null), Policy.NONE);
      RetentionPass pass = new Retention(store.retention()).full(config, 50, at(100), RetentionStore.Condenser.NONE,
          n -> {});

      // max_rows 1,000 keeps 60 % of it; the newest event is kept beyond that (never offered).
      assertEquals(600, store.retention().prunableRows(StructureName.EVENTS));
      assertEquals(5_001 - loadBearing - 600, pass.deleted(StructureName.EVENTS));
      assertTrue(pass.finished());
      assertEquals(0, new Retention(store.retention()).full(config, 50, at(200), RetentionStore.Condenser.NONE,
          n -> {}).total(), "idempotent");
    }
  }
}
