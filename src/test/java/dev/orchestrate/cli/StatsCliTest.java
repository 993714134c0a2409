package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.testing.Db;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
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

  @Test
  void without_a_database_it_reports_nothing_grown_exits_0_and_creates_nothing() throws Exception {
    JsonNode doc = stats();
    assertEquals(1, doc.get("schema_version").asInt());
    assertEquals("stats", doc.get("kind").asText());
    assertFalse(doc.get("database_exists").asBoolean());
    assertEquals("ok", doc.get("status").asText());
    assertEquals("normal", doc.get("pressure").asText());
    assertEquals(0, doc.get("structures").size());
    assertFalse(Files.exists(state()), "stats never creates the state directory");
    assertEquals(0, cli("stats", "--check").exitCode());
    assertTrue(cli("stats").out().startsWith("no state database in "));
  }

  @Test
  void after_a_run_every_structure_is_counted_with_its_policy_and_the_run_figures() throws Exception {
    busy();
    JsonNode doc = stats();
    assertTrue(doc.get("database_exists").asBoolean());
    assertEquals("ok", doc.get("status").asText());
    List<String> names = new ArrayList<>();
    doc.get("structures").forEach(s -> names.add(s.get("name").asText()));
    assertEquals(List.of("items", "jobs", "job_logs", "turns", "summaries", "events", "memory", "stats_samples"),
        names);
    for (String table : List.of("items", "jobs", "turns", "events")) {
      long count = Long.parseLong(Db.column(db(), "SELECT COUNT(*) FROM " + table).get(0));
      assertEquals(count, structure(doc, table).get("rows").asLong(), table + " rows = COUNT(*)");
    }
    assertEquals(3, structure(doc, "items").get("rows").asLong());
    assertEquals(6, structure(doc, "jobs").get("rows").asLong());
    assertEquals(6, structure(doc, "job_logs").get("rows").asLong());
    assertTrue(structure(doc, "job_logs").get("bytes").asLong() > 0, "bytes of the job directories");
    assertEquals(10_000, structure(doc, "jobs").get("limit").get("max_rows").asLong(), "the run's policy");
    assertEquals("720h", structure(doc, "jobs").get("limit").get("max_age").asText());
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
    long count = Long.parseLong(Db.column(db(), "SELECT COUNT(*) FROM memories").get(0));
    long prunable = Long.parseLong(Db.column(db(),
        "SELECT COUNT(*) FROM memories WHERE load_bearing = 0 AND superseded_by IS NULL").get(0));
    assertEquals(400, count);
    assertEquals(count, structure(after, "memory").get("rows").asLong());
    assertEquals(prunable, after.get("memory").get("prunable").asLong());
    assertEquals(30_000, structure(after, "memory").get("rows_ever").asLong(), "lifetime counter survives");
    assertEquals(29_600, structure(after, "memory").get("rows_pruned").asLong());
    assertEquals(100, structure(after, "memory").get("limit").get("keep_recent").asLong(),
        "compact records the keep_recent it applied");
    assertEquals(0, after.get("warnings").size(), "compact left the 100 most recent episodic memories: " + after.get("warnings"));
  }
}
