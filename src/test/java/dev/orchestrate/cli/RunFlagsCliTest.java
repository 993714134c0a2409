package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.sqlite.OldSchemas;
import dev.orchestrate.testing.Db;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --target/--only/--max-wip/--max-concurrent/--dry-run}, in-process, with a real bash agent. */
class RunFlagsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path config;
  private Path backlog;

  @BeforeEach
  void project() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, "#!/usr/bin/env bash\necho \"$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE\" >> '"
        + dir.resolve("calls.txt") + "'\n");
    config = TwoPhaseProject.config(dir, agent);
    backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, """
        items:
          - {id: A, title: a, priority: high, tags: [api]}
          - {id: B, title: b, depends_on: [A], tags: [db]}
          - {id: C, title: c, priority: low, tags: [api]}
          - {id: D, title: d}
        """);
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString(), "--config",
        config.toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /** Every item as {@code id|status}, in backlog order, read without writing. */
  private List<String> statuses() {
    return TestStores.read(dir.resolve("state"),
        store -> store.items().items().stream().map(i -> i.id() + "|" + i.status().key()).toList());
  }

  /** Every file under the state directory with a hash of its bytes: what "nothing changed" compares. */
  private Map<String, Integer> stateFiles() throws Exception {
    Path state = dir.resolve("state");
    Map<String, Integer> out = new TreeMap<>();
    try (Stream<Path> all = Files.walk(state)) {
      for (Path p : all.toList()) {
        out.put(state.relativize(p).toString(), Files.isRegularFile(p) ? Arrays.hashCode(Files.readAllBytes(p)) : 0);
      }
    }
    return out;
  }

  private static void assertUsageError(CliRunner.Result r, String message) {
    assertEquals(2, r.exitCode(), r.err());
    assertEquals("", r.out());
    assertEquals(List.of("orchestrate: error: " + message), r.err().lines().toList());
  }

  @Test
  void bad_only_and_target_flags_exit_2_with_one_line_and_nothing_is_created() {
    assertUsageError(cli("run", backlog.toString(), "--only", "colour=red"),
        "--only: unknown key 'colour' (use status, priority, tag or pipeline)");
    assertTrue(cli("run", backlog.toString(), "--only", "priority").err().contains("--only: expected KEY=V"),
        cli("run", backlog.toString(), "--only", "priority").err());
    assertEquals(2, cli("run", backlog.toString(), "--only", "status=finished").exitCode());
    assertEquals(2, cli("run", backlog.toString(), "--only", "pipeline=nope").exitCode());
    assertUsageError(cli("run", backlog.toString(), "--target", "Z"), "--target: unknown item 'Z'");
    assertUsageError(cli("run", backlog.toString(), "--max-wip", "0"), "--max-wip must be at least 1, got 0");
    assertUsageError(cli("run", backlog.toString(), "--max-concurrent", "0"),
        "--max-concurrent must be at least 1, got 0");
    assertFalse(Files.exists(dir.resolve("calls.txt")), "no agent ran");
    assertFalse(Files.exists(dir.resolve("state")), "no state directory, lock or database");
  }

  @Test
  void an_unknown_target_leaves_an_existing_state_as_it_was() throws Exception {
    assertEquals(0, cli("run", backlog.toString(), "--target", "A").exitCode());
    Map<String, Integer> before = stateFiles();
    assertUsageError(cli("run", backlog.toString(), "--target", "A,Z"), "--target: unknown item 'Z'");
    assertEquals(before, stateFiles());
  }

  @Test
  void a_target_may_name_a_follow_up_item_that_only_the_state_knows() throws Exception {
    assertEquals(0, cli("run", backlog.toString(), "--target", "A").exitCode());
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      // F as A's first phase reported it: recorded with the job's end, in the state only.
      StateRepository items = store.items();
      JobRecord job = items.recentJobs(Integer.MAX_VALUE).stream()
          .filter(j -> j.itemId().equals("A") && j.phase().equals("first")).findFirst().orElseThrow();
      BacklogItem followUp = new BacklogItem("F", "follow-up", "two", Priority.MEDIUM, List.of(), List.of(), "",
          InitialStatus.NEW);
      items.jobEnded(job.id(), new JobEnd(job.state(), job.result(), job.exitCode(), job.reason(), job.endedAt(), 0),
          null, List.of(new FollowUpItem(followUp, "A/first")), job.endedAt());
    }
    CliRunner.Result r = cli("run", backlog.toString(), "--target", "F", "--json");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals("targets_done", JSON.readTree(r.out()).get("halt_reason").asText());
    assertTrue(statuses().contains("F|done"), statuses().toString());
  }

  @Test
  void a_target_runs_with_its_dependencies_only_and_the_report_says_why_it_stopped() throws Exception {
    CliRunner.Result r = cli("run", backlog.toString(), "--target", "B", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode report = JSON.readTree(r.out());
    assertEquals("targets_done", report.get("halt_reason").asText());
    assertEquals(List.of("A|done", "B|done", "C|new", "D|new"), statuses());
    assertEquals(0, report.get("summary_map").get("final").asInt());
    assertTrue(report.get("job_table").get("final").asInt() <= 3);
  }

  @Test
  void only_flags_combine_values_with_or_and_flags_with_and() throws Exception {
    CliRunner.Result r = cli("run", backlog.toString(), "--only", "tag=api,db", "--only", "priority=high,low");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("A|done", "B|new", "C|done", "D|new"), statuses());
  }

  @Test
  void the_report_of_an_only_run_says_the_selection_is_done_and_the_rest_remains() throws Exception {
    CliRunner.Result r = cli("run", backlog.toString(), "--only", "tag=api");
    assertEquals(0, r.exitCode(), r.err());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(0).startsWith("run 1 stopped: every item selected by --only tag=api is done ("),
        lines.get(0));
    assertTrue(lines.get(1).startsWith("  items: 4 total, 2 done, 0 blocked, 2 remaining: 0 selected, 2 not selected "
        + "(this run: 2 done, 0 blocked)"), lines.get(1));
    assertEquals("  not selected by --only tag=api: B, D", lines.get(2));
    assertFalse(r.out().contains("  remaining:"), "the items --only leaves out are not this run's to do: " + r.out());

    JsonNode json = JSON.readTree(cli("run", backlog.toString(), "--only", "tag=db", "--json").out());
    assertEquals("[\"tag=db\"]", json.get("only").toString());
    assertEquals("[\"D\"]", json.get("unselected_ids").toString());
  }

  @Test
  void a_capped_only_run_says_apart_what_remains_of_its_selection_and_what_it_did_not_select() throws Exception {
    CliRunner.Result r = cli("run", backlog.toString(), "--only", "tag=api", "--cap", "1");
    assertEquals(0, r.exitCode(), r.err());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(1).startsWith("  items: 4 total, 0 done, 0 blocked, 4 remaining: 2 selected, 2 not selected"),
        lines.get(1));
    assertEquals("  remaining: A, C", lines.get(2));
    assertEquals("  not selected by --only tag=api: B, D", lines.get(3));
  }

  @Test
  void the_run_report_speaks_of_items_and_phases_and_leaves_the_in_memory_figures_to_verbose() throws Exception {
    CliRunner.Result r = cli("run", backlog.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertFalse(r.out().contains("summary map") || r.out().contains("job table") || r.out().contains("held in memory"),
        r.out());
    CliRunner.Result verbose = cli("-v", "run", backlog.toString());
    assertEquals(0, verbose.exitCode(), verbose.err());
    assertTrue(verbose.out().contains("  held in memory: summaries of "), verbose.out());
    assertFalse(verbose.out().contains("summary map"), verbose.out());
  }

  @Test
  void max_wip_and_max_concurrent_override_the_config() throws Exception {
    CliRunner.Result r = cli("run", backlog.toString(), "--max-wip", "3", "--max-concurrent", "3", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode report = JSON.readTree(r.out());
    assertEquals(4, report.get("items").get("done").asInt());
    assertTrue(report.get("job_table").get("peak_active").asInt() >= 2,
        "several agents ran at once: " + report.get("job_table"));
  }

  @Test
  void dry_run_prints_the_plan_and_changes_nothing() throws Exception {
    CliRunner.Result r = cli("run", backlog.toString(), "--dry-run", "--max-concurrent", "2", "--max-wip", "2");
    assertEquals(0, r.exitCode(), r.err());
    assertFalse(Files.exists(dir.resolve("state/state.db")), "no state was created");
    assertFalse(Files.exists(dir.resolve("calls.txt")), "no agent ran");
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(0).startsWith("plan (dry run"), r.out());
    assertEquals("    1  A first, D first", lines.get(1));
    assertTrue(r.out().contains("8 phases"), r.out());

    CliRunner.Result json = cli("run", backlog.toString(), "--dry-run", "--json", "--target", "B");
    JsonNode plan = JSON.readTree(json.out());
    assertEquals("plan", plan.get("kind").asText());
    List<String> steps = new ArrayList<>();
    plan.get("steps").forEach(s -> steps.add(s.get("item").asText() + " " + s.get("phase").asText()));
    assertEquals(List.of("A first", "A second", "B first", "B second"), steps);
    assertFalse(Files.exists(dir.resolve("state")), "not even the state directory");
  }

  @Test
  void dry_run_leaves_an_existing_state_byte_for_byte_as_it_was() throws Exception {
    assertEquals(0, cli("run", backlog.toString(), "--target", "A").exitCode());
    Map<String, Integer> before = stateFiles();
    assertTrue(before.containsKey("state.db") && !before.containsKey("state.db-wal"), before.toString());
    assertEquals(0, cli("run", backlog.toString(), "--dry-run").exitCode());
    assertEquals(0, cli("run", backlog.toString(), "--dry-run", "--json", "--target", "B").exitCode());
    assertEquals(before, stateFiles(), "no write, no -wal or -shm file, no lock");
  }

  @Test
  void dry_run_reads_an_older_schema_as_it_is_and_does_not_upgrade_it() throws Exception {
    Files.createDirectories(dir.resolve("state"));
    OldSchemas.create(dir.resolve("state/state.db"), 3, """
        INSERT INTO items (id, seq, title, pipeline, priority, status, phase, created_at, updated_at)
          VALUES ('A', 1, 'a', 'two', 'high', 'done', 'second', 0, 0)""");
    Map<String, Integer> before = stateFiles();
    CliRunner.Result r = cli("run", backlog.toString(), "--dry-run", "--json");
    assertEquals(0, r.exitCode(), r.err());
    List<String> items = new ArrayList<>();
    JSON.readTree(r.out()).get("steps").forEach(s -> items.add(s.get("item").asText()));
    assertFalse(items.contains("A"), "A is done in the old state: " + items);
    assertEquals(6, items.size());
    assertEquals(List.of("orchestrate: note: the state database has schema version 3, older than this orchestrate's "
        + TestStores.latestSchemaVersion()
        + "; the plan reads it as it is and changes nothing, a run upgrades it first"),
        r.err().lines().toList());
    assertEquals(before, stateFiles());
    assertEquals(List.of("3"), Db.column(dir.resolve("state/state.db"), "PRAGMA user_version"));
    assertEquals("", cli("--quiet", "run", backlog.toString(), "--dry-run").err());
  }

  @Test
  void dry_run_starts_from_the_stored_state() throws Exception {
    assertEquals(0, cli("run", backlog.toString(), "--target", "A").exitCode());
    String before = String.join("\n", statuses());
    CliRunner.Result r = cli("run", backlog.toString(), "--dry-run", "--json");
    JsonNode plan = JSON.readTree(r.out());
    List<String> items = new ArrayList<>();
    plan.get("steps").forEach(s -> items.add(s.get("item").asText()));
    assertFalse(items.contains("A"), "A is done already: " + items);
    assertEquals(6, items.size());
    assertEquals(before, String.join("\n", statuses()));
  }

  @Test
  void long_id_lists_in_the_text_report_are_cut_after_ten() {
    assertEquals("A, B", RunCommand.ids(List.of("A", "B")));
    List<String> many = new ArrayList<>();
    for (int i = 1; i <= 300; i++) {
      many.add("I" + i);
    }
    assertEquals("I1, I2, I3, I4, I5, I6, I7, I8, I9, I10 and 290 more (all in --json)", RunCommand.ids(many));
  }
}
