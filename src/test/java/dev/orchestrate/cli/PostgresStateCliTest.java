package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state on PostgreSQL from the command line: {@code --state URL}, {@code ORCHESTRATE_STATE},
 * {@code state.url} in the config and their precedence, {@code --logs}, {@code init --state URL},
 * and the URLs refused (a password in one never shown), against a real embedded server.
 */
class PostgresStateCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "s3cret-Pw";

  @TempDir
  Path dir;

  private Path backlog;
  private String url;

  @BeforeEach
  void project() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_PHASE of $ORCHESTRATE_ITEM_ID done"
        """);
    TwoPhaseProject.config(dir, agent);
    backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - {id: A, title: a}\n");
    url = EmbeddedPostgresServer.location(EmbeddedPostgresServer.freshSchema("cli"));
  }

  private CliRunner.Result cli(Map<String, String> env, String... args) {
    return CliRunner.runIn(dir, env, args);
  }

  private CliRunner.Result cli(String... args) {
    return cli(Map.of(), args);
  }

  private void runOk(Map<String, String> env, String... flags) {
    List<String> args = new ArrayList<>(List.of(flags));
    args.addAll(List.of("--quiet", "run", backlog.toString()));
    CliRunner.Result run = cli(env, args.toArray(String[]::new));
    assertEquals(0, run.exitCode(), run.err());
  }

  /** The items of {@code status --json}: id to status. */
  private static Map<String, String> items(CliRunner.Result status) throws Exception {
    assertEquals(0, status.exitCode(), status.err());
    Map<String, String> out = new java.util.TreeMap<>();
    for (JsonNode item : JSON.readTree(status.out()).get("items")) {
      out.put(item.get("id").asText(), item.get("status").asText());
    }
    return out;
  }

  private static String schemaOf(String location) {
    return location.substring(location.indexOf("?schema=") + "?schema=".length());
  }

  private static boolean schemaExists(String schema) throws Exception {
    try (Connection c = EmbeddedPostgresServer.connect();
        PreparedStatement ps = c.prepareStatement(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = 'items'")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    }
  }

  private static void assertOneLine(CliRunner.Result r, int code, String part) {
    assertEquals(code, r.exitCode(), r.err());
    assertTrue(r.err().startsWith("orchestrate: error: "), r.err());
    assertEquals(1, r.err().strip().lines().count(), r.err());
    assertTrue(r.err().contains(part), r.err());
  }

  @Test
  void run_and_status_work_on_a_postgresql_state_named_by_the_flag_with_the_logs_in_the_projects_directory()
      throws Exception {
    runOk(Map.of(), "--state", url);
    assertEquals(Map.of("A", "done"), items(cli("--state", url, "status", "--json")));
    assertTrue(schemaExists(schemaOf(url)));
    assertFalse(Files.exists(dir.resolve(".orchestrate/state.db")), "no SQLite database beside it");
    try (Stream<Path> jobs = Files.list(dir.resolve(".orchestrate/jobs"))) {
      assertEquals(2, jobs.count(), "one job directory a phase, in the project's .orchestrate/jobs");
    }
    CliRunner.Result logs = cli("--state", url, "logs", "A");
    assertEquals(0, logs.exitCode(), logs.err());
    assertTrue(logs.out().contains("second of A done"), logs.out());
  }

  @Test
  void stats_names_the_state_by_its_url_and_reads_jobs_memory_and_runners_there() throws Exception {
    CliRunner.Result before = cli("--state", url, "stats");
    assertEquals(0, before.exitCode(), before.err());
    assertTrue(before.out().startsWith("no state database in " + url + " yet"), before.out());
    assertOneLine(cli("--state", url, "stats", "--check"), 2, "no state database in " + url);

    runOk(Map.of(), "--state", url);
    CliRunner.Result stats = cli("--state", url, "stats", "--json", "--check");
    assertEquals(0, stats.exitCode(), stats.err());
    JsonNode doc = JSON.readTree(stats.out());
    assertEquals(url, doc.get("state").asText(), "the URL, not the local directory");
    assertTrue(doc.get("database_exists").asBoolean());
    assertEquals("ok", doc.get("status").asText());
    Map<String, Long> rows = new java.util.TreeMap<>();
    for (JsonNode structure : doc.get("structures")) {
      rows.put(structure.get("name").asText(), structure.get("rows").asLong());
    }
    assertEquals(1L, rows.get("items"), rows.toString());
    assertEquals(2L, rows.get("jobs"), rows.toString());
    assertEquals(0, doc.get("runners").size(), "the run deregistered: " + doc.get("runners"));

    CliRunner.Result jobs = cli("--state", url, "jobs", "--json");
    assertEquals(2, JSON.readTree(jobs.out()).get("jobs").size(), jobs.out());
    CliRunner.Result memory = cli("--state", url, "memory", "list", "--json");
    assertEquals(0, memory.exitCode(), memory.err());
  }

  @Test
  void ORCHESTRATE_STATE_may_be_a_postgresql_url() throws Exception {
    runOk(Map.of("ORCHESTRATE_STATE", url));
    assertEquals(Map.of("A", "done"), items(cli(Map.of("ORCHESTRATE_STATE", url), "status", "--json")));
    assertEquals(Map.of("A", "done"), items(cli("--state", url, "status", "--json")));
  }

  @Test
  void state_url_of_the_config_names_the_state_of_run_and_of_the_read_only_commands() throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), Files.readString(dir.resolve("orchestrate.yaml"))
        + "state:\n  url: \"" + url + "\"\n  lease_timeout: 10s\n");
    runOk(Map.of());
    assertFalse(Files.exists(dir.resolve(".orchestrate/state.db")), "the config's URL, not .orchestrate/");
    assertEquals(Map.of("A", "done"), items(cli("status", "--json")));
    CliRunner.Result jobs = cli("jobs", "--json");
    assertEquals(0, jobs.exitCode(), jobs.err());
    assertEquals(2, JSON.readTree(jobs.out()).get("jobs").size());
    // From a directory below the project: the project (and so its config) is found upwards.
    Path sub = Files.createDirectories(dir.resolve("src/deep"));
    CliRunner.Result below = CliRunner.runIn(sub, Map.of(), "status", "--json");
    assertEquals(Map.of("A", "done"), items(below));
  }

  @Test
  void the_flag_wins_over_the_environment_which_wins_over_the_config() throws Exception {
    String other = EmbeddedPostgresServer.location(EmbeddedPostgresServer.freshSchema("cli_other"));
    Files.writeString(dir.resolve("orchestrate.yaml"), Files.readString(dir.resolve("orchestrate.yaml"))
        + "state:\n  url: " + url + "\n");
    runOk(Map.of());
    Path emptyDir = dir.resolve("elsewhere");

    assertEquals(Map.of(), items(cli(Map.of("ORCHESTRATE_STATE", emptyDir.toString()), "status", "--json")),
        "the environment's directory, not the config's URL");
    assertEquals(Map.of(), items(cli(Map.of("ORCHESTRATE_STATE", other), "status", "--json")),
        "the environment's URL, not the config's");
    assertEquals(Map.of("A", "done"), items(cli(Map.of("ORCHESTRATE_STATE", emptyDir.toString()), "--state", url,
        "status", "--json")), "the flag's URL, not the environment's directory");
    assertEquals(Map.of(), items(cli(Map.of("ORCHESTRATE_STATE", url), "--state", emptyDir.toString(), "status",
        "--json")), "the flag's directory, not the environment's URL");
    assertFalse(Files.exists(emptyDir.resolve("state.db")), "a read-only look creates nothing");
  }

  @Test
  void a_password_in_the_url_is_refused_wherever_it_is_given_and_never_shown() throws Exception {
    int port = EmbeddedPostgresServer.server().getPort();
    String withPassword = "postgresql://postgres:" + SECRET + "@localhost:" + port + "/postgres";
    CliRunner.Result flag = cli("--state", withPassword, "status");
    assertOneLine(flag, 2, "contains a password");
    assertFalse(flag.err().contains(SECRET), flag.err());
    assertTrue(flag.err().contains("PGPASSWORD"), flag.err());

    CliRunner.Result env = cli(Map.of("ORCHESTRATE_STATE", withPassword + "?schema=x"), "--quiet", "run",
        backlog.toString());
    assertOneLine(env, 2, "contains a password");
    assertFalse(env.err().contains(SECRET), env.err());

    String config = Files.readString(dir.resolve("orchestrate.yaml"));
    Files.writeString(dir.resolve("orchestrate.yaml"), config + "state:\n  url: " + withPassword + "\n");
    String where = "orchestrate.yaml:" + (config.lines().count() + 2) + ":8: ";
    for (List<String> command : List.of(List.of("status"), List.of("run", backlog.toString()))) {
      CliRunner.Result refused = cli(command.toArray(String[]::new));
      assertOneLine(refused, 2, "state.url contains a password");
      assertTrue(refused.err().contains(where), refused.err());
      assertFalse(refused.err().contains(SECRET), refused.err());
    }
  }

  @Test
  void init_with_a_url_migrates_the_database_and_writes_the_url_into_the_config() throws Exception {
    Path project = dir.resolve("fresh");
    CliRunner.Result init = cli("init", "--state", url, project.toString());
    assertEquals(0, init.exitCode(), init.err());
    assertTrue(init.out().contains("state: " + url + " ready, schema version " + latestPostgresSchema()), init.out());
    assertTrue(schemaExists(schemaOf(url)), "migrated");
    assertEquals(url, ConfigLoader.load(project.resolve("orchestrate.yaml")).state().url());
    assertTrue(Files.isDirectory(project.resolve(".orchestrate")), "the local directory for logs and worktrees");

    // The scaffolded project runs on that state without naming it again.
    CliRunner.Result run = CliRunner.runIn(project, Map.of(), "--quiet", "run",
        project.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err());
    assertFalse(Files.exists(project.resolve(".orchestrate/state.db")));
    assertEquals("done", items(CliRunner.runIn(project, Map.of(), "status", "--json")).get("TASK-1"));

    CliRunner.Result again = cli("init", "--state", url, project.toString());
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("names it already"), again.out());
  }

  @Test
  void init_with_a_url_in_an_existing_project_prepares_the_database_and_leaves_the_config_alone()
      throws Exception {
    String before = Files.readString(dir.resolve("orchestrate.yaml"));
    CliRunner.Result init = cli("init", "--state", url, dir.toString());
    assertEquals(0, init.exitCode(), init.err());
    assertTrue(init.out().contains("ready, schema version " + latestPostgresSchema()), init.out());
    assertTrue(init.out().contains("    url: \"" + url + "\""), init.out());
    assertEquals(before, Files.readString(dir.resolve("orchestrate.yaml")));
    assertTrue(schemaExists(schemaOf(url)));
  }

  @Test
  void init_with_a_server_out_of_reach_fails_in_one_line_and_writes_nothing() throws Exception {
    Path project = dir.resolve("fresh");
    CliRunner.Result init = cli("init", "--state", "postgresql://postgres@localhost:1/postgres", project.toString());
    assertOneLine(init, 1, "init wrote nothing: cannot reach the state database "
        + "postgresql://postgres@localhost:1/postgres");
    assertTrue(init.err().contains("check that the server runs"), init.err());
    assertFalse(Files.exists(project), "nothing written");
  }

  @Test
  void init_refuses_a_password_in_the_url_without_showing_it() {
    Path project = dir.resolve("fresh");
    CliRunner.Result init = cli("init", "--state", "postgresql://me:" + SECRET + "@localhost/db", project.toString());
    assertOneLine(init, 2, "contains a password");
    assertFalse(init.err().contains(SECRET), init.err());
    assertFalse(Files.exists(project));
  }

  @Test
  void logs_puts_this_runners_job_logs_in_the_directory_it_names_where_jobs_and_logs_find_them() throws Exception {
    Path logs = dir.resolve("local-disk/any-name");
    runOk(Map.of(), "--state", url, "--logs", logs.toString());
    try (Stream<Path> jobs = Files.list(logs)) {
      assertEquals(2, jobs.count());
    }
    assertFalse(Files.exists(dir.resolve(".orchestrate/jobs")), "nothing in the default place");

    CliRunner.Result jobs = cli("--state", url, "--logs", logs.toString(), "jobs", "--json");
    assertEquals(0, jobs.exitCode(), jobs.err());
    for (JsonNode job : JSON.readTree(jobs.out()).get("jobs")) {
      assertTrue(Path.of(job.get("log_path").asText()).startsWith(logs), job.toString());
      assertTrue(Files.isRegularFile(Path.of(job.get("log_path").asText())), job.toString());
    }
    CliRunner.Result output = cli("--state", url, "--logs", logs.toString(), "logs", "A", "--phase", "first");
    assertEquals(0, output.exitCode(), output.err());
    assertTrue(output.out().contains("first of A done"), output.out());

    // The row records the absolute path on this runner's disk: found without --logs, from anywhere.
    Path other = Files.createDirectories(dir.resolve("other-project"));
    Files.copy(dir.resolve("orchestrate.yaml"), other.resolve("orchestrate.yaml"));
    CliRunner.Result elsewhere = CliRunner.runIn(other, Map.of(), "--state", url, "logs", "A", "--phase", "first");
    assertEquals(0, elsewhere.exitCode(), elsewhere.err());
    assertTrue(elsewhere.out().contains("first of A done"), elsewhere.out());

    try (Stream<Path> all = Files.walk(logs)) {
      all.sorted(java.util.Comparator.reverseOrder()).filter(p -> !p.equals(logs)).forEach(p -> p.toFile().delete());
    }
    CliRunner.Result gone = cli("--state", url, "logs", "A");
    assertOneLine(gone, 1, "is gone");
    assertTrue(gone.err().contains("a runner on another machine ran the job"), gone.err());
  }

  @Test
  void compact_deletes_pruned_job_directories_in_the_logs_directory_and_nowhere_else() throws Exception {
    Path logs = dir.resolve("local-disk/runner-logs");
    runOk(Map.of(), "--state", url, "--logs", logs.toString());
    // A job directory of the project's own .orchestrate/jobs, which no row of this state names.
    Path bystander = Files.createDirectories(dir.resolve(".orchestrate/jobs/run1-0001-Z-first-1"));
    Files.writeString(dir.resolve("orchestrate.yaml"), Files.readString(dir.resolve("orchestrate.yaml"))
        + "retention:\n  jobs: {max_rows: 0, max_age: none}\n");

    CliRunner.Result compact = cli("--state", url, "--logs", logs.toString(), "--quiet", "compact");
    assertEquals(0, compact.exitCode(), compact.err());
    try (Stream<Path> left = Files.list(logs)) {
      assertEquals(List.of(), left.toList(), "the pruned jobs' directories are gone");
    }
    assertTrue(Files.isDirectory(bystander), "outside the logs directory nothing is deleted");
    CliRunner.Result jobs = cli("--state", url, "jobs", "--json");
    assertEquals(0, JSON.readTree(jobs.out()).get("jobs").size(), jobs.out());
  }

  @Test
  void compact_leaves_another_runners_job_directories_to_that_runners_own_compact() throws Exception {
    Path mine = dir.resolve("runner-a/logs");
    Path theirs = dir.resolve("runner-b/logs");
    runOk(Map.of(), "--state", url, "--logs", theirs.toString());
    Files.writeString(dir.resolve("orchestrate.yaml"), Files.readString(dir.resolve("orchestrate.yaml"))
        + "retention:\n  jobs: {max_rows: 0, max_age: none}\n");

    CliRunner.Result compact = cli("--state", url, "--logs", mine.toString(), "--quiet", "compact");
    assertEquals(0, compact.exitCode(), compact.err());
    CliRunner.Result jobs = cli("--state", url, "jobs", "--json");
    assertEquals(0, JSON.readTree(jobs.out()).get("jobs").size(), "the rows are pruned: " + jobs.out());
    try (Stream<Path> left = Files.list(theirs)) {
      assertEquals(2, left.count(), "another runner's job directories are not this compact's to delete");
    }
    // That runner's own compact finds them named by no row, and sweeps them.
    CliRunner.Result own = cli("--state", url, "--logs", theirs.toString(), "--quiet", "compact");
    assertEquals(0, own.exitCode(), own.err());
    try (Stream<Path> left = Files.list(theirs)) {
      assertEquals(List.of(), left.toList());
    }
  }

  @Test
  void logs_is_refused_with_a_state_directory() {
    CliRunner.Result sqlite = cli("--state", dir.resolve("state").toString(), "--logs", dir.resolve("l/jobs")
        .toString(), "status");
    assertOneLine(sqlite, 2, "--logs is for a postgresql:// state");
    CliRunner.Result defaultState = cli("--logs", dir.resolve("l/jobs").toString(), "--quiet", "run",
        backlog.toString());
    assertOneLine(defaultState, 2, "--logs is for a postgresql:// state");
  }

  @Test
  void state_lease_timeout_out_of_its_range_and_unknown_state_keys_are_refused() throws Exception {
    String config = Files.readString(dir.resolve("orchestrate.yaml"));
    Files.writeString(dir.resolve("orchestrate.yaml"), config + "state:\n  lease_timeout: 1s\n");
    assertOneLine(cli("--quiet", "run", backlog.toString()), 2, "state.lease_timeout must be at least 3s");
    Files.writeString(dir.resolve("orchestrate.yaml"), config + "state:\n  lease_timeout: 2h\n");
    assertOneLine(cli("--quiet", "run", backlog.toString()), 2, "state.lease_timeout must be at most 1h");
    Files.writeString(dir.resolve("orchestrate.yaml"), config + "state:\n  lease_timout: 30s\n");
    CliRunner.Result typo = cli("status");
    assertOneLine(typo, 2, "unknown key 'lease_timout' in state; did you mean 'lease_timeout'?");
  }

  /** The newest PostgreSQL schema: one migration script per version (never a number written here). */
  private static long latestPostgresSchema() throws java.io.IOException {
    try (Stream<Path> scripts = Files.list(Path.of("src/main/resources/db/postgres"))) {
      return scripts.filter(p -> p.getFileName().toString().matches("V\\d+__.*\\.sql")).count();
    }
  }
}
