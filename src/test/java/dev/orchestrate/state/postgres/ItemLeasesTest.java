package dev.orchestrate.state.postgres;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.LeaseLostException;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.Step;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Item leases on a real PostgreSQL state, two runners in one test: claims, the version fence,
 * releases at transitions, the cross-runner WIP limit and the take-over of a dead runner.
 */
class ItemLeasesTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private String schema;
  private PostgresBackend backend;
  private final List<AutoCloseable> open = new ArrayList<>();

  @BeforeEach
  void fresh() {
    schema = EmbeddedPostgresServer.freshSchema("leases");
    backend = TestBackend.on(schema, "host-a", dir);
  }

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  /** A runner: its registration, a store, and the store's leases. */
  private record Runner(RunLease lease, StateStore store, ItemLeases leases) {
  }

  private Runner runner() {
    RunLease lease = backend.acquireLease(T0, TIMEOUT);
    open.add(lease);
    StateStore store = backend.open(StateStore.Mode.READ_WRITE);
    open.add(store);
    return new Runner(lease, store, store.leases(lease.runnerId(), lease.host(), TIMEOUT));
  }

  /** Items A and B, claimed by {@code a}, each with a worktree at head000; the run's id. */
  private long twoItemsWithWorktrees(Runner a) {
    a.store().items().sync(List.of(item("A", InitialStatus.READY), item("B", InitialStatus.READY)), T0);
    long run = a.store().items().runStarted(T0, 1);
    for (String id : List.of("A", "B")) {
      a.leases().claim(id, 0).orElseThrow();
      a.store().workspaces().save(new dev.orchestrate.workspace.WorkspaceRecord(id, dir.resolve(id),
          "orchestrate/" + id, "main", dir.resolve("g"), "base000", "head000", null, null, null, null, 1, T0, null,
          null), T0);
    }
    return run;
  }

  private static Step to(ItemState item, ItemStatus status, String phase) {
    return new Step(item.with(new Progress(status, phase, 0, null, null, null, null, null)), List.of());
  }

  @Test
  void a_runners_start_never_drops_the_pending_phase_commit_of_a_job_another_live_runner_runs_or_completed() {
    Runner a = runner();
    long run = twoItemsWithWorktrees(a);
    long runningJob = a.store().items().jobStarted(new JobStart(run, "A", "build", 1, T0, null));
    a.store().workspaces().commitPending("A", "pendingA", runningJob, 1, T0);
    long failedJob = a.store().items().jobStarted(new JobStart(run, "B", "build", 1, T0, null));
    a.store().workspaces().commitPending("B", "pendingB", failedJob, 1, T0);
    a.store().items().jobEnded(failedJob, new dev.orchestrate.item.JobEnd(dev.orchestrate.outcome.JobState.FAILED,
        "failed", 1, "boom", T0), null, List.of(), T0);

    Runner b = runner(); // starts while A's job runs
    assertEquals(1, b.store().workspaces().settlePending(T0), "only the failed job's pending commit is dropped");
    assertEquals("pendingA", b.store().workspaces().workspace("A").orElseThrow().pendingCommit());
    assertNull(b.store().workspaces().workspace("B").orElseThrow().pendingCommit());

    a.store().items().jobEnded(runningJob, new dev.orchestrate.item.JobEnd(dev.orchestrate.outcome.JobState.COMPLETED,
        "phase_complete", 0, null, T0), null, List.of(), T0);
    Runner c = runner(); // starts after A's job completed, before A confirmed its commit
    assertEquals(0, c.store().workspaces().settlePending(T0));
    assertEquals("pendingA", c.store().workspaces().workspace("A").orElseThrow().headCommit(),
        "a completed job's phase commit is the item's head, whoever settles it");
    a.store().workspaces().commitConfirmed("A", T0);
    assertEquals("pendingA", a.store().workspaces().workspace("A").orElseThrow().headCommit());
  }

  @Test
  void an_item_one_runner_claimed_is_refused_to_another_and_shows_as_held_elsewhere() {
    Runner a = runner();
    Runner b = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.READY), item("B", InitialStatus.READY)), T0);

    Optional<ItemState> claimed = a.leases().claim("A", 0);
    assertEquals(ItemStatus.READY, claimed.orElseThrow().status());
    assertTrue(a.leases().holds("A"));
    assertEquals(Optional.empty(), b.leases().claim("A", 0));
    assertFalse(b.leases().holds("A"));
    assertEquals(java.util.Set.of("A"), b.leases().refresh().heldElsewhere());
    assertEquals(java.util.Set.of(), a.leases().refresh().heldElsewhere());
    assertTrue(b.leases().claim("B", 0).isPresent());
  }

  @Test
  void a_move_out_of_running_phases_releases_the_item_in_the_same_write() {
    Runner a = runner();
    Runner b = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.READY)), T0);
    ItemState ready = a.leases().claim("A", 0).orElseThrow();
    a.store().items().apply(to(ready, ItemStatus.IN_PROGRESS, "design"), T0);
    assertTrue(a.leases().holds("A"), "in_progress: still held");
    assertEquals("host-a", owner("A").split(":")[0]);
    ItemState working = a.store().items().item("A").orElseThrow();
    a.store().items().apply(to(working, ItemStatus.DONE, null), T0);
    assertFalse(a.leases().holds("A"));
    assertNull(owner("A"), "done: released with the write");
    assertTrue(b.leases().claim("A", 0).isPresent(), "free for anyone");
  }

  @Test
  void a_runner_whose_item_was_taken_over_can_never_overwrite_the_new_holders_progress() throws Exception {
    Runner a = runner();
    Runner b = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.READY)), T0);
    ItemState ready = a.leases().claim("A", 0).orElseThrow();
    a.store().items().apply(to(ready, ItemStatus.IN_PROGRESS, "design"), T0);
    ItemState stale = a.store().items().item("A").orElseThrow();

    // A's heartbeat stops long enough that B takes it for dead (as after a GC pause or a partition).
    EmbeddedPostgresServer.execute(schema,
        "UPDATE runners SET heartbeat_at = heartbeat_at - 3600000 WHERE id = '" + a.lease().runnerId() + "'");
    ItemLeases.Refresh refresh = b.leases().refresh();
    assertEquals(1, refresh.takenOver().size());
    assertEquals(a.lease().runnerId(), refresh.takenOver().get(0).id());
    ItemState taken = b.leases().claim("A", 0).orElseThrow();
    b.store().items().apply(to(taken, ItemStatus.IN_PROGRESS, "build"), T0);

    LeaseLostException lost = assertThrows(LeaseLostException.class,
        () -> a.store().items().apply(to(stale, ItemStatus.DONE, null), T0));
    assertEquals("A", lost.itemId());
    assertTrue(lost.getMessage().contains("no longer held by runner " + a.lease().runnerId()), lost.getMessage());
    ItemState now = b.store().items().item("A").orElseThrow();
    assertEquals(ItemStatus.IN_PROGRESS, now.status(), "the new holder's progress stands");
    assertEquals("build", now.progress().phase());
    assertEquals(b.lease().runnerId(), owner("A"));
    assertFalse(a.leases().holds("A"));
  }

  @Test
  void a_dead_runners_completed_job_whose_commit_it_never_confirmed_leaves_that_commit_as_the_items_head() {
    Runner a = runner();
    Runner b = runner();
    long run = twoItemsWithWorktrees(a);
    // A's design completed and was written, and its runner was killed before it confirmed the commit
    long completed = a.store().items().jobStarted(new JobStart(run, "A", "design", 1, T0, null));
    a.store().workspaces().commitPending("A", "designA", completed, 1, T0);
    a.store().items().jobEnded(completed, new dev.orchestrate.item.JobEnd(dev.orchestrate.outcome.JobState.COMPLETED,
        "phase_complete", 0, null, T0), null, List.of(), T0);
    // B's build was running when it was killed, its commit pending
    long running = a.store().items().jobStarted(new JobStart(run, "B", "build", 1, T0, null));
    a.store().workspaces().commitPending("B", "buildB", running, 1, T0);
    EmbeddedPostgresServer.execute(schema,
        "UPDATE runners SET heartbeat_at = heartbeat_at - 3600000 WHERE id = '" + a.lease().runnerId() + "'");

    assertEquals(1, b.leases().refresh().takenOver().size());

    dev.orchestrate.workspace.WorkspaceRecord design = b.store().workspaces().workspace("A").orElseThrow();
    assertEquals("designA", design.headCommit(), "the completed phase's commit is where the item continues");
    assertNull(design.pendingCommit());
    assertEquals("designA", EmbeddedPostgresServer.text(schema, "SELECT commit_sha FROM jobs WHERE id = " + completed));
    dev.orchestrate.workspace.WorkspaceRecord build = b.store().workspaces().workspace("B").orElseThrow();
    assertEquals("head000", build.headCommit(), "an interrupted phase's commit never counts");
    assertNull(build.pendingCommit());
  }

  @Test
  void a_dead_runners_running_jobs_are_interrupted_its_items_freed_and_its_row_removed() throws Exception {
    Runner a = runner();
    Runner b = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.READY), item("B", InitialStatus.READY)), T0);
    for (String id : List.of("A", "B")) {
      ItemState ready = a.leases().claim(id, 0).orElseThrow();
      a.store().items().apply(to(ready, ItemStatus.IN_PROGRESS, "design"), T0);
    }
    long run = a.store().items().runStarted(T0, 1);
    long job = a.store().items().jobStarted(new JobStart(run, "A", "design", 1, T0, null));
    assertEquals(a.lease().runnerId(),
        EmbeddedPostgresServer.text(schema, "SELECT runner_id FROM jobs WHERE id = " + job));
    assertEquals(a.lease().runnerId(),
        EmbeddedPostgresServer.text(schema, "SELECT runner_id FROM runs WHERE id = " + run));

    assertEquals(List.of(), b.leases().refresh().takenOver(), "a live runner is left alone");
    EmbeddedPostgresServer.execute(schema,
        "UPDATE runners SET heartbeat_at = heartbeat_at - 3600000 WHERE id = '" + a.lease().runnerId() + "'");
    ItemLeases.DeadRunner dead = b.leases().refresh().takenOver().get(0);
    assertEquals(1, dead.jobs());
    assertEquals(2, dead.items());
    assertTrue(dead.sameHost());
    assertEquals(dir.resolve("state").resolve("jobs").toAbsolutePath().normalize(), dead.logs());
    assertEquals("interrupted", EmbeddedPostgresServer.text(schema, "SELECT state FROM jobs WHERE id = " + job));
    assertTrue(EmbeddedPostgresServer.text(schema, "SELECT reason FROM jobs WHERE id = " + job)
        .contains("stopped renewing its heartbeat"));
    assertNull(owner("A"));
    assertNull(owner("B"));
    assertEquals("0",
        EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM runners WHERE id = '" + a.lease().runnerId() + "'"));
    assertEquals("1",
        EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM events WHERE kind = 'runner.taken_over'"));
    assertEquals(ItemStatus.IN_PROGRESS, b.leases().claim("A", 0).orElseThrow().status(),
        "claimed again where it was, to re-run its phase");
  }

  /**
   * A claim never waits for a row: another runner's write of the item at that moment refuses it as
   * surely as a lease does. Only the lease (or a full WIP) is a refusal a run may halt on; the row
   * lock is said to be transient, so that the run reads again (a runner of {@code MultiRunnerIT}
   * once halted {@code waiting_on_blocked} at its start with every item left and none held).
   */
  @Test
  void a_claim_refused_only_by_a_row_lock_of_a_write_beside_it_is_transient_and_a_lease_or_a_full_wip_is_not()
      throws Exception {
    Runner a = runner();
    Runner b = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.READY), item("B", InitialStatus.READY),
        item("C", InitialStatus.READY)), T0);
    try (java.sql.Connection other = EmbeddedPostgresServer.connect();
        java.sql.Statement st = other.createStatement()) {
      st.execute("SET search_path TO \"" + schema + "\"");
      other.setAutoCommit(false);
      st.execute("SELECT 1 FROM items WHERE id = 'A' FOR UPDATE"); // a write of A in progress
      assertEquals(Optional.empty(), b.leases().claim("A", 0), "a locked row is skipped, never waited for");
      assertTrue(b.leases().refusalWasTransient(), "A is free: only its row was locked");
      assertEquals(Optional.empty(), b.leases().claim("A", 3));
      assertTrue(b.leases().refusalWasTransient(), "free and the WIP empty");
      other.rollback();
    }
    assertTrue(b.leases().claim("A", 0).isPresent(), "the lock gone, the claim goes through");
    assertFalse(b.leases().refusalWasTransient());

    assertEquals(Optional.empty(), a.leases().claim("A", 0));
    assertFalse(a.leases().refusalWasTransient(), "held by b: a refusal to halt on");
    assertTrue(b.leases().claim("B", 3).isPresent());
    assertEquals(Optional.empty(), a.leases().claim("C", 2), "A and B being promoted: the WIP of 2 is full");
    assertFalse(a.leases().refusalWasTransient(), "a full WIP: a refusal to halt on");
  }

  @Test
  void max_wip_holds_across_runners_and_an_item_being_promoted_counts() {
    Runner a = runner();
    Runner b = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.READY), item("B", InitialStatus.READY),
        item("C", InitialStatus.READY)), T0);
    ItemState first = a.leases().claim("A", 2).orElseThrow(); // 0 others in progress
    assertTrue(b.leases().claim("B", 2).isPresent(), "1 other (A, ready and claimed: being promoted)");
    assertEquals(Optional.empty(), b.leases().claim("C", 2), "A and B are on their way into WIP: full");
    a.store().items().apply(to(first, ItemStatus.IN_PROGRESS, "design"), T0);
    assertEquals(Optional.empty(), a.leases().claim("C", 2), "A in progress, B being promoted: full");
    assertTrue(a.leases().claim("C", 3).isPresent());
  }

  @Test
  void the_held_versions_stay_bounded_by_the_items_held_over_thousands_of_claims() {
    Runner a = runner();
    List<BacklogItem> backlog = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      backlog.add(item(String.format("W-%04d", i), InitialStatus.READY));
    }
    a.store().items().sync(backlog, T0);
    int peak = 0;
    for (BacklogItem each : backlog) {
      ItemState ready = a.leases().claim(each.id(), 0).orElseThrow();
      a.store().items().apply(to(ready, ItemStatus.IN_PROGRESS, "design"), T0);
      peak = Math.max(peak, heldCount(a.leases()));
      ItemState working = a.store().items().item(each.id()).orElseThrow();
      a.store().items().apply(to(working, ItemStatus.DONE, null), T0);
    }
    assertEquals(1, peak, "one item at a time, one held version");
    assertEquals(0, heldCount(a.leases()));
    assertEquals("0", EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM items WHERE lease_owner IS NOT NULL"));
  }

  @Test
  void release_all_frees_every_item_of_this_runner_and_no_other() {
    Runner a = runner();
    Runner b = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.READY), item("B", InitialStatus.READY)), T0);
    a.leases().claim("A", 0).orElseThrow();
    b.leases().claim("B", 0).orElseThrow();
    a.leases().releaseAll();
    assertNull(owner("A"));
    assertEquals(b.lease().runnerId(), owner("B"));
  }

  @Test
  void stats_lists_each_registered_runner_with_the_items_it_holds() {
    Runner a = runner();
    Runner b = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.READY), item("B", InitialStatus.READY),
        item("C", InitialStatus.READY)), T0);
    a.leases().claim("A", 0).orElseThrow();
    a.leases().claim("B", 0).orElseThrow();
    b.leases().claim("C", 0).orElseThrow();
    List<dev.orchestrate.stats.RunnerLease> runners = a.store().stats().runners();
    assertEquals(List.of(a.lease().runnerId(), b.lease().runnerId()),
        runners.stream().map(dev.orchestrate.stats.RunnerLease::id).toList());
    assertEquals(List.of(2, 1), runners.stream().map(dev.orchestrate.stats.RunnerLease::items).toList());
    assertEquals("host-a", runners.get(0).host());
    assertEquals(ProcessHandle.current().pid(), runners.get(0).pid());
    assertTrue(runners.get(0).heartbeatAgeMs() >= 0 && runners.get(0).heartbeatAgeMs() < 30_000,
        "age " + runners.get(0).heartbeatAgeMs());
  }

  @Test
  void unblock_needs_no_lease_beside_a_running_runner_and_never_touches_an_item_another_runner_holds() {
    Runner a = runner();
    a.store().items().sync(List.of(item("A", InitialStatus.BLOCKED), item("B", InitialStatus.READY)), T0);
    List<ItemState> unblocked = new dev.orchestrate.app.Unblocking(backend, java.time.Clock.systemUTC())
        .unblock(List.of("A"), "try again");
    assertEquals(List.of("A"), unblocked.stream().map(ItemState::id).toList());
    assertEquals(ItemStatus.NEW, a.store().items().item("A").orElseThrow().status());

    // An item a runner holds is not blocked, so unblock refuses it and changes nothing.
    ItemState ready = a.leases().claim("B", 0).orElseThrow();
    a.store().items().apply(to(ready, ItemStatus.IN_PROGRESS, "design"), T0);
    assertThrows(dev.orchestrate.app.UnblockRefusedException.class,
        () -> new dev.orchestrate.app.Unblocking(backend, java.time.Clock.systemUTC()).unblock(List.of("B"), "x"));
    assertEquals(a.lease().runnerId(), owner("B"));
  }

  private static int heldCount(ItemLeases leases) {
    try {
      java.lang.reflect.Method m = leases.getClass().getDeclaredMethod("heldCount");
      m.setAccessible(true);
      return (int) m.invoke(leases);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private String owner(String id) {
    try {
      return EmbeddedPostgresServer.text(schema, "SELECT lease_owner FROM items WHERE id = '" + id + "'");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

}
