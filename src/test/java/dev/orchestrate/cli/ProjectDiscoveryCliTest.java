package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A project is found the way git finds a repository: from the backlog's directory (run BACKLOG)
 * or the current directory (every other command) upwards, the nearest directory holding
 * orchestrate.yaml or .orchestrate/. --state, --config and the environment win.
 */
class ProjectDiscoveryCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path parent;

  private Path sub() {
    return parent.resolve("sub");
  }

  /** {@code init} of the parent and of sub, and a run of sub's backlog started from the parent. */
  private void twoProjectsWithSubRun() {
    assertEquals(0, CliRunner.runIn(parent, Map.of(), "init", parent.toString()).exitCode());
    CliRunner.Result init = CliRunner.runIn(parent, Map.of(), "init", "sub");
    assertEquals(0, init.exitCode(), init.err());
    CliRunner.Result run = CliRunner.runIn(parent, Map.of(), "--quiet", "run",
        sub().resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err());
  }

  private static List<String> ids(CliRunner.Result status) throws Exception {
    assertEquals(0, status.exitCode(), status.err());
    List<String> ids = new ArrayList<>();
    JSON.readTree(status.out()).get("items").forEach(i -> ids.add(i.get("id").asText()));
    return ids;
  }

  @Test
  void init_sub_says_to_run_sub_backlog_and_that_run_from_the_parent_uses_subs_state() throws Exception {
    assertEquals(0, CliRunner.runIn(parent, Map.of(), "init", parent.toString()).exitCode());
    CliRunner.Result init = CliRunner.runIn(parent, Map.of(), "init", "sub");
    assertTrue(init.out().contains("orchestrate run sub/backlog.yaml"), init.out());

    CliRunner.Result run = CliRunner.runIn(parent, Map.of(), "--quiet", "run",
        sub().resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(Files.isRegularFile(sub().resolve(".orchestrate/state.db")), "sub's state holds the run");
    assertFalse(Files.exists(parent.resolve(".orchestrate/state.db")), "the parent's state is left alone");
  }

  @Test
  void status_from_a_directory_deep_inside_sub_finds_subs_state() throws Exception {
    twoProjectsWithSubRun();
    Path deeper = Files.createDirectories(sub().resolve("deeper/dir"));

    assertEquals(List.of("TASK-1", "TASK-2"), ids(CliRunner.runIn(deeper, Map.of(), "status", "--json")));
    CliRunner.Result jobs = CliRunner.runIn(deeper, Map.of(), "jobs", "--json");
    assertEquals(0, jobs.exitCode(), jobs.err());
    assertTrue(JSON.readTree(jobs.out()).get("jobs").size() > 0, jobs.out());
    assertTrue(JSON.readTree(CliRunner.runIn(deeper, Map.of(), "stats", "--json").out())
        .get("database_exists").asBoolean());
    assertEquals(List.of(), ids(CliRunner.runIn(parent, Map.of(), "status", "--json")),
        "the parent is a project of its own, with no items yet");
  }

  @Test
  void state_and_config_overrides_win_over_the_found_project() throws Exception {
    twoProjectsWithSubRun();
    Path elsewhere = parent.resolve("elsewhere-state");

    assertEquals(List.of(), ids(CliRunner.runIn(sub(), Map.of(), "--state", elsewhere.toString(), "status", "--json")));
    assertEquals(List.of(), ids(CliRunner.runIn(sub(), Map.of("ORCHESTRATE_STATE", elsewhere.toString()),
        "status", "--json")));
    assertFalse(Files.exists(elsewhere), "status creates nothing");

    Path bare = Files.writeString(parent.resolve("bare.yaml"), "execution:\n  max_wip: 1\n");
    for (CliRunner.Result r : List.of(
        CliRunner.runIn(parent, Map.of(), "--config", bare.toString(), "run", sub().resolve("backlog.yaml").toString()),
        CliRunner.runIn(parent, Map.of("ORCHESTRATE_CONFIG", bare.toString()), "run",
            sub().resolve("backlog.yaml").toString()))) {
      assertEquals(2, r.exitCode(), r.err());
      assertTrue(r.err().contains("or agent.command in " + bare), "the named config is the one read: " + r.err());
    }
  }

  @Test
  void with_no_project_anywhere_status_jobs_and_stats_read_dot_orchestrate_and_create_nothing() throws Exception {
    Path lonely = Files.createDirectories(parent.resolve("lonely"));
    for (String command : List.of("status", "jobs", "stats")) {
      CliRunner.Result text = CliRunner.runIn(lonely, Map.of(), command);
      assertEquals(0, text.exitCode(), text.err());
      assertTrue(text.out().contains(lonely.resolve(".orchestrate").toString()), text.out());
    }
    try (Stream<Path> left = Files.list(lonely)) {
      assertEquals(List.of(), left.toList());
    }
  }

  @Test
  void the_marker_may_be_the_config_alone_or_the_state_directory_alone() throws Exception {
    Path configOnly = Files.createDirectories(parent.resolve("a"));
    Files.writeString(configOnly.resolve("orchestrate.yaml"), "execution:\n  max_wip: 1\n");
    Path stateOnly = Files.createDirectories(parent.resolve("b/.orchestrate"));
    Path inA = Files.createDirectories(configOnly.resolve("x"));
    Path inB = Files.createDirectories(parent.resolve("b/y"));

    JsonNode a = JSON.readTree(CliRunner.runIn(inA, Map.of(), "stats", "--json").out());
    assertEquals(configOnly.resolve(".orchestrate").toString(), a.get("state").asText());
    JsonNode b = JSON.readTree(CliRunner.runIn(inB, Map.of(), "stats", "--json").out());
    assertEquals(stateOnly.toString(), b.get("state").asText());
  }
}
