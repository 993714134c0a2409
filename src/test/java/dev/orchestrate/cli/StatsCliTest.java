package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.stats.Sample;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code orchestrate stats} through the real CLI, against real state databases. */
class StatsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path state() {
    return dir.resolve("state");
  }

  private Path db() {
    return state().resolve("state.db");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state().toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  private JsonNode stats() throws Exception {
    CliRunner.Result r = cli("stats", "--json");
    assertEquals(0, r.exitCode(), r.err());
    return JSON.readTree(r.out());
  }

  private static JsonNode structure(JsonNode doc, String name) {
    for (JsonNode s : doc.get("structures")) {
      if (s.get("name").asText().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no structure " + name + " in " + doc);
  }

  private void sql(String... statements) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      for (String s : statements) {
        st.executeUpdate(s);
      }
    }
  }

  /** A real run of 3 items through two phases, with a script agent. */
  private void busy() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, "cat >/dev/null\necho done\n");
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n  - {id: C, title: c}\n");
    CliRunner.Result run = cli("--quiet", "--config", config.toString(), "run", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
  }

  /** Every stats sample stored, in time order, read without writing. */
  private List<Sample> samples() {
    return TestStores.read(state(), store -> store.dashboard().samples(Integer.MAX_VALUE));
  }

  /** A state database as the first command creates it: migrated, nothing in it. */
  private void freshDatabase() {
    TestStores.open(state()).close();
    assertTrue(Files.isRegularFile(db()));
  }

  /** Inserts {@code n} stats samples written {@code ago} before now, with an empty rows object. */
  private void samples(int n, Duration ago) throws Exception {
    samples(n, ago, "{}");
  }

  private void samples(int n, Duration ago, String rows) throws Exception {
    sql("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " + n + ") "
        + "INSERT INTO stats_samples (at, source, db_bytes, rows) SELECT "
        + (System.currentTimeMillis() - ago.toMillis()) + ", 'run', 0, '" + rows + "' FROM n");
  }

  @Test
  void without_a_database_it_reports_nothing_grown_where_it_looked_exits_0_and_creates_nothing() throws Exception {
    JsonNode doc = stats();
    assertEquals(1, doc.get("schema_version").asInt());
    assertEquals("stats", doc.get("kind").asText());
    assertFalse(doc.get("database_exists").asBoolean());
    assertEquals("ok", doc.get("status").asText());
    assertEquals("normal", doc.get("pressure").asText());
    assertEquals(0, doc.get("structures").size());
    assertFalse(Files.exists(state()), "stats never creates the state directory");
    assertEquals("no state database in " + state().toAbsolutePath() + " yet: nothing has grown (status ok)\n",
        cli("stats").out());
  }

  @Test
  void check_exits_2_on_a_state_directory_that_does_not_exist_or_has_no_database() throws Exception {
    for (int i = 0; i < 2; i++) {
      CliRunner.Result r = cli("stats", "--check");
      assertEquals(2, r.exitCode());
      assertEquals("", r.out());
      assertEquals(List.of("orchestrate: error: no state database in " + state().toAbsolutePath() + ": nothing to "
          + "check; point --state (or ORCHESTRATE_STATE) at the state directory of a project that has run"),
          r.err().lines().toList());
      Files.createDirectories(state());
    }
    assertEquals(List.of(), Files.list(state()).toList(), "nothing created");
  }

  @Test
  void check_exits_2_on_a_state_path_that_is_a_file() throws Exception {
    Files.writeString(state(), "not a directory");
    CliRunner.Result r = cli("stats", "--check");
    assertEquals(2, r.exitCode());
    assertEquals(
        List.of("orchestrate: error: " + state().toAbsolutePath() + " is not a directory; move the file away or "
            + "use another state directory (--state or ORCHESTRATE_STATE)"),
        r.err().lines().toList());
    assertEquals("not a directory", Files.readString(state()));
  }

  @Test
  void on_an_existing_empty_database_every_structure_reads_0_with_no_limit_and_nothing_warns() throws Exception {
    freshDatabase();
    JsonNode doc = stats();
    assertTrue(doc.get("database_exists").asBoolean());
    assertEquals("ok", doc.get("status").asText());
    assertEquals("normal", doc.get("pressure").asText());
    assertEquals(9, doc.get("structures").size());
    for (JsonNode s : doc.get("structures")) {
      String name = s.get("name").asText();
      assertEquals(0, s.get("rows").asLong(), name);
      assertEquals(0, s.get("rows_ever").asLong(), name);
      assertEquals(0, s.get("rows_pruned").asLong(), name);
      assertTrue(s.get("last_pruned_at").isNull(), name);
      assertTrue(s.get("utilisation").isNull(), name + ": no policy recorded yet");
      assertTrue(s.get("rows_per_hour").isNull(), name);
      assertEquals("ok", s.get("status").asText(), name);
    }
    assertTrue(structure(doc, "jobs").get("limit").get("max_rows").isNull());
    assertTrue(structure(doc, "memory").get("limit").get("keep_recent").isNull());
    assertEquals(0, doc.get("warnings").size());
    assertEquals(0, doc.get("memory").get("prunable").asLong());
    assertEquals(50, doc.get("memory").get("keep_recent").asLong(), "the default when none was recorded");
    assertEquals(0, doc.get("memory").get("over_keep_recent").asLong());
    assertTrue(doc.get("last_run").isNull());
    assertEquals(0, doc.get("trend").get("samples").asInt());
    assertTrue(doc.get("trend").get("from").isNull());
    JsonNode db = doc.get("database");
    assertTrue(db.get("page_size").asLong() > 0);
    assertTrue(db.get("page_count").asLong() > 0);
    assertTrue(db.get("file_bytes").asLong() > 0);

    JsonNode second = stats();
    assertEquals(1, second.get("trend").get("samples").asInt(), "the first call's sample");
    assertEquals(1, structure(second, "stats_samples").get("rows").asLong());
    assertEquals(0, cli("stats", "--check").exitCode());
    assertTrue(cli("stats").out().startsWith("pressure: normal, status: ok"));
  }

  @Test
  void database_reports_the_free_pages_left_by_deleted_rows_and_the_bytes_of_the_wal() throws Exception {
    freshDatabase();
    // This connection stays open, so nothing checkpoints the WAL away before stats reads it.
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.executeUpdate("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
          + "INSERT INTO events (at, kind, payload) SELECT i, 'phase.result', "
          + "json_object('pad', hex(randomblob(200))) FROM n");
      st.executeUpdate("DELETE FROM events");
      long freePages;
      try (ResultSet rs = st.executeQuery("PRAGMA freelist_count")) {
        freePages = rs.next() ? rs.getLong(1) : 0;
      }
      long walBytes = Files.size(Path.of(db() + "-wal"));
      long fileBytes = Files.size(db());
      assertTrue(freePages > 100, "5,000 rows of 400+ bytes freed " + freePages + " pages");
      assertTrue(walBytes > 0);

      JsonNode db = stats().get("database");
      assertEquals(freePages * db.get("page_size").asLong(), db.get("freelist_bytes").asLong());
      assertEquals(walBytes, db.get("wal_bytes").asLong(), "the -wal file as it was when stats read it");
      assertEquals(fileBytes, db.get("file_bytes").asLong());
    }
  }

  @Test
  void the_text_names_free_bytes_only_when_there_are_some_to_reclaim() throws Exception {
    freshDatabase();
    String fresh = cli("stats").out();
    assertTrue(fresh.contains("database: "), fresh);
    assertFalse(fresh.contains("bytes free"), fresh);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.executeUpdate("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
          + "INSERT INTO events (at, kind, payload) SELECT i, 'phase.result', "
          + "json_object('pad', hex(randomblob(200))) FROM n");
      st.executeUpdate("DELETE FROM events");
      String freed = cli("stats").out();
      assertTrue(freed.contains(" bytes free (compact --vacuum reclaims them)"), freed);
    }
  }

  @Test
  void the_last_run_line_says_what_the_run_held_in_memory_in_plain_words() throws Exception {
    busy();
    String text = cli("stats").out();
    assertTrue(text.contains("last run 1 (all_done) held in memory: summaries of "), text);
    assertFalse(text.contains("summary map") || text.contains("job table"), text);
  }

  @Test
  void no_sample_makes_stats_a_pure_read_that_records_nothing() throws Exception {
    busy();
    assertEquals(0, cli("stats").exitCode());
    int before = samples().size();
    // the run and the stats call above have ended: their WAL is checkpointed and gone
    Map<String, Long> files = new java.util.TreeMap<>();
    try (var all = Files.list(state())) {
      for (Path p : all.filter(Files::isRegularFile).toList()) {
        files.put(p.getFileName().toString(), Files.getLastModifiedTime(p).toMillis() ^ Files.size(p));
      }
    }
    for (List<String> args : List.of(List.of("stats", "--no-sample"), List.of("stats", "--no-sample", "--json"))) {
      CliRunner.Result r = cli(args.toArray(String[]::new));
      assertEquals(0, r.exitCode(), r.err());
      assertTrue(r.out().contains("jobs"), r.out());
    }
    assertEquals(before, samples().size(), "no trend sample was recorded");
    Map<String, Long> after = new java.util.TreeMap<>();
    try (var all = Files.list(state())) {
      for (Path p : all.filter(Files::isRegularFile).toList()) {
        after.put(p.getFileName().toString(), Files.getLastModifiedTime(p).toMillis() ^ Files.size(p));
      }
    }
    assertEquals(files, after, "nothing in the state directory was written");
    assertEquals(0, cli("stats", "--json").exitCode());
    assertEquals(before + 1, samples().size(), "without the flag, stats records its sample");
  }

  @Test
  void stats_alone_keeps_its_samples_within_the_recorded_max_rows_and_the_counters_exact() throws Exception {
    freshDatabase();
    sql("UPDATE structures SET max_rows = 10 WHERE name = 'stats_samples'");
    for (int i = 0; i < 30; i++) {
      assertEquals(0, cli("stats", "--json").exitCode());
      assertTrue(samples().size() <= 10, "after call " + (i + 1));
    }
    long samples = samples().size();
    assertEquals(6, samples, "pruned to 60 % of max_rows, like retention");
    JsonNode doc = stats();
    JsonNode s = structure(doc, "stats_samples");
    assertEquals(samples, s.get("rows").asLong(), "rows now = COUNT(*)");
    assertEquals(30, s.get("rows_ever").asLong());
    assertEquals(30 - samples, s.get("rows_pruned").asLong(), "the trigger counted every deleted sample");
    assertFalse(s.get("last_pruned_at").isNull());
    assertEquals("ok", s.get("status").asText());
    assertEquals(0.6, s.get("utilisation").asDouble(), 1e-9);
    assertEquals(samples, doc.get("trend").get("samples").asInt());
  }

  @Test
  void without_a_recorded_policy_stats_prunes_samples_to_the_default_in_budgeted_steps() throws Exception {
    freshDatabase();
    samples(300, Duration.ofDays(8)); // older than the default max_age of 7 days
    samples(1_800, Duration.ofHours(1));
    assertEquals(0, cli("stats", "--json").exitCode());
    assertEquals(2_101 - 500, samples().size(), "at most 500 rows per call");
    Instant weekAgo = Instant.now().minus(Duration.ofDays(7));
    assertEquals(0, samples().stream().filter(s -> s.at().isBefore(weekAgo)).count(), "the too old went first");
    assertEquals(0, cli("stats", "--json").exitCode());
    assertEquals(1_200, samples().size(), "60 % of the default max_rows 2,000");
    JsonNode s = structure(stats(), "stats_samples");
    assertEquals(1_200, s.get("rows").asLong());
    assertEquals(2_102, s.get("rows_ever").asLong());
    assertEquals(902, s.get("rows_pruned").asLong());
    assertTrue(s.get("limit").get("max_rows").isNull(), "stats applies the default, it does not record it");
  }

  @Test
  void a_recorded_max_age_alone_prunes_older_samples_and_keeps_the_rest() throws Exception {
    freshDatabase();
    sql("UPDATE structures SET max_rows = NULL, max_age_ms = 3600000 WHERE name = 'stats_samples'");
    samples(20, Duration.ofHours(2));
    samples(3, Duration.ofMinutes(10));
    assertEquals(0, cli("stats", "--json").exitCode());
    assertEquals(4, samples().size(), "the 3 recent ones and this call's");
  }

  @Test
  void the_trend_counts_the_samples_of_the_last_24_hours_and_measures_from_the_oldest_of_them() throws Exception {
    freshDatabase();
    samples(10, Duration.ofHours(30), "{\"stats_samples\": 0}");
    samples(1, Duration.ofHours(2), "{\"stats_samples\": 1}");
    samples(2, Duration.ofHours(1), "{\"stats_samples\": 100}");
    JsonNode doc = stats();
    assertEquals(3, doc.get("trend").get("samples").asInt());
    JsonNode s = structure(doc, "stats_samples");
    assertEquals(13, s.get("rows").asLong());
    assertEquals(6.0, s.get("rows_per_hour").asDouble(), 0.01, "(13 - 1) rows over the 2 h since the oldest");

    samples(5_010, Duration.ofMinutes(30));
    assertEquals(5_000, stats().get("trend").get("samples").asInt(), "at most the newest 5,000 samples");
  }

  @Test
  void stats_answers_at_once_and_skips_its_sample_while_another_connection_holds_the_write_lock()
      throws Exception {
    freshDatabase();
    assertEquals(0, cli("stats", "--json").exitCode()); // warm the in-process CLI up
    long before = samples().size();
    try (Connection holder = DriverManager.getConnection("jdbc:sqlite:" + db());
        Statement st = holder.createStatement()) {
      holder.setAutoCommit(false);
      st.executeUpdate("INSERT INTO events (at, kind) VALUES (1, 'phase.result')"); // takes the write lock
      long start = System.nanoTime();
      CliRunner.Result r = cli("stats", "--json");
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertEquals(0, r.exitCode(), r.err());
      assertTrue(took.compareTo(Duration.ofMillis(1_500)) < 0, "took " + took + "; the busy timeout is 10 s");
      JsonNode doc = JSON.readTree(r.out());
      assertTrue(doc.get("database_exists").asBoolean());
      assertEquals("ok", doc.get("status").asText());
      assertEquals(before, structure(doc, "stats_samples").get("rows").asLong());
      assertEquals("", r.err(), "a skipped sample is not an error");
      holder.rollback();
    }
    assertEquals(before, samples().size(), "the sample was skipped, not queued");
  }

  @Test
  void after_a_run_every_structure_is_counted_with_its_policy_and_the_run_figures() throws Exception {
    busy();
    JsonNode doc = stats();
    assertTrue(doc.get("database_exists").asBoolean());
    assertEquals("ok", doc.get("status").asText());
    List<String> names = new ArrayList<>();
    doc.get("structures").forEach(s -> names.add(s.get("name").asText()));
    assertEquals(List.of("items", "jobs", "job_logs", "turns", "summaries", "events", "memory", "stats_samples",
        "worktrees"), names);
    Map<String, Integer> stored = TestStores.read(state(), store -> Map.of("items", store.items().items().size(),
        "jobs", TestStores.jobs(store).size(), "turns", TestStores.turns(store).size(), "events",
        TestStores.events(store).size()));
    for (String name : List.of("items", "jobs", "turns", "events")) {
      assertEquals((long) stored.get(name), structure(doc, name).get("rows").asLong(),
          name + " rows = the rows stored");
    }
    assertEquals(3, structure(doc, "items").get("rows").asLong());
    assertEquals(6, structure(doc, "jobs").get("rows").asLong());
    assertEquals(6, structure(doc, "job_logs").get("rows").asLong());
    assertTrue(structure(doc, "job_logs").get("bytes").asLong() > 0, "bytes of the job directories");
    assertEquals(10_000, structure(doc, "jobs").get("limit").get("max_rows").asLong(), "the run's policy");
    assertEquals("30d", structure(doc, "jobs").get("limit").get("max_age").asText(), "as a config writes it");
    assertEquals(6.0E-4, structure(doc, "jobs").get("utilisation").asDouble(), 1e-9);
    assertEquals(3, structure(doc, "events").get("rows_kept_always").asLong() - 3,
        "3 done transitions and 3 memory events are load-bearing");
    assertEquals(3, doc.get("memory").get("prunable").asLong());
    assertEquals(50, doc.get("memory").get("keep_recent").asLong());
    JsonNode run = doc.get("last_run");
    assertEquals("all_done", run.get("halt_reason").asText());
    assertEquals(0, run.get("summary_map").get("final").asInt());
    assertTrue(run.get("job_table").get("peak_active").asInt() >= 1);
    JsonNode db = doc.get("database");
    assertEquals(db.get("page_size").asLong() * db.get("page_count").asLong(), db.get("file_bytes").asLong());
    assertTrue(doc.get("trend").get("samples").asInt() >= 1, "the run's maintenance sample");
    assertEquals(0, cli("stats", "--check").exitCode());
  }

  @Test
  void check_exits_4_when_a_structure_reaches_85_percent_and_5_when_one_is_over() throws Exception {
    busy();
    sql("UPDATE structures SET max_rows = 7 WHERE name = 'jobs'"); // 6 of 7: 86 %
    CliRunner.Result warn = cli("stats", "--check");
    assertEquals(4, warn.exitCode(), warn.out());
    assertTrue(warn.out().contains("warn: jobs at 86% of max_rows 7"), warn.out());
    JsonNode doc = JSON.readTree(cli("stats", "--json", "--check").out());
    assertEquals("warn", doc.get("status").asText());
    assertEquals("high", doc.get("pressure").asText());
    assertEquals("jobs", doc.get("warnings").get(0).get("structure").asText());

    sql("UPDATE structures SET max_rows = 5 WHERE name = 'jobs'");
    CliRunner.Result over = cli("stats", "--check", "--json");
    assertEquals(5, over.exitCode());
    JsonNode overDoc = JSON.readTree(over.out());
    assertEquals("over", structure(overDoc, "jobs").get("status").asText());
    assertEquals("critical", overDoc.get("pressure").asText());
    assertEquals(0, cli("stats").exitCode(), "without --check the report is not an error");
  }

  @Test
  void a_structure_at_75_percent_raises_pressure_to_elevated_with_a_warning_naming_it_and_check_exits_0()
      throws Exception {
    busy();
    sql("UPDATE structures SET max_rows = 8 WHERE name = 'jobs'"); // 6 of 8: 75 %
    CliRunner.Result check = cli("stats", "--check", "--json");
    assertEquals(0, check.exitCode(), "elevated is not a warn status: " + check.out());
    JsonNode doc = JSON.readTree(check.out());
    assertEquals("ok", doc.get("status").asText());
    assertEquals("elevated", doc.get("pressure").asText());
    assertEquals("ok", structure(doc, "jobs").get("status").asText());
    assertEquals(1, doc.get("warnings").size(), doc.toString());
    JsonNode warning = doc.get("warnings").get(0);
    assertEquals("jobs", warning.get("structure").asText());
    assertEquals("elevated", warning.get("level").asText());
    assertTrue(warning.get("message").asText().startsWith("jobs at 75% of max_rows 8: "), warning.toString());
    assertTrue(warning.get("message").asText().contains("`orchestrate compact`"), warning.toString());
    assertTrue(cli("stats").out().contains("elevated: jobs at 75% of max_rows 8"));
  }

  @Test
  void memory_counters_equal_a_real_count_over_30000_memories_after_compaction() throws Exception {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 30_000; i++) {
      lines.append("{\"kind\": \"").append(i % 100 == 0 ? "semantic" : "episodic")
          .append("\", \"title\": \"m").append(i).append("\", \"content\": \"c\"}\n");
    }
    Path file = dir.resolve("memories.jsonl");
    Files.writeString(file, lines);
    assertEquals(0, cli("memory", "import", file.toString()).exitCode());
    JsonNode before = stats();
    assertEquals(30_000, structure(before, "memory").get("rows").asLong());
    assertEquals(29_700, before.get("memory").get("prunable").asLong());
    assertEquals(29_650, before.get("memory").get("over_keep_recent").asLong());
    assertEquals("memory", before.get("warnings").get(0).get("structure").asText());
    assertEquals("elevated", before.get("warnings").get(0).get("level").asText());
    assertTrue(before.get("warnings").get(0).get("message").asText().contains("run `orchestrate compact`"));

    CliRunner.Result compact = cli("compact", "--keep-recent", "100");
    assertEquals(0, compact.exitCode(), compact.err());
    JsonNode after = stats();
    long count = TestStores.read(state(), store -> store.memory().size());
    long prunable = TestStores.read(state(), store -> store.memory().recentPrunable(Integer.MAX_VALUE).size());
    assertEquals(400, count);
    assertEquals(count, structure(after, "memory").get("rows").asLong());
    assertEquals(prunable, after.get("memory").get("prunable").asLong());
    assertEquals(30_000, structure(after, "memory").get("rows_ever").asLong(), "lifetime counter survives");
    assertEquals(29_600, structure(after, "memory").get("rows_pruned").asLong());
    assertEquals(50, structure(after, "memory").get("limit").get("keep_recent").asLong(),
        "the policy stays the configured keep_recent: a one-off --keep-recent 100 is not recorded");
    assertEquals(50, after.get("memory").get("over_keep_recent").asLong());

    assertEquals(0, cli("compact").exitCode());
    JsonNode policy = stats();
    assertEquals(0, policy.get("memory").get("over_keep_recent").asLong());
    assertEquals(0, policy.get("warnings").size(), "compact left the 50 most recent episodic memories: "
        + policy.get("warnings"));
  }
}
