package dev.orchestrate.state.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import dev.orchestrate.context.BuiltinSummarizer;
import dev.orchestrate.context.SlidingWindowSummarizer;
import dev.orchestrate.context.SummarizationException;
import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.context.Summarizer;
import dev.orchestrate.context.Turn;
import dev.orchestrate.context.TurnRepository;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.retention.Retention;
import dev.orchestrate.retention.RetentionPass;
import dev.orchestrate.retention.RetentionStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retention passes over a real SQLite file, on a settable clock (docs/how-it-works.md). */
class SqlRetentionTest {
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

  @TempDir
  Path dir;

  private SqlStateStore store;
  private Jdbc jdbc;
  private SqlRetention retention;
  /** The policy decisions, over the SQLite rows. */
  private Retention walk;

  @BeforeEach
  void open() {
    store = SqliteStores.open(dir.resolve("state/state.db"));
    jdbc = store.jdbc();
    retention = new SqlRetention(jdbc, dir.resolve("state"), dir.resolve("state/jobs"));
    walk = new Retention(retention);
  }

  @AfterEach
  void close() throws Exception {
    store.close();
  }

  private static RetentionConfig only(String structure, Policy policy, int budget) {
    Policy none = Policy.NONE;
    return new RetentionConfig(Duration.ofMinutes(1), budget,
        structure.equals("jobs") ? policy : none, structure.equals("turns") ? policy : none,
        structure.equals("events") ? policy : none, structure.equals("stats_samples") ? policy : none);
  }

  private long count(String sql) {
    return jdbc.queryLong(sql);
  }

  private long counter(String structure, String column) {
    return jdbc.queryLong("SELECT " + column + " FROM structures WHERE name = ?", structure);
  }

  /** Jobs 1..n, ended at T0 + i seconds, each with a log directory holding one file. */
  private void jobs(int n, String state) throws Exception {
    long first = count("SELECT COALESCE(MAX(id), 0) FROM jobs") + 1;
    jdbc.inTransaction(() -> {
      for (long i = first; i < first + n; i++) {
        Path log = dir.resolve("state/jobs/run1-" + i + "-I-build-1/output.log");
        jdbc.execute("""
            INSERT INTO jobs (run_id, item_id, phase, attempt, state, started_at, ended_at, log_path, log_bytes)
            VALUES (1, 'I', 'build', 1, ?, ?, ?, ?, 10)""", state, T0.toEpochMilli() + i * 1000,
            state.equals("running") ? null : T0.toEpochMilli() + i * 1000, log.toString());
      }
    });
    for (long i = first; i < first + n; i++) {
      Path log = dir.resolve("state/jobs/run1-" + i + "-I-build-1/output.log");
      Files.createDirectories(log.getParent());
      Files.writeString(log, "0123456789");
    }
  }

  private Path jobDirs() {
    return dir.resolve("state/jobs");
  }

  private long dirs() throws Exception {
    try (var list = Files.list(jobDirs())) {
      return list.count();
    }
  }

  @Test
  void twenty_thousand_jobs_come_down_to_max_rows_in_budgeted_passes_and_their_log_directories_with_them()
      throws Exception {
    jobs(3, "running");
    jobs(20_000, "completed");
    RetentionConfig config = only("jobs", Policy.of(1_000, null), 500); // kept: 60 % of max_rows
    int passes = 0;
    long deleted;
    do {
      RetentionPass pass = walk.pass(config, 50, T0.plusSeconds(100_000), RetentionStore.Condenser.NONE);
      deleted = pass.deleted(StructureName.JOBS);
      assertTrue(deleted <= 500, "a pass deletes at most the budget: " + deleted);
      passes++;
    } while (deleted > 0);
    assertEquals(600, count("SELECT COUNT(*) FROM jobs"), "60 % of max_rows, counting every row, running ones too");
    assertEquals(3, count("SELECT COUNT(*) FROM jobs WHERE state = 'running'"), "a running job is never pruned");
    assertEquals(600, dirs(), "log directories deleted with their rows");
    assertEquals(20_003, counter("jobs", "rows_written"));
    assertEquals(19_403, counter("jobs", "rows_pruned"));
    assertEquals(19_403, counter("job_logs", "rows_pruned"));
    assertEquals(600 * 10, counter("job_logs", "bytes"), "bytes of the kept jobs' directories");
    assertEquals(1_000, counter("jobs", "max_rows"), "the policy applied is recorded for stats");
    assertEquals(T0.plusSeconds(100_000).toEpochMilli(), counter("jobs", "last_pruned_at"));
    assertTrue(passes >= 39 && passes <= 41, "19,403 rows at 500 a pass: " + passes);
  }

  @Test
  void jobs_and_samples_older_than_max_age_go_on_a_settable_clock_and_younger_ones_stay() throws Exception {
    jobs(100, "completed"); // ended at T0+1s .. T0+100s
    RetentionConfig config = only("jobs", Policy.of(null, Duration.ofSeconds(60)), 1_000);
    walk.pass(config, 50, T0.plusSeconds(100), RetentionStore.Condenser.NONE);
    assertEquals(61, count("SELECT COUNT(*) FROM jobs"), "ended before T0+40s (60 s before T0+100s): 1..39 go");
    assertEquals(40, count("SELECT MIN(id) FROM jobs"));
    walk.pass(config, 50, T0.plusSeconds(100), RetentionStore.Condenser.NONE);
    assertEquals(61, count("SELECT COUNT(*) FROM jobs"), "nothing more is old enough");
    walk.pass(config, 50, T0.plusSeconds(1_000), RetentionStore.Condenser.NONE);
    assertEquals(0, count("SELECT COUNT(*) FROM jobs"), "a day later, all");
  }

  @Test
  void budget_1_deletes_one_row_per_pass_and_resumes_from_the_saved_cursor() {
    for (int i = 0; i < 3; i++) {
      jdbc.execute("INSERT INTO stats_samples (at, source, db_bytes, rows) VALUES (?, 'stats', 0, '{}')",
          T0.toEpochMilli() + i);
    }
    RetentionConfig config = only("stats_samples", Policy.of(0, null), 1);
    RetentionPass first = walk.pass(config, 50, T0, RetentionStore.Condenser.NONE);
    assertEquals(1L, first.deleted(StructureName.STATS_SAMPLES));
    assertEquals(1, counter("stats_samples", "cursor"), "cursor after the deleted row 1");
    assertFalse(first.finished());
    walk.pass(config, 50, T0, RetentionStore.Condenser.NONE);
    assertEquals(List.of(3L), jdbc.query("SELECT id FROM stats_samples", rs -> rs.getLong(1)), "continued at row 2");
    walk.pass(config, 50, T0, RetentionStore.Condenser.NONE);
    assertEquals(0, count("SELECT COUNT(*) FROM stats_samples"));
    RetentionPass after = walk.pass(config, 50, T0, RetentionStore.Condenser.NONE);
    assertEquals(0L, after.deleted(StructureName.STATS_SAMPLES), "a pass after the end deletes nothing");
    assertEquals(0, counter("stats_samples", "cursor"), "and starts over from the oldest next time");
  }

  @Test
  void the_next_pass_starts_after_the_cursor_not_from_the_oldest_row() throws Exception {
    jobs(1, "running"); // id 1: never pruned while it runs
    jobs(3, "completed"); // ids 2..4
    RetentionConfig config = only("jobs", Policy.of(0, null), 1);
    walk.pass(config, 50, T0.plusSeconds(100), RetentionStore.Condenser.NONE);
    assertEquals(List.of(1L, 3L, 4L), jdbc.query("SELECT id FROM jobs ORDER BY id", rs -> rs.getLong(1)),
        "the running job is stepped over, job 2 goes");
    assertEquals(2, counter("jobs", "cursor"));

    jdbc.execute("UPDATE jobs SET state = 'completed', ended_at = ? WHERE id = 1", T0.toEpochMilli());
    walk.pass(config, 50, T0.plusSeconds(100), RetentionStore.Condenser.NONE);
    assertEquals(List.of(1L, 4L), jdbc.query("SELECT id FROM jobs ORDER BY id", rs -> rs.getLong(1)),
        "job 3, after the cursor: job 1, behind it, waits for the walk to start over");
    walk.pass(config, 50, T0.plusSeconds(100), RetentionStore.Condenser.NONE); // job 4
    RetentionPass end = walk.pass(config, 50, T0.plusSeconds(100), RetentionStore.Condenser.NONE);
    assertEquals(0L, end.deleted(StructureName.JOBS), "nothing after the cursor any more");
    assertEquals(0, counter("jobs", "cursor"), "the walk reached the end: it starts over from the oldest");
    walk.pass(config, 50, T0.plusSeconds(100), RetentionStore.Condenser.NONE);
    assertEquals(List.of(), jdbc.query("SELECT id FROM jobs ORDER BY id", rs -> rs.getLong(1)), "and takes job 1");
  }

  @Test
  void events_samples_and_covered_turns_older_than_max_age_go_and_younger_ones_stay() {
    for (int i = 1; i <= 100; i++) {
      Events.insert(jdbc, T0.toEpochMilli() + i * 1000L, "I", "item.status",
          java.util.Map.of("from", "ready", "to", "in_progress"));
      jdbc.execute("INSERT INTO stats_samples (at, source, db_bytes, rows) VALUES (?, 'stats', 0, '{}')",
          T0.toEpochMilli() + i * 1000L);
    }
    TurnRepository repo = new SqlTurnRepository(jdbc);
    item("DONE", "done");
    for (int i = 1; i <= 6; i++) {
      repo.appendTurn("DONE", "build", 1, Turn.Role.USER, "turn " + i, T0.plusSeconds(i * 10L));
    }
    window(repo, new BuiltinSummarizer(4_000)).prepare("DONE"); // window 2: turns 1..4 covered
    Policy minute = Policy.of(null, Duration.ofSeconds(60));
    RetentionConfig config = new RetentionConfig(Duration.ofMinutes(1), 1_000, Policy.NONE, minute, minute, minute);

    walk.pass(config, 50, T0.plusSeconds(100), RetentionStore.Condenser.NONE);

    assertEquals(40, count("SELECT MIN(id) FROM events"), "routine events written before T0+40s went");
    assertEquals(61, count("SELECT COUNT(*) FROM stats_samples"), "samples at T0+40s..100s stay");
    assertEquals(List.of(4L, 5L, 6L), jdbc.query("SELECT seq FROM turns ORDER BY seq", rs -> rs.getLong(1)),
        "covered turns 1..3 are older than a minute; 4 (exactly a minute old) stays, and 5, 6, not covered");
  }

  @Test
  void events_keep_every_load_bearing_row_and_the_newest_however_low_max_rows_is() {
    for (int i = 0; i < 2_000; i++) {
      Events.insert(jdbc, T0.toEpochMilli() + i, "I" + i, "item.status", i % 10 == 0
          ? java.util.Map.of("from", "in_progress", "to", "done")
          : java.util.Map.of("from", "ready", "to", "in_progress"));
    }
    assertEquals(200, counter("events", "kept_rows"));
    RetentionConfig config = only("events", Policy.of(50, null), 10_000); // keeps 30 routine rows
    walk.pass(config, 50, T0, RetentionStore.Condenser.NONE);
    assertEquals(200, count("SELECT COUNT(*) FROM events WHERE load_bearing = 1"));
    assertEquals(30, count("SELECT COUNT(*) FROM events WHERE load_bearing = 0"), "the 30 newest routine rows");
    assertEquals(1_999, count("SELECT MAX(id) - 1 FROM events"));
    assertEquals(1_770, counter("events", "rows_pruned"));
  }

  private void item(String id, String status) {
    jdbc.execute("""
        INSERT INTO items (id, seq, title, pipeline, priority, status, created_at, updated_at)
        VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM items), ?, 'feature', 'medium', ?, 0, 0)""",
        id, id, status);
  }

  private SlidingWindowSummarizer window(TurnRepository turns, Summarizer summarizer) {
    return new SlidingWindowSummarizer(turns, summarizer, null, 2, 4_000, null,
        Clock.fixed(T0, ZoneOffset.UTC), SummarizationListener.NONE, UnaryOperator.identity());
  }

  private void turns(TurnRepository turns, String item, int n) {
    for (int i = 0; i < n; i++) {
      turns.appendTurn(item, "build", 1, i % 2 == 0 ? Turn.Role.USER : Turn.Role.ASSISTANT,
          "turn " + i + " of " + item + ": changed src/App.java", T0.plusSeconds(i));
    }
  }

  @Test
  void summarize_then_prune_never_deletes_an_unsummarized_turn_and_condenses_finished_items_in_one_go() {
    TurnRepository repo = new SqlTurnRepository(jdbc);
    SlidingWindowSummarizer window = window(repo, new BuiltinSummarizer(4_000));
    item("ACTIVE", "in_progress");
    item("DONE", "done");
    turns(repo, "ACTIVE", 6);
    window.prepare("ACTIVE"); // window 2: turns 1..4 summarized, 5..6 verbatim
    turns(repo, "DONE", 6);
    RetentionConfig config = only("turns", Policy.of(0, null), 100);

    RetentionPass pass = walk.pass(config, 50, T0, window::condense);

    assertEquals(List.of(5L, 6L), jdbc.query("SELECT seq FROM turns WHERE item_id = 'ACTIVE' ORDER BY seq",
        rs -> rs.getLong(1)), "covered turns pruned, the active item's window kept");
    assertEquals(0, count("SELECT COUNT(*) FROM turns WHERE item_id = 'DONE'"), "condensed into its summary");
    assertEquals(6, repo.summary("DONE").orElseThrow().toSeq());
    assertEquals(10L, pass.deleted(StructureName.TURNS));
    assertEquals(6, repo.lastTurnSeq("DONE"), "numbering goes on after pruned turns");
    repo.appendTurn("DONE", "build", 2, Turn.Role.USER, "after an unblock", T0);
    assertEquals(7, repo.lastTurnSeq("DONE"));
  }

  @Test
  void when_summarization_fails_nothing_is_deleted() {
    TurnRepository repo = new SqlTurnRepository(jdbc);
    Summarizer failing = new Summarizer() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public String summarize(String prompt) throws SummarizationException {
        throw new SummarizationException("endpoint unreachable");
      }
    };
    item("DONE", "done");
    turns(repo, "DONE", 6);
    RetentionPass pass = walk.pass(only("turns", Policy.of(0, null), 100), 50, T0,
        window(repo, failing)::condense);
    assertEquals(0L, pass.deleted(StructureName.TURNS));
    assertEquals(6, count("SELECT COUNT(*) FROM turns"));
    assertTrue(repo.summary("DONE").isEmpty());
  }

  @Test
  void a_pass_that_steps_aside_after_each_unit_ends_where_an_uninterrupted_pass_ends() throws Exception {
    jobs(2_000, "completed");
    for (int i = 0; i < 2_000; i++) {
      jdbc.execute("INSERT INTO stats_samples (at, source, db_bytes, rows) VALUES (?, 'stats', 0, '{}')",
          T0.toEpochMilli() + i);
    }
    RetentionConfig config = new RetentionConfig(Duration.ofMinutes(1), 500, Policy.of(1_000, null), Policy.NONE,
        Policy.NONE, Policy.of(1_000, null));

    RetentionPass pass = walk.pass(config, 50, T0.plusSeconds(10_000), RetentionStore.Condenser.NONE,
        () -> true);
    int calls = 1;
    assertEquals(List.of(StructureName.TURNS, StructureName.EVENTS, StructureName.STATS_SAMPLES), pass.left(),
        "one unit (jobs), then it stepped aside");
    assertEquals(500L, pass.deleted(StructureName.JOBS));
    assertEquals(2_000, count("SELECT COUNT(*) FROM stats_samples"), "samples untouched so far");
    while (pass.stepped()) {
      pass = walk.resume(pass, config, T0.plusSeconds(10_000), RetentionStore.Condenser.NONE, () -> true);
      calls++;
    }
    assertEquals(4, calls, "one structure per call while the scheduler is busy");
    assertEquals(500L, pass.deleted(StructureName.JOBS), "the whole pass is counted, each structure within its budget");
    assertEquals(500L, pass.deleted(StructureName.STATS_SAMPLES));
    assertEquals(1_500, count("SELECT COUNT(*) FROM jobs"));
    assertEquals(1_500, count("SELECT COUNT(*) FROM stats_samples"));
  }

  @Test
  void condensing_steps_aside_between_items_and_the_next_call_continues_where_it_stopped() {
    TurnRepository repo = new SqlTurnRepository(jdbc);
    SlidingWindowSummarizer window = window(repo, new BuiltinSummarizer(4_000));
    List<String> condensed = new java.util.ArrayList<>();
    RetentionStore.Condenser counting = itemId -> {
      condensed.add(itemId);
      return window.condense(itemId);
    };
    for (String id : List.of("A", "B", "C")) {
      item(id, "done");
      turns(repo, id, 4);
    }
    RetentionConfig config = only("turns", Policy.of(0, null), 100);

    RetentionPass pass = walk.pass(config, 50, T0, counting, () -> true);
    assertEquals(List.of(), condensed, "jobs were this call's unit; the scheduler comes first");
    assertEquals(List.of(StructureName.TURNS, StructureName.EVENTS, StructureName.STATS_SAMPLES), pass.left());
    pass = walk.resume(pass, config, T0, counting, () -> true);
    assertEquals(List.of("A"), condensed, "one summarizer call per call while the scheduler is busy");
    assertEquals(List.of(StructureName.TURNS, StructureName.EVENTS, StructureName.STATS_SAMPLES), pass.left(),
        "turns continue first");
    assertEquals(4L, pass.deleted(StructureName.TURNS));
    assertEquals(8, count("SELECT COUNT(*) FROM turns"), "B and C untouched");
    assertEquals(4, counter("turns", "cursor"), "after A's rows, before the first row not looked at");

    pass = walk.resume(pass, config, T0, counting, () -> true);
    assertEquals(List.of("A", "B"), condensed);
    pass = walk.resume(pass, config, T0, counting, () -> false);
    assertEquals(List.of("A", "B", "C"), condensed, "idle: the rest of the pass in one call");
    assertFalse(pass.stepped());
    assertEquals(12L, pass.deleted(StructureName.TURNS));
    assertEquals(0, count("SELECT COUNT(*) FROM turns"));
    for (String id : List.of("A", "B", "C")) {
      assertEquals(4, repo.summary(id).orElseThrow().toSeq(), "every turn is in its item's summary");
    }
  }

  @Test
  void lifetime_counters_survive_pruning_and_vacuum() throws Exception {
    jobs(500, "completed");
    walk.full(only("jobs", Policy.of(100, null), 50), 50, T0.plusSeconds(10_000),
        RetentionStore.Condenser.NONE, n -> {});
    store.vacuum();
    store.close();
    store = SqliteStores.open(dir.resolve("state/state.db"));
    jdbc = store.jdbc();
    assertEquals(500, counter("jobs", "rows_written"));
    assertEquals(440, counter("jobs", "rows_pruned"));
    assertEquals(60, count("SELECT COUNT(*) FROM jobs"));
    assertTrue(counter("jobs", "last_pruned_at") > 0);
  }

  @Test
  void a_log_path_outside_a_job_directory_never_takes_the_jobs_directory_with_it() {
    assertEquals(null, SqlRetention.jobDirectory(Path.of("/state/jobs/output.log")));
    assertEquals(null, SqlRetention.jobDirectory(Path.of("output.log")));
    assertEquals(Path.of("/state/jobs/run1-0001-A-build-1"),
        SqlRetention.jobDirectory(Path.of("/state/jobs/run1-0001-A-build-1/output.log")));
    // A runner's own logs directory (--logs) may have any name; the job directory's name is checked.
    assertEquals(Path.of("/var/lib/logs/run12-0003-A-build-2"),
        SqlRetention.jobDirectory(Path.of("/var/lib/logs/run12-0003-A-build-2/output.log")));
    assertEquals(null, SqlRetention.jobDirectory(Path.of("/var/lib/logs/notes/output.log")));
    assertEquals(null, SqlRetention.jobDirectory(Path.of("/run1-0001-A-build-1")));
  }
}
