package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.stats.Structure;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  /** As a cron job run from another directory: --state only, no config file anywhere. */
  private CliRunner.Result cliWithoutConfig(String... args) {
    assertFalse(Files.exists(Path.of("orchestrate.yaml")), "the test needs a working directory without a config");
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(Map.of(), all.toArray(String[]::new));
  }

  /** What a run with {@code jobs: none} and {@code memory.keep_recent: 4} leaves recorded in the state. */
  private void recordPoliciesLargerThanTheDefaults() {
    RetentionConfig defaults = RetentionConfig.defaults();
    try (StateStore store = TestStores.open(db().getParent())) {
      store.retention().recordPolicies(new RetentionConfig(defaults.maintenanceInterval(), defaults.budget(),
          Policy.NONE, Policy.of(1_000_000, null), Policy.of(null, Duration.ofDays(365)), defaults.statsSamples()), 4);
    }
  }

  private StateStore readOnly() {
    return TestStores.backend(db().getParent()).open(StateStore.Mode.READ_ONLY);
  }

  /** The structure's counters and recorded limits, as {@code stats} reads them. */
  private Structure structure(String name) {
    try (StateStore store = readOnly()) {
      return store.stats().read(Instant.now()).structures().stream()
          .filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }
  }

  /** The recorded {@code max_rows} and {@code max_age_ms} of a structure, "null" for none. */
  private List<String> recorded(String name) {
    Structure s = structure(name);
    return List.of(s.maxRows() + " " + s.maxAgeMs());
  }

  /** Every job row in the state. */
  private List<JobRecord> jobs() {
    try (StateStore store = readOnly()) {
      return store.items().recentJobs(Integer.MAX_VALUE);
    }
  }

  private long jobCount() {
    return jobs().size();
  }

  /** 2,000 finished jobs from 1970 (beyond any max_age) and 3 running ones; budget 100, jobs max_rows 1000. */
  @BeforeEach
  void state() throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        retention:
          budget: 100
          jobs: {max_rows: 1000, max_age: none}
        """);
    try (StateStore store = TestStores.open(db().getParent())) {
      StateRepository items = store.items();
      for (int x = 1; x <= 2003; x++) {
        long id = items.jobStarted(new JobStart(1, "I", "build", 1, Instant.ofEpochMilli(x), null));
        if (x > 3) {
          items.jobEnded(id, new JobEnd(JobState.COMPLETED, null, null, null, Instant.ofEpochMilli(x + 1), 0), null,
              Instant.ofEpochMilli(x + 1));
        }
      }
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
    assertEquals(1_903, jobCount());

    CliRunner.Result full = cli("compact", "--json");
    assertEquals(0, full.exitCode(), full.err());
    JsonNode fullDoc = JSON.readTree(full.out());
    assertEquals(1_303, fullDoc.get("retention").get("jobs").get("deleted").asLong(), "down to 60 % of 1,000");
    assertTrue(fullDoc.get("retention").get("applied").asBoolean());
    assertEquals(600, jobCount());
    assertEquals(3, jobs().stream().filter(j -> j.state() == JobState.RUNNING).count(),
        "running jobs are never pruned");
    assertEquals(2_003, structure("jobs").rowsWritten());
    assertEquals(1_403, structure("jobs").rowsPruned());
    assertTrue(structure("jobs").lastPrunedAt().isAfter(Instant.parse("2026-01-01T00:00:00Z")));
    assertEquals(0, JSON.readTree(cli("compact", "--json").out()).get("retention").get("jobs").get("deleted").asLong(),
        "idempotent");
    assertTrue(cli("compact").out().contains("retention: deleted 0 jobs"));
  }

  /**
   * compact reads the sections it applies (ConfigLoader.loadForMaintenance): a pipeline being fixed
   * does not stop a cron's compact, while a mistake in what compact applies, or an unknown top-level
   * key, still does, as run says it.
   */
  @Test
  void a_broken_pipeline_does_not_stop_compact_but_a_broken_retention_does() throws Exception {
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, """
        memory:
          keep_recent: 3
        execution:
          max_wip: many
        pipelines:
          feature:
            phases: [{name: build, instructions: "Build."}, {name: build, instructions: "Again."}]
        """);
    CliRunner.Result compact = cli("compact", "--json");
    assertEquals(0, compact.exitCode(), compact.err());
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n");
    CliRunner.Result run = cli("run", "--dry-run", dir.resolve("backlog.yaml").toString());
    assertEquals(2, run.exitCode(), "run reads every section: " + run.out() + run.err());
    assertTrue(run.err().contains("max_wip"), run.err());

    Files.writeString(config, """
        retention:
          jobs: {max_rows: -1}
        pipelines:
          feature:
            phases: [{name: build, instructions: "Build."}, {name: build, instructions: "Again."}]
        """);
    CliRunner.Result retention = cli("compact");
    assertEquals(2, retention.exitCode(), retention.err());
    assertTrue(retention.err().contains(config + ":2:") && retention.err().contains("retention.jobs.max_rows"),
        retention.err());
    assertFalse(retention.err().contains("build"), "the pipeline is not compact's to check: " + retention.err());

    Files.writeString(config, "retension:\n  jobs: {max_rows: 10}\n");
    CliRunner.Result typo = cli("compact");
    assertEquals(2, typo.exitCode(), typo.err());
    assertTrue(typo.err().contains("retension"), typo.err());
  }

  @Test
  void a_dry_run_applies_no_retention() throws Exception {
    CliRunner.Result dry = cli("compact", "--dry-run", "--json");
    assertEquals(0, dry.exitCode(), dry.err());
    assertFalse(JSON.readTree(dry.out()).get("retention").get("applied").asBoolean());
    assertEquals(2_003, jobCount());
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
    assertEquals(2_003, jobCount());
  }

  @Test
  void without_a_config_file_compact_applies_the_policies_recorded_in_the_state_and_says_so() throws Exception {
    recordPoliciesLargerThanTheDefaults();
    for (int i = 1; i <= 6; i++) {
      assertEquals(0, cliWithoutConfig("memory", "add", "--kind", "episodic", "episode " + i).exitCode());
    }

    CliRunner.Result r = cliWithoutConfig("compact", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals(0, doc.get("retention").get("jobs").get("deleted").asLong(), "jobs: none, not the 30-day default");
    assertEquals(2_003, jobCount());
    assertEquals(4, doc.get("memory").get("keep_recent").asInt(), "the recorded keep_recent, not 50");
    assertEquals(2, doc.get("memory").get("deleted").asInt());
    assertEquals(
        List.of("orchestrate: note: no config file (--config, $ORCHESTRATE_CONFIG, orchestrate.yaml here or above): "
            + "applying the retention policies the last run or compact recorded in the state"),
        r.err().lines().toList());
    assertEquals(List.of("null null"), recorded("jobs"), "the recorded limits are not overwritten by defaults");
    assertEquals(List.of("1000000 null"), recorded("turns"));
    assertEquals(List.of("null " + Duration.ofDays(365).toMillis()), recorded("events"));
    assertEquals(List.of("4 null"), recorded("memory"));

    CliRunner.Result quiet = cliWithoutConfig("--quiet", "compact", "--keep-recent", "1", "--json");
    assertEquals(0, quiet.exitCode(), quiet.err());
    assertEquals("", quiet.err(), "no note with --quiet");
    assertEquals(1, JSON.readTree(quiet.out()).get("memory").get("keep_recent").asInt(), "--keep-recent wins");
    assertEquals(List.of("null null"), recorded("jobs"));
    assertEquals(List.of("4 null"), recorded("memory"), "a one-off --keep-recent is not recorded as the policy");

    CliRunner.Result incremental = cliWithoutConfig("compact", "--incremental", "--json");
    assertEquals(0, JSON.readTree(incremental.out()).get("retention").get("jobs").get("deleted").asLong());
    assertEquals(2_003, jobCount(), "one pass keeps to the recorded policies too");
    assertTrue(incremental.err().startsWith("orchestrate: note: no config file"), incremental.err());
  }

  @Test
  void with_a_config_file_its_policies_apply_whatever_the_state_recorded() throws Exception {
    recordPoliciesLargerThanTheDefaults();
    CliRunner.Result r = cli("compact", "--json");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals("", r.err());
    assertEquals(600, jobCount(), "jobs max_rows 1000 from the file, down to 60 %");
    assertEquals(List.of("1000 null"), recorded("jobs"));
    assertEquals(List.of("50 null"), recorded("memory"), "the file's (default) keep_recent");
  }

  @Test
  void a_one_off_keep_recent_0_does_not_become_the_policy_of_the_next_compact() throws Exception {
    recordPoliciesLargerThanTheDefaults(); // memory keep_recent 4
    assertEquals(0, cliWithoutConfig("--quiet", "compact", "--keep-recent", "0").exitCode());
    assertEquals(List.of("4 null"), recorded("memory"));
    for (int i = 1; i <= 6; i++) {
      assertEquals(0, cliWithoutConfig("memory", "add", "--kind", "episodic", "episode " + i).exitCode());
    }
    CliRunner.Result cron = cliWithoutConfig("--quiet", "compact", "--json");
    assertEquals(4, JSON.readTree(cron.out()).get("memory").get("keep_recent").asInt());
    assertEquals(2, JSON.readTree(cron.out()).get("memory").get("deleted").asInt(), "the 4 newest episodes stay");
  }

  @Test
  void without_a_config_file_or_recorded_policies_the_defaults_apply_and_the_note_says_so() throws Exception {
    CliRunner.Result r = cliWithoutConfig("compact");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(
        List.of("orchestrate: note: no config file (--config, $ORCHESTRATE_CONFIG, orchestrate.yaml here or above) "
            + "and no policies recorded in the state yet: applying the built-in retention defaults"),
        r.err().lines().toList());
    assertEquals(3, jobCount(), "every finished job is beyond the 30-day default");
    assertEquals(List.of("10000 " + Duration.ofDays(30).toMillis()), recorded("jobs"));
  }

  @Test
  void a_full_compact_deletes_job_directories_no_row_refers_to_and_a_dry_run_counts_them() throws Exception {
    Path jobs = dir.resolve("state/jobs");
    Path orphan = Files.createDirectories(jobs.resolve("run1-0042-I-build-1"));
    Files.writeString(orphan.resolve("output.log"), "left by a crash between the row's delete and the directory's");
    Path running = Files.createDirectories(jobs.resolve("run1-0001-I-build-1"));
    Files.writeString(running.resolve("output.log"), "still being written");
    Path other = Files.createDirectories(jobs.resolve("keep-me"));
    try (StateStore store = TestStores.open(db().getParent())) { // one more running job, whose log is in running/
      store.items()
          .jobStarted(new JobStart(1, "I", "build", 1, Instant.ofEpochMilli(1), running.resolve("output.log")));
    }

    CliRunner.Result dry = cli("compact", "--dry-run", "--json");
    assertEquals(0, dry.exitCode(), dry.err());
    JsonNode dryDirs = JSON.readTree(dry.out()).get("retention").get("orphan_job_dirs");
    assertEquals(1, dryDirs.get("found").asInt());
    assertEquals(0, dryDirs.get("deleted").asInt());
    assertTrue(Files.isDirectory(orphan), "a dry run deletes nothing");
    assertTrue(cli("compact", "--dry-run").out().contains("job log directories no job row refers to: would delete 1"));

    CliRunner.Result full = cli("compact", "--json");
    assertEquals(0, full.exitCode(), full.err());
    JsonNode dirs = JSON.readTree(full.out()).get("retention").get("orphan_job_dirs");
    assertEquals(1, dirs.get("found").asInt());
    assertEquals(1, dirs.get("deleted").asInt());
    assertFalse(Files.exists(orphan));
    assertTrue(Files.exists(running.resolve("output.log")), "a running job's directory stays");
    assertTrue(Files.isDirectory(other), "not named like a job directory");
    assertTrue(cli("compact").out().contains("job log directories no job row refers to: deleted 0"));

    Files.createDirectories(jobs.resolve("run2-0001-I-build-1"));
    CliRunner.Result incremental = cli("compact", "--incremental", "--json");
    assertFalse(JSON.readTree(incremental.out()).get("retention").has("orphan_job_dirs"));
    assertTrue(Files.isDirectory(jobs.resolve("run2-0001-I-build-1")), "an incremental pass does not sweep");
  }
}
