package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.InProcessLauncher;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The halt decision of a runner sharing its state, against another runner whose moves are placed
 * exactly between this runner's reads (no timing): the interleaving that made a runner of
 * {@code SharedRunnersTest} halt {@code waiting_on_blocked} with every item left and no phase run.
 */
class SharedHaltTest {
  private static final Pipeline ONE_PHASE = new Pipeline("feature", List.of(), List.of(phase("build")));

  @TempDir
  Path dir;

  @Test
  void a_runner_whose_claims_are_refused_waits_for_the_other_runner_instead_of_halting_on_what_it_read_before()
      throws Exception {
    Config base = config(agent(Path.of("unused.sh")), 0, ONE_PHASE);
    Config config = base.withExecution(base.execution().withMaxWip(2).withMaxConcurrent(2));
    try (StateStore store = TestStores.open(dir.resolve("state"));
        InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      AnotherRunner other = new AnotherRunner(store.items(), List.of("A", "B"));
      RunReport report = Scheduler.builder(store.items(), config,
          new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"), item("B"), item("C"))),
          dir.resolve("state/jobs"), launcher, Clock.systemUTC()).leases(other).build().run(RunOptions.cap(100));

      // The other runner's A and B were in progress, held by it, when this one had nothing it could
      // claim: it waited for them to finish, then ran C.
      assertEquals(HaltReason.ALL_DONE, report.haltReason(), report.toString());
      assertEquals(List.of("advanced A, B", "promoted A, B after a read of the leases", "finished A, B"),
          other.moves);
      assertEquals(3, report.done());
      assertEquals(1, report.phasesRun(), "C's phase, the one item the other runner left");
    }
  }

  @Test
  @Timeout(60)
  void a_promotion_the_wip_across_runners_refuses_again_after_a_fresh_read_halts_the_run_instead_of_waiting_forever() {
    Config base = config(agent(Path.of("unused.sh")), 0, ONE_PHASE);
    Config config = base.withExecution(base.execution().withMaxWip(1).withMaxConcurrent(1));
    try (StateStore store = TestStores.open(dir.resolve("state"));
        InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      WipFull leases = new WipFull(store.items());
      RunReport report = Scheduler.builder(store.items(), config,
          new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), launcher, Clock.systemUTC()).leases(leases).build().run(RunOptions.cap(100));

      // In-progress items nobody holds (left by a run that ended, outside this run's --only) fill
      // max_wip across runners: the claim refuses every promotion, and the picture never changes.
      assertEquals(HaltReason.WAITING_ON_BLOCKED, report.haltReason(), report.toString());
      assertEquals(0, report.phasesRun());
      assertTrue(leases.promotionsRefused >= 2, "refused once, then once more after a fresh read: "
          + leases.promotionsRefused);
    }
  }

  @Test
  @Timeout(60)
  void claims_refused_only_by_row_locks_of_writes_beside_them_round_after_round_never_halt_the_run() {
    Config base = config(agent(Path.of("unused.sh")), 0, ONE_PHASE);
    Config config = base.withExecution(base.execution().withMaxWip(2).withMaxConcurrent(2));
    try (StateStore store = TestStores.open(dir.resolve("state"));
        InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RowsBusy leases = new RowsBusy(store.items(), 3);
      RunReport report = Scheduler.builder(store.items(), config,
          new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"), item("B"), item("C"))),
          dir.resolve("state/jobs"), launcher, Clock.systemUTC()).leases(leases).build().run(RunOptions.cap(100));

      // The same claims refused in rounds in a row, after fresh reads, nobody holding anything: the
      // picture a halt on a full WIP is decided on, but each refusal was a row lock of a moment.
      assertEquals(HaltReason.ALL_DONE, report.haltReason(), report.toString());
      assertEquals(3, report.done());
      assertTrue(leases.refusedTransiently >= 3, "the first claims were refused: " + leases.refusedTransiently);
    }
  }

  @Test
  @Timeout(60)
  void a_row_locked_for_longer_than_the_lease_timeout_is_taken_for_held_and_the_run_halts() {
    Config base = config(agent(Path.of("unused.sh")), 0, ONE_PHASE);
    Config config = base.withExecution(base.execution().withMaxWip(2).withMaxConcurrent(2))
        .withState(new dev.orchestrate.config.StateConfig(null, java.time.Duration.ofSeconds(1)));
    try (StateStore store = TestStores.open(dir.resolve("state"));
        InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RowsBusy leases = new RowsBusy(store.items(), Integer.MAX_VALUE); // a writer stopped holding the rows
      long began = System.nanoTime();
      RunReport report = Scheduler.builder(store.items(), config,
          new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), launcher, Clock.systemUTC()).leases(leases).build().run(RunOptions.cap(100));

      // waited out the lease timeout (1 s here) as for a lock of a moment, then halted as on a lease
      assertEquals(HaltReason.WAITING_ON_BLOCKED, report.haltReason(), report.toString());
      assertEquals(0, report.phasesRun());
      assertTrue(System.nanoTime() - began >= java.util.concurrent.TimeUnit.SECONDS.toNanos(1),
          "the lock was waited on for the lease timeout first");
    }
  }

  /** Leases whose first {@code busy} claims of each item find its row locked by a write beside them. */
  private static final class RowsBusy extends OneRunnersLeases {
    private final int busy;
    private final java.util.Map<String, Integer> tries = new java.util.HashMap<>();
    private boolean lastTransient;
    int refusedTransiently;

    RowsBusy(StateRepository store, int busy) {
      super(store);
      this.busy = busy;
    }

    @Override
    public Optional<ItemState> claim(String itemId, int wipLimit) {
      lastTransient = tries.merge(itemId, 1, Integer::sum) <= busy;
      if (lastTransient) {
        refusedTransiently++;
        return Optional.empty();
      }
      held.add(itemId);
      return store.item(itemId);
    }

    @Override
    public boolean refusalWasTransient() {
      return lastTransient;
    }
  }

  /** The leases of the runner under test, nobody else holding anything unless a subclass says so. */
  private abstract static class OneRunnersLeases implements ItemLeases {
    final StateRepository store;
    final Set<String> held = new HashSet<>();

    OneRunnersLeases(StateRepository store) {
      this.store = store;
    }

    @Override
    public boolean shared() {
      return true;
    }

    @Override
    public String runnerId() {
      return "host:1:0";
    }

    @Override
    public Refresh refresh() {
      return Refresh.NONE;
    }

    @Override
    public boolean holds(String itemId) {
      return held.contains(itemId);
    }

    @Override
    public void release(String itemId) {
      held.remove(itemId);
    }

    @Override
    public void releaseAll() {
      held.clear();
    }
  }

  /** Leases whose promotions the WIP across runners always refuses; nobody else holds anything. */
  private static final class WipFull extends OneRunnersLeases {
    int promotionsRefused;

    WipFull(StateRepository store) {
      super(store);
    }

    @Override
    public Optional<ItemState> claim(String itemId, int wipLimit) {
      if (wipLimit > 0) {
        promotionsRefused++;
        return Optional.empty();
      }
      held.add(itemId);
      return store.item(itemId);
    }
  }

  /**
   * The leases of the runner under test, and another runner that works on {@code theirs} in the
   * same state: it advances them (new → ready, left free) just before this runner's first claim,
   * promotes them (held) right after the next read of the leases and before the read of the items
   * that follows it (the window between the two reads of a refresh), and finishes them before the
   * refresh after that.
   */
  private static final class AnotherRunner extends OneRunnersLeases {
    private final List<String> theirs;
    private final Set<String> heldByOther = new HashSet<>();
    final List<String> moves = new ArrayList<>();

    AnotherRunner(StateRepository store, List<String> theirs) {
      super(store);
      this.theirs = theirs;
    }

    @Override
    public Refresh refresh() {
      if (moves.size() == 2) {
        for (String id : theirs) { // while this runner waited
          store.apply(Transitions.afterAttempt(stored(id), ONE_PHASE,
              InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, id + " build done"), 0), Instant.now());
        }
        heldByOther.clear();
        moves.add("finished A, B");
      }
      Set<String> elsewhere = Set.copyOf(heldByOther); // the read of the leases
      if (moves.size() == 1) {
        for (String id : theirs) { // and, before the read of the items, the other runner's promotions
          store.apply(Transitions.advance(stored(id), ONE_PHASE), Instant.now());
          heldByOther.add(id);
        }
        moves.add("promoted A, B after a read of the leases");
      }
      return new Refresh(elsewhere, List.of());
    }

    @Override
    public Optional<ItemState> claim(String itemId, int wipLimit) {
      if (moves.isEmpty()) {
        for (String id : theirs) { // the other runner was first: the items changed since this one read them
          store.apply(Transitions.advance(stored(id), ONE_PHASE), Instant.now());
        }
        moves.add("advanced A, B");
      }
      if (heldByOther.contains(itemId)) {
        return Optional.empty();
      }
      held.add(itemId);
      return store.item(itemId);
    }

    private ItemState stored(String id) {
      return store.item(id).orElseThrow();
    }
  }
}
