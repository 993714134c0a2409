package dev.orchestrate.app;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.reviewedProject;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.error.OrchestrateException;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.ReviewDecision;
import dev.orchestrate.item.Step;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrent decisions on one item (issue 43): several {@code approve}, {@code reject} and
 * {@code unblock} started at one instant on one item, with no run and beside a run (a lease held,
 * so that decisions are queued). Exactly one wins; every other is refused as a usage error naming
 * the decision that won, and the item (or the queue) is as the winner left it. Each round starts
 * the threads together from a latch; many rounds, so that the old window shows. Run against a
 * real state of each backend by its subclasses.
 */
public abstract class ConcurrentDecisionsContract {
  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  private static final int ROUNDS = 20;
  private static final int THREADS = 6;

  @TempDir
  protected Path dir;

  private StateBackend backend;
  private Reviewing.Project project;
  private ExecutorService pool;

  /** A backend on a fresh, empty state of the backend under test, its local directory in {@code dir}. */
  protected abstract StateBackend backend(Path dir);

  @BeforeEach
  void setUp() throws Exception {
    backend = backend(dir);
    project = reviewedProject(dir);
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      store.items().sync(List.of(item("A")), T0);
    }
    pool = Executors.newFixedThreadPool(THREADS);
  }

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  /** One thread's command: what it returned (a word for the decision) or the failure it threw. */
  private record Result(String won, Throwable failed) {
  }

  @Test
  void with_no_run_one_of_several_approve_and_reject_wins_and_the_others_are_refused() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      put(awaitingReview());
      List<Result> results = race(decisions(Duration.ZERO));
      String winner = onlyWinner(results, "round " + round);
      ItemState a = current();
      if (winner.equals("approve")) {
        assertEquals(ItemStatus.DONE, a.status(), "round " + round + ": the approval was applied");
      } else {
        assertEquals(ItemStatus.IN_PROGRESS, a.status(), "round " + round + ": the rejection was applied");
        assertEquals("build", a.progress().phase());
      }
      assertEquals(List.of(), queue(), "round " + round + ": nothing left queued with no run to apply it");
      assertLosers(results, winner.equals("approve") ? "approved" : "rejected", "round " + round);
    }
  }

  @Test
  void beside_a_run_one_of_several_approve_and_reject_is_queued_and_the_others_are_refused() throws Exception {
    try (RunLease run = backend.acquireLease(T0, Duration.ofSeconds(60))) {
      for (int round = 0; round < ROUNDS; round++) {
        put(awaitingReview());
        List<Result> results = race(decisions(Duration.ZERO));
        String winner = onlyWinner(results, "round " + round);
        assertEquals(ItemStatus.AWAITING_REVIEW, current().status(), "round " + round + ": queued, not written");
        List<ReviewDecision> queue = queue();
        assertEquals(1, queue.size(), "round " + round + ": exactly one decision queued: " + queue);
        assertEquals(winner, queue.get(0).kind(), "round " + round + ": the winner's decision is the queued one");
        assertLosers(results, queue.get(0).kind(), "round " + round);
        try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
          store.items().dropDecision(queue.get(0), "next round", T0);
        }
      }
    }
  }

  @Test
  void with_no_run_one_of_several_unblock_wins_and_the_others_are_refused() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      put(new Progress(ItemStatus.BLOCKED, "docs", 3, "stuck", ItemStatus.IN_PROGRESS, null, null, null));
      List<Callable<String>> unblocks = new ArrayList<>();
      for (int i = 0; i < THREADS; i++) {
        String notes = "notes " + i;
        unblocks.add(() -> {
          new Unblocking(backend, Clock.systemUTC()).unblock(List.of("A"), notes);
          return notes;
        });
      }
      List<Result> results = race(unblocks);
      String winner = onlyWinner(results, "round " + round);
      ItemState a = current();
      assertEquals(ItemStatus.IN_PROGRESS, a.status(), "round " + round);
      assertEquals(winner, a.progress().unblockNotes(), "round " + round + ": the winner's notes");
      assertLosers(results, "unblocked", "round " + round);
    }
  }

  private List<Callable<String>> decisions(Duration patience) {
    List<Callable<String>> out = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      if (i % 2 == 0) {
        out.add(() -> {
          Reviewing.Approved a = new Reviewing(backend, Clock.systemUTC(), patience).approve(List.of("A"), project)
              .get(0);
          assertTrue(List.of("none", "queued").contains(a.integration()), a.toString());
          return "approve";
        });
      } else {
        out.add(() -> {
          Reviewing.Rejected r = new Reviewing(backend, Clock.systemUTC(), patience).reject(List.of("A"), "again",
              "build", project).get(0);
          assertTrue(List.of("rejected", "queued").contains(r.outcome()), r.toString());
          return "reject";
        });
      }
    }
    return out;
  }

  /** Runs the commands at once, released together by one latch, and waits for every one's end. */
  private List<Result> race(List<Callable<String>> commands) throws Exception {
    CountDownLatch ready = new CountDownLatch(commands.size());
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Result>> futures = new ArrayList<>();
    for (Callable<String> command : commands) {
      futures.add(pool.submit(() -> {
        ready.countDown();
        go.await();
        try {
          return new Result(command.call(), null);
        } catch (Throwable t) {
          return new Result(null, t);
        }
      }));
    }
    ready.await();
    go.countDown();
    List<Result> out = new ArrayList<>();
    for (Future<Result> f : futures) {
      out.add(f.get());
    }
    return out;
  }

  private static String onlyWinner(List<Result> results, String where) {
    List<String> won = results.stream().filter(r -> r.failed() == null).map(Result::won).toList();
    assertEquals(1, won.size(), where + ": exactly one command succeeds, not " + won + "; failures: "
        + results.stream().filter(r -> r.failed() != null).map(r -> String.valueOf(r.failed())).toList());
    return won.get(0);
  }

  /**
   * Every loser is a usage error (exit 2) naming the item: one that lost the claim names the
   * decision that won ("item A is no longer awaiting review: ... (last change: approved)"); one
   * that came so late that its read-only check already saw the winner's result is refused as any
   * command on an item decided before it, with the item's status now ("item A is done, not
   * awaiting_review").
   */
  private void assertLosers(List<Result> results, String decision, String where) {
    ItemStatus now = current().status();
    for (Result r : results) {
      if (r.failed() == null) {
        continue;
      }
      assertTrue(r.failed() instanceof OrchestrateException, where + ": " + r.failed());
      OrchestrateException e = (OrchestrateException) r.failed();
      assertEquals(OrchestrateException.Kind.USAGE, e.kind(), where + ": " + e);
      if (e.getMessage().startsWith("item A is no longer ")) {
        assertTrue(e.getMessage().contains(decision), where + ": names the decision that won (" + decision + "): "
            + e.getMessage());
      } else {
        assertTrue(e.getMessage().startsWith("item A is " + now.key() + ", not "), where + ": " + e.getMessage());
      }
      assertNull(e.getCause(), where);
    }
  }

  private Progress awaitingReview() {
    return new Progress(ItemStatus.AWAITING_REVIEW, "docs", 0, null, null, null, "documented", null);
  }

  private void put(Progress progress) {
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      ItemState a = store.items().item("A").orElseThrow();
      store.items().apply(new Step(a.with(progress), List.of()), T0);
    }
  }

  private ItemState current() {
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      return store.items().item("A").orElseThrow();
    }
  }

  private List<ReviewDecision> queue() {
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      return store.items().reviewDecisions(100);
    }
  }
}
