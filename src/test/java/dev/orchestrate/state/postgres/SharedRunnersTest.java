package dev.orchestrate.state.postgres;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.InProcessLauncher.outcome;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.scheduler.HaltReason;
import dev.orchestrate.scheduler.RunOptions;
import dev.orchestrate.scheduler.RunReport;
import dev.orchestrate.scheduler.Scheduler;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import dev.orchestrate.testing.InProcessLauncher;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several schedulers, each a runner with its own registration, store and agents, drive one backlog
 * on one PostgreSQL state at once (threads of this JVM here; processes in {@code MultiRunnerIT}).
 */
class SharedRunnersTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");
  private static final int RUNNERS = 3;
  private static final int ITEMS = 300;
  private static final int MAX_WIP = 6;
  private static final int MAX_CONCURRENT = 2;

  @TempDir
  Path dir;

  /** design, build, review; no pre-phases */
  private static Pipeline threePhases() {
    return new Pipeline("feature", List.of(), List.of(phase("design"), phase("build"), phase("review")));
  }

  @Test
  void three_runners_finish_a_300_item_backlog_with_no_item_worked_on_twice_at_once_and_max_wip_held_across_them()
      throws Exception {
    String schema = EmbeddedPostgresServer.freshSchema("shared");
    PostgresBackend backend = TestBackend.on(schema, "host-a", dir);
    Config config = config(agent(Path.of("unused.sh")), 0, threePhases());
    Config shared = config.withExecution(config.execution().withMaxWip(MAX_WIP).withMaxConcurrent(MAX_CONCURRENT));
    List<BacklogItem> items = new ArrayList<>();
    for (int i = 0; i < ITEMS; i++) {
      items.add(item(String.format("I%04d", i)));
    }
    Backlog backlog = new Backlog(dir.resolve("backlog.yaml"), items);

    // Who works on which item now: an agent finding its item taken is an overlap.
    Map<String, String> working = new ConcurrentHashMap<>();
    AtomicInteger overlaps = new AtomicInteger();
    Map<String, AtomicInteger> completions = new ConcurrentHashMap<>();
    AtomicBoolean sampling = new AtomicBoolean(true);
    AtomicInteger peakWip = new AtomicInteger();
    backend.open(StateStore.Mode.READ_WRITE).close(); // the schema is there before the sampler reads it
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        peakWip.accumulateAndGet((int) count(schema, "SELECT count(*) FROM items WHERE status = 'in_progress'"),
            Math::max);
      }
    }, "wip-sampler");
    sampler.start();

    List<CompletableFuture<RunReport>> runs = new ArrayList<>();
    List<InProcessLauncher> launchers = new ArrayList<>();
    for (int r = 0; r < RUNNERS; r++) {
      String name = "runner-" + r;
      InProcessLauncher launcher = new InProcessLauncher(request -> {
        if (working.putIfAbsent(request.itemId(), name) != null) {
          overlaps.incrementAndGet();
        }
        try {
          Thread.sleep(2 + (request.itemId().hashCode() & 7));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        completions.computeIfAbsent(request.itemId() + "/" + request.phase(), k -> new AtomicInteger())
            .incrementAndGet();
        working.remove(request.itemId(), name);
        return outcome(AgentResult.PHASE_COMPLETE, request.itemId() + " " + request.phase() + " done");
      });
      launchers.add(launcher);
      runs.add(CompletableFuture.supplyAsync(() -> {
        try (RunLease lease = backend.acquireLease(T0, Duration.ofSeconds(30));
            StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
          ItemLeases leases = store.leases(lease.runnerId(), lease.host(), Duration.ofSeconds(30));
          return Scheduler.builder(store.items(), shared, backlog, dir.resolve("state/jobs"), launcher,
              Clock.systemUTC()).leases(leases).build().run(RunOptions.cap(100_000));
        }
      }));
    }
    List<RunReport> reports = new ArrayList<>();
    for (CompletableFuture<RunReport> run : runs) {
      reports.add(run.get(5, TimeUnit.MINUTES));
    }
    sampling.set(false);
    sampler.join();
    launchers.forEach(InProcessLauncher::close);

    assertEquals(0, overlaps.get(), "never two agents on one item at once");
    assertTrue(peakWip.get() <= MAX_WIP, "in_progress across all runners peaked at " + peakWip.get());
    assertTrue(peakWip.get() > MAX_CONCURRENT, "several runners had items in progress at once: " + peakWip.get());
    Set<String> runnerIds = new HashSet<>();
    int phases = 0;
    for (RunReport report : reports) {
      assertEquals(HaltReason.ALL_DONE, report.haltReason(), report.toString());
      assertEquals(ITEMS, report.done());
      assertTrue(runnerIds.add(report.runnerId()), "each runner has its own id: " + report.runnerId());
      assertTrue(report.figures().summaryMapPeak() <= MAX_WIP + MAX_CONCURRENT, report.figures().toString());
      assertEquals(0, report.figures().summaryMapFinal());
      assertTrue(report.figures().jobTablePeakActive() <= MAX_CONCURRENT, report.figures().toString());
      assertTrue(report.figures().jobTableFinal() <= MAX_CONCURRENT + 3, report.figures().toString());
      phases += report.phasesRun();
    }
    assertEquals(ITEMS * 3, phases, "each phase of each item ran once, by one runner or another");
    assertEquals(ITEMS * 3, completions.size());
    completions.forEach((key, n) -> assertEquals(1, n.get(), key + " ran " + n.get() + " times"));
    assertEquals(ITEMS, count(schema, "SELECT count(*) FROM items WHERE status = '" + ItemStatus.DONE.key() + "'"));
    assertEquals(0, count(schema, "SELECT count(*) FROM items WHERE lease_owner IS NOT NULL"), "all released");
    assertEquals(0, count(schema, "SELECT count(*) FROM runners"), "all deregistered");
    Map<String, Long> jobsPerRunner = new HashMap<>();
    for (String id : runnerIds) {
      jobsPerRunner.put(id, count(schema, "SELECT count(*) FROM jobs WHERE runner_id = '" + id + "'"));
    }
    assertTrue(jobsPerRunner.values().stream().allMatch(n -> n > 0), "every runner did some of the work: "
        + jobsPerRunner);
  }

  private static long count(String schema, String sql) {
    return Long.parseLong(EmbeddedPostgresServer.text(schema, sql));
  }
}
