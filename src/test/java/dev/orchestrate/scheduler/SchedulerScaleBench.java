package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.InProcessLauncher;
import dev.orchestrate.testing.TestStores;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler thread's CPU per phase as the backlog grows (issue 33): an instant in-process
 * agent, two phases per item, {@code max_concurrent} 4, 400 phases, over backlogs of the sizes in
 * {@code -Dbench.items=1000,10000,100000} (with {@code -Dbench.deps=true}: random priorities and
 * dependencies). Measured from the run's start (after the backlog is
 * synced and loaded, which is O(items) once) to its end. Opt-in: it prints figures, it asserts
 * only that the run did its phases.
 */
@EnabledIfSystemProperty(named = "bench.items", matches = ".+")
class SchedulerScaleBench {
  private static final int PHASES = 400;

  @TempDir
  Path dir;

  @Test
  void scheduler_cpu_per_phase() throws Exception {
    for (String size : System.getProperty("bench.items").split(",")) {
      int n = Integer.parseInt(size.strip());
      double warm = measure(n, "warm" + n); // JIT warm-up on the same size
      double ms = measure(n, "run" + n);
      System.out.printf("BENCH items=%d scheduler CPU per phase: %.3f ms (warm-up run %.3f ms)%n", n, ms, warm);
    }
  }

  private double measure(int n, String name) throws Exception {
    Pipeline two = new Pipeline("feature", List.of(), List.of(phase("build"), phase("check")));
    Config base = config(agent(Path.of("unused.sh")), 0, two);
    Config config = base.withExecution(base.execution().withMaxConcurrent(4).withMaxWip(4));
    // With -Dbench.deps: random priorities, and a third of the items wait on an earlier one.
    boolean deps = Boolean.getBoolean("bench.deps");
    java.util.Random random = new java.util.Random(n);
    List<BacklogItem> items = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Priority priority = deps ? Priority.values()[random.nextInt(Priority.values().length)] : Priority.MEDIUM;
      List<String> on = deps && i > 0 && random.nextInt(3) == 0
          ? List.of(String.format("I%06d", random.nextInt(i)))
          : List.of();
      items.add(new BacklogItem(String.format("I%06d", i), "t", "feature", priority, on, List.of(), "",
          InitialStatus.NEW));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    AtomicLong startCpu = new AtomicLong();
    RunListener listener = new RunListener() {
      @Override
      public void runStarted(List<ItemState> all, ItemFilter filter) {
        startCpu.set(threads.getCurrentThreadCpuTime());
      }
    };
    try (InProcessLauncher launcher = InProcessLauncher.succeeding();
        StateStore store = TestStores.open(dir.resolve(name))) {
      Scheduler scheduler = Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), items),
          dir.resolve(name + "/jobs"), launcher, Clock.systemUTC()).listener(listener).build();
      RunReport report = scheduler.run(PHASES);
      long cpu = threads.getCurrentThreadCpuTime() - startCpu.get();
      assertEquals(PHASES, report.phasesRun());
      return cpu / 1e6 / PHASES;
    }
  }
}
