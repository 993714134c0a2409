package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.InProcessLauncher.outcome;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.Housekeeping;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.InProcessLauncher;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slot the scheduler gives {@link Housekeeping} (retention maintenance): after the tick's
 * spawns, at the lowest priority — it is told when a job has ended, and a stop cuts it short.
 */
class HousekeepingSlotTest {
  @TempDir
  Path dir;

  private RunReport run(Config config, List<BacklogItem> items, InProcessLauncher launcher, Housekeeping housekeeping,
      java.util.function.Consumer<Scheduler> during) {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      Scheduler scheduler = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), items),
          dir.resolve("state/jobs"), launcher, Clock.systemUTC()).housekeeping(housekeeping).build();
      during.accept(scheduler);
      return scheduler.run(100);
    }
  }

  private static Config twoAtOnce() {
    Config config = config(agent(Path.of("unused.sh")), 0,
        new Pipeline("feature", List.of(), List.of(phase("build"))));
    return config.withExecution(config.execution().withMaxWip(2).withMaxConcurrent(2));
  }

  @Test
  void housekeeping_runs_after_the_ticks_agents_have_started_and_learns_when_a_job_has_ended() {
    CountDownLatch release = new CountDownLatch(1);
    InProcessLauncher launcher = new InProcessLauncher(request -> {
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return outcome(AgentResult.PHASE_COMPLETE, request.itemId() + " done");
    });
    List<Integer> startedAtFirstSlot = new ArrayList<>();
    boolean[] sawAJobEnd = {false};
    Housekeeping housekeeping = (now, waiting) -> {
      if (!startedAtFirstSlot.isEmpty()) {
        return;
      }
      startedAtFirstSlot.add(launcher.started());
      assertFalse(waiting.getAsBoolean(), "both agents are still working: nothing waits");
      release.countDown(); // the agents finish while housekeeping works
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!waiting.getAsBoolean() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      sawAJobEnd[0] = waiting.getAsBoolean();
    };
    try (launcher) {
      RunReport report = run(twoAtOnce(), List.of(item("A"), item("B")), launcher, housekeeping, s -> {});
      assertEquals(HaltReason.ALL_DONE, report.haltReason());
      assertEquals(2, report.done());
    }
    assertEquals(List.of(2), startedAtFirstSlot, "the slot comes after the tick has started both agents");
    assertTrue(sawAJobEnd[0], "an ended job is work waiting: housekeeping is told to step aside");
  }

  /** Counts the end-of-run slots it is given. */
  private static final class CountingEnds implements Housekeeping {
    int ends;

    @Override
    public void afterTick(java.time.Instant now, java.util.function.BooleanSupplier waiting) {
    }

    Runnable duringEnd = () -> {};
    boolean stopSeen;

    @Override
    public void atEnd(java.time.Instant now, java.util.function.BooleanSupplier stop) {
      ends++;
      duringEnd.run();
      stopSeen = stop.getAsBoolean();
    }
  }

  @Test
  void a_run_that_ends_normally_gives_housekeeping_one_last_slot() {
    CountingEnds housekeeping = new CountingEnds();
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(twoAtOnce(), List.of(item("A"), item("B")), launcher, housekeeping, s -> {});
      assertEquals(HaltReason.ALL_DONE, report.haltReason());
    }
    assertEquals(1, housekeeping.ends);
  }

  @Test
  void a_stop_during_the_last_slot_is_passed_on_and_the_run_counts_as_interrupted() {
    CountingEnds housekeeping = new CountingEnds();
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(twoAtOnce(), List.of(item("A")), launcher, housekeeping,
          scheduler -> housekeeping.duringEnd = scheduler::requestStop);
      assertEquals(HaltReason.INTERRUPTED, report.haltReason(), "exit 130: the operator pressed Ctrl-C");
      assertEquals(1, report.done());
    }
    assertTrue(housekeeping.stopSeen, "the last slot is told, to step aside");
  }

  @Test
  void a_stopped_run_ends_at_once_without_the_last_slot() {
    CountingEnds housekeeping = new CountingEnds();
    try (InProcessLauncher launcher = InProcessLauncher.succeeding()) {
      RunReport report = run(twoAtOnce(), List.of(item("A")), launcher, housekeeping, Scheduler::requestStop);
      assertEquals(HaltReason.INTERRUPTED, report.haltReason());
    }
    assertEquals(0, housekeeping.ends);
  }

  @Test
  void a_stop_cuts_short_housekeeping_that_waits_for_a_summarizer() {
    CountDownLatch inHousekeeping = new CountDownLatch(1);
    boolean[] interrupted = {false};
    Housekeeping slowSummarizer = (now, waiting) -> {
      inHousekeeping.countDown();
      try {
        Thread.sleep(30_000); // an external summarizer that does not answer
      } catch (InterruptedException e) {
        interrupted[0] = true;
      }
    };
    InProcessLauncher launcher = new InProcessLauncher(request -> {
      try {
        Thread.sleep(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return outcome(AgentResult.PHASE_COMPLETE, "late");
    });
    long started = System.nanoTime();
    RunReport report;
    try (launcher) {
      report = run(twoAtOnce(), List.of(item("A")), launcher, slowSummarizer, scheduler -> new Thread(() -> {
        try {
          inHousekeeping.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          return;
        }
        scheduler.requestStop();
        scheduler.requestStop(); // the in-process agent ignores cancels; the run ends when it is recorded
      }).start());
    }
    assertTrue(interrupted[0], "the stop interrupted the wait");
    assertEquals(HaltReason.INTERRUPTED, report.haltReason());
    assertTrue(Duration.ofNanos(System.nanoTime() - started).toSeconds() < 15,
        "the run did not wait out the 30 s summarizer");
  }
}
