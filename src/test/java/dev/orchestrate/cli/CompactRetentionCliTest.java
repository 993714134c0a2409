package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.store.SqliteStateRepository;
import dev.orchestrate.testing.Db;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code compact} applying the retention policies: in full, one incremental pass, never in a dry run. */
class CompactRetentionCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path db() {
    return dir.resolve("state/state.db");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString(), "--config",
        dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  private long count(String sql) throws Exception {
    return Long.parseLong(Db.column(db(), sql).get(0));
  }

  /** 2,000 finished jobs from 1970 (beyond any max_age) and 3 running ones; budget 100, jobs max_rows 1000. */
  @BeforeEach
  void state() throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        retention:
          budget: 100
          jobs: {max_rows: 1000, max_age: none}
        """);
    SqliteStateRepository.open(db()).close();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.executeUpdate("""
          WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 2003)
          INSERT INTO jobs (run_id, item_id, phase, attempt, state, started_at, ended_at)
          SELECT 1, 'I', 'build', 1, CASE WHEN x <= 3 THEN 'running' ELSE 'completed' END, x,
                 CASE WHEN x <= 3 THEN NULL ELSE x + 1 END FROM i""");
    }
  }

  @Test
  void incremental_deletes_one_budget_and_says_there_is_more_then_a_full_compact_finishes() throws Exception {
    CliRunner.Result one = cli("compact", "--incremental", "--json");
    assertEquals(0, one.exitCode(), one.err());
    JsonNode doc = JSON.readTree(one.out());
    assertEquals("compact", doc.get("kind").asText());
    assertTrue(doc.get("incremental").asBoolean());
    assertEquals(100, doc.get("retention").get("jobs").get("deleted").asLong());
    assertTrue(doc.get("retention").get("more_to_do").asBoolean());
    assertEquals(1_903, count("SELECT COUNT(*) FROM jobs"));

    CliRunner.Result full = cli("compact", "--json");
    assertEquals(0, full.exitCode(), full.err());
    JsonNode fullDoc = JSON.readTree(full.out());
    assertEquals(1_303, fullDoc.get("retention").get("jobs").get("deleted").asLong(), "down to 60 % of 1,000");
    assertTrue(fullDoc.get("retention").get("applied").asBoolean());
    assertEquals(600, count("SELECT COUNT(*) FROM jobs"));
    assertEquals(3, count("SELECT COUNT(*) FROM jobs WHERE state = 'running'"), "running jobs are never pruned");
    assertEquals(2_003, count("SELECT rows_written FROM structures WHERE name = 'jobs'"));
    assertEquals(1_403, count("SELECT rows_pruned FROM structures WHERE name = 'jobs'"));
    assertTrue(count("SELECT last_pruned_at FROM structures WHERE name = 'jobs'")
        > Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
    assertEquals(0, JSON.readTree(cli("compact", "--json").out()).get("retention").get("jobs").get("deleted").asLong(),
        "idempotent");
    assertTrue(cli("compact").out().contains("retention: deleted 0 jobs"));
  }

  @Test
  void a_dry_run_applies_no_retention() throws Exception {
    CliRunner.Result dry = cli("compact", "--dry-run", "--json");
    assertEquals(0, dry.exitCode(), dry.err());
    assertFalse(JSON.readTree(dry.out()).get("retention").get("applied").asBoolean());
    assertEquals(2_003, count("SELECT COUNT(*) FROM jobs"));
    assertTrue(cli("compact", "--dry-run").out().contains("retention: not applied in a dry run"));
  }

  @Test
  void incremental_does_not_combine_with_dry_run_vacuum_or_keep_recent() {
    for (String other : List.of("--dry-run", "--vacuum", "--keep-recent=5")) {
      CliRunner.Result r = cli("compact", "--incremental", other);
      assertEquals(2, r.exitCode(), other);
      assertEquals(List.of("orchestrate: error: --incremental runs one retention pass only; it does not combine "
          + "with --dry-run, --vacuum or --keep-recent"), r.err().lines().toList());
    }
  }

  @Test
  void a_bad_retention_value_in_the_config_exits_2_and_deletes_nothing() throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), "retention:\n  jobs: {max_rows: lots}\n");
    CliRunner.Result r = cli("compact");
    assertEquals(2, r.exitCode());
    assertTrue(r.err().contains("retention.jobs.max_rows must be an integer, got 'lots'"), r.err());
    assertEquals(2_003, count("SELECT COUNT(*) FROM jobs"));
  }
}
