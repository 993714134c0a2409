package dev.orchestrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.app.RunSession;
import dev.orchestrate.backlog.WatchedBacklogFile;
import dev.orchestrate.cli.Cli;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.EventLogPolicy;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.scheduler.HaltReason;
import dev.orchestrate.scheduler.ItemFilter;
import dev.orchestrate.scheduler.RunListener;
import dev.orchestrate.scheduler.RunOptions;
import dev.orchestrate.scheduler.RunReport;
import dev.orchestrate.scheduler.Scheduler;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The soak test of issue 6: 2,500 items (7,500 agent runs) through a 3-phase pipeline with a real
 * (fast) agent program, two at a time, small retention limits, one long session wired exactly as
 * {@code orchestrate run} wires it. At a fifth, half and all of the items done it takes the runner's
 * heap after GC, the database size (file + WAL) and the job log directories on disk. Every limit is
 * reached before the first mark (300 job rows, 1,000 turns and events: a few hundred items), so
 * each mark measures the plateau. It ran 5,000 items until the suite outgrew its 20 minutes on a
 * slower CI machine: starting processes is half of the test's CPU there (the agent, {@code
 * setsid}, the JDK's spawn helper), a fifth of the whole suite's at 5,000
 * (docs/benchmarks.md, "The test suite's wall-clock time"). {@code -Dsoak.items=5000} runs the size
 * docs/benchmarks.md's figures were measured at.
 *
 * <p>What must plateau, and what may not: every structure under a retention policy (job history,
 * job log directories, turns, events, stats samples) and the heap stop growing once their limits
 * are reached. Three rows per item are the item's permanent record and are never pruned by a run
 * (the item itself, its rolling context summary, its episodic memory — `compact --keep-recent`
 * bounds the memories), so the database grows by a constant, small number of bytes per finished
 * item; the test asserts that this marginal growth does not rise between the two halves of the run
 * and stays under {@value #MAX_BYTES_PER_ITEM} bytes per item. Without retention the same run grows
 * the database by several times that and the log directories without limit.
 *
 * <p>Run only this test: {@code ./mvnw -B test -Dtest=SoakTest}; leave it out of a quick local
 * build with {@code -DexcludedGroups=soak}. {@code -Dsoak.items=N} changes the size.
 */
@Tag("soak")
class SoakTest {
  static final int MAX_BYTES_PER_ITEM = 1_536;
  static final int JOBS_MAX_ROWS = 300;
  static final int EVENTS_MAX_ROWS = 1_000;
  static final int TURNS_MAX_ROWS = 1_000;
  static final int SAMPLES_MAX_ROWS = 50;

  @TempDir
  Path dir;

  record Point(int done, long heapBytes, long dbBytes, long jobDirs, long jobDirBytes) {
    @Override
    public String toString() {
      return String.format("| %,d | %.1f MiB | %,d | %,d | %,d |", done, heapBytes / 1048576.0, dbBytes, jobDirs,
          jobDirBytes);
    }
  }

  @Test
  void thousands_of_items_through_three_phases_reach_a_plateau_of_heap_database_and_job_logs() throws Exception {
    int items = Integer.getInteger("soak.items", 2_500);
    List<Integer> marks = List.of(items / 5, items / 2, items);
    Path backlog = writeProject(items);
    Config config = ConfigLoader.load(dir.resolve("orchestrate.yaml"));
    WatchedBacklogFile backlogs = WatchedBacklogFile.load(backlog, config);
    StateDirectory state = new StateDirectory(dir.resolve("state"));
    List<Point> points = new ArrayList<>();
    Clock clock = Clock.systemUTC();
    RunReport report;
    long[] peakJobRows = {0};
    try (StateStore store = TestStores.open(state.root())) {
      RunListener measure = new RunListener() {
        int done;

        @Override
        public void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
          statusChanged(before, after);
        }

        @Override
        public void statusChanged(ItemState before, ItemState after) {
          if (after.status() == ItemStatus.DONE && before.status() != ItemStatus.DONE) {
            done++;
            if (done % 10 == 0) {
              peakJobRows[0] = Math.max(peakJobRows[0], jobRows(state));
            }
            if (marks.contains(done)) {
              points.add(measure(done, state));
            }
          }
        }
      };
      Scheduler scheduler = RunSession.scheduler(config, backlogs, state, clock, store, measure, measure);
      report = scheduler.run(new RunOptions(items * 3 + 10, ItemFilter.ALL));
    }
    System.out
        .println("soak: " + items + " items, 3 phases, max_concurrent 2, " + report.duration().toSeconds() + " s");
    System.out.println("| items done | heap after GC | database + WAL bytes | job log dirs | their bytes |");
    points.forEach(System.out::println);
    System.out.println("job history rows at most " + peakJobRows[0] + " (sampled every 10 items; max_rows "
        + JOBS_MAX_ROWS + ")");

    assertEquals(HaltReason.ALL_DONE, report.haltReason(), report.toString());
    assertEquals(items, report.done());
    assertEquals(3, points.size());
    Point first = points.get(0);
    Point middle = points.get(1);
    Point last = points.get(2);

    // heap: flat once the session is warm (the backlog of all items is loaded from the start)
    assertTrue(last.heapBytes() <= first.heapBytes() + 16L * 1024 * 1024,
        "heap grew from " + first + " to " + last);
    // job log directories on disk: bounded by the job history's retention. Their number is a
    // sawtooth (pruned to 60 % of max_rows each pass, growing until the next), so each sample is
    // held to the bound, not to the sample before it; and a directory does not grow.
    for (Point p : points) {
      assertTrue(p.jobDirs() <= JOBS_MAX_ROWS + 500, "job dirs " + p);
    }
    assertTrue(last.jobDirBytes() / Math.max(1, last.jobDirs()) <= first.jobDirBytes() / Math.max(1, first.jobDirs())
        * 5 / 4, "bytes per job directory " + first + " -> " + last);
    assertTrue(peakJobRows[0] <= JOBS_MAX_ROWS + 500, "job history peaked at " + peakJobRows[0]);
    // database: the marginal growth per finished item does not rise, and is only the items' own record
    double early = (double) (middle.dbBytes() - first.dbBytes()) / (middle.done() - first.done());
    double late = (double) (last.dbBytes() - middle.dbBytes()) / (last.done() - middle.done());
    System.out.printf("database growth per item: %.0f bytes (%d..%d), %.0f bytes (%d..%d)%n",
        early, first.done(), middle.done(), late, middle.done(), last.done());
    assertTrue(late <= MAX_BYTES_PER_ITEM, "late growth per item " + late);
    assertTrue(late <= early * 1.25 + 64, "growth per item rose: " + early + " -> " + late);

    StringWriter stats = new StringWriter();
    CommandLine cli = Cli.commandLine(Map.of());
    cli.setOut(new PrintWriter(stats, true));
    cli.setErr(new PrintWriter(stats, true));
    int statsExit = cli.execute("--state", state.root().toString(), "stats", "--check");
    System.out.println(stats);
    assertEquals(0, statsExit, "stats --check stays ok:\n" + stats);

    try (StateStore store = TestStores.backend(state.root()).open(StateStore.Mode.READ_ONLY)) {
      // the run's last maintenance pass leaves the job history at retention's target, 60 % of max_rows
      assertTrue(TestStores.jobs(store).size() <= JOBS_MAX_ROWS * 60 / 100, "jobs");
      long slack = 500 + 2L * 6; // a pass's budget of rows can accumulate between passes, plus the active items' turns
      assertTrue(TestStores.turns(store).size() <= TURNS_MAX_ROWS + slack, "turns");
      assertTrue(TestStores.events(store).stream().filter(e -> !loadBearing(e.event())).count() <= EVENTS_MAX_ROWS
          + slack, "routine events");
      assertTrue(store.dashboard().samples(Integer.MAX_VALUE).size() <= SAMPLES_MAX_ROWS + 1, "stats samples");
    }
  }

  /** Whether the event log's policy keeps {@code event} always (retention never deletes it). */
  private static boolean loadBearing(Event event) {
    Map<String, String> text = new HashMap<>();
    event.payload().forEach((k, v) -> text.put(k, v == null ? null : String.valueOf(v)));
    return EventLogPolicy.isLoadBearing(event.kind(), text);
  }

  private Path writeProject(int items) throws IOException {
    // A fast agent: reads its prompt to its end, answers with a short summary naming a file, succeeds.
    // One program (awk), not a script: sh and the cat it forked were two process starts an agent
    // run, and starting them is most of this test's CPU (at 1,000 items: its processes' CPU 30 % less,
    // its time 20 % less).
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["awk", 'END { print "Changed src/main/App.java: added the handler; tests pass." }']
          timeout: 1m
        execution:
          max_wip: 2
          max_concurrent: 2
          phase_cap: %d
        retention:
          maintenance_interval: %s
          budget: 500
          jobs: {max_rows: %d}
          turns: {max_rows: %d}
          events: {max_rows: %d}
          stats_samples: {max_rows: %d}
        default_pipeline: three
        pipelines:
          three:
            phases:
              - name: scope
                instructions: "Scope it."
              - name: build
                instructions: "Build it."
              - name: review
                instructions: "Review it."
        """.formatted(items * 3 + 10, System.getProperty("soak.interval", "1s"), JOBS_MAX_ROWS,
        TURNS_MAX_ROWS, EVENTS_MAX_ROWS, SAMPLES_MAX_ROWS));
    StringBuilder yaml = new StringBuilder("items:\n");
    for (int i = 1; i <= items; i++) {
      yaml.append(String.format("  - {id: S%05d, title: soak item %d}%n", i, i));
    }
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, yaml);
    return backlog;
  }

  /** Rows in the job history now, from its trigger-kept counter (as stats reads it). */
  private static long jobRows(StateDirectory state) {
    try (StateStore store = TestStores.backend(state.root()).open(StateStore.Mode.READ_ONLY)) {
      return store.stats().read(Instant.now()).structures().stream().filter(s -> s.name().equals("jobs"))
          .findFirst().orElseThrow().rowsNow();
    }
  }

  private static Point measure(int done, StateDirectory state) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    long db = TestStores.backend(state.root()).bytes();
    long[] logs = directories(state.jobs());
    return new Point(done, heap, db, logs[0], logs[1]);
  }

  /** {job directories, bytes of their files} under {@code jobs}. */
  private static long[] directories(Path jobs) {
    long[] figures = new long[2];
    if (!Files.isDirectory(jobs)) {
      return figures;
    }
    try (Stream<Path> all = Files.walk(jobs)) {
      all.forEach(p -> {
        if (Files.isDirectory(p)) {
          figures[0]++;
        } else {
          try {
            figures[1] += Files.size(p);
          } catch (IOException e) {
            // deleted by retention while we walked
          }
        }
      });
    } catch (IOException | UncheckedIOException e) {
      // a directory deleted by retention mid-walk: count what was seen
    }
    figures[0] = Math.max(0, figures[0] - 1);
    return figures;
  }
}
