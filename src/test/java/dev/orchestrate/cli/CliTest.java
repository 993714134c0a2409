package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.context.ContextSummary;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class CliTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(dev.orchestrate.context.SlidingWindowSummarizer.class);

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path state() {
    return dir.resolve("state");
  }

  /** A config whose agent runs {@code body} and a pipeline of two phases. */
  private Path config(String body) throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, "#!/usr/bin/env bash\n" + body + "\n");
    return TwoPhaseProject.config(dir, agent);
  }

  private Path backlog(String yaml) throws Exception {
    Path file = dir.resolve("backlog.yaml");
    Files.writeString(file, yaml);
    return file;
  }

  private static void assertOneErrorLine(CliRunner.Result r, String expected) {
    assertEquals("", r.out(), "stdout stays empty on error");
    assertEquals(List.of("orchestrate: error: " + expected), r.err().lines().toList());
  }

  @Test
  void version_prints_the_version_and_exits_0() {
    CliRunner.Result r = CliRunner.run("--version");
    assertEquals(0, r.exitCode());
    assertTrue(r.out().startsWith("orchestrate "), r.out());
  }

  @Test
  void help_lists_the_commands_and_the_exit_codes() {
    CliRunner.Result r = CliRunner.run("--help");
    assertEquals(0, r.exitCode());
    for (String expected : List.of("init", "run", "status", "Exit codes:", "130  interrupted", "ORCHESTRATE_STATE")) {
      assertTrue(r.out().contains(expected), expected + " in\n" + r.out());
    }
  }

  @Test
  void an_unknown_option_exits_2_with_one_line_on_stderr() {
    // Not --bogus: two edits from --logs, it is suggested that (see the did-you-mean tests).
    CliRunner.Result r = CliRunner.run("status", "--frobnicate");
    assertEquals(2, r.exitCode());
    assertOneErrorLine(r, "unknown option '--frobnicate' (see 'orchestrate status --help')");
  }

  @Test
  void an_unknown_log_level_exits_2() {
    CliRunner.Result r = CliRunner.run("--log-level", "loud", "--state", state().toString(), "status");
    assertEquals(2, r.exitCode());
    assertOneErrorLine(r, "--log-level: unknown level 'loud' (use error, warn, info, debug or trace)");
  }

  @Test
  void status_without_any_state_lists_no_items_and_creates_nothing() {
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "status", "--json");
    assertEquals(0, r.exitCode());
    assertFalse(Files.exists(state()));
    assertTrue(r.out().contains("\"items\" : [ ]"), r.out());
  }

  @Test
  void run_exits_2_when_the_backlog_file_is_missing() {
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "run", dir.resolve("nope.yaml").toString());
    assertEquals(2, r.exitCode());
    assertOneErrorLine(r, "backlog file " + dir.resolve("nope.yaml")
        + " does not exist (create one with 'orchestrate init')");
  }

  @Test
  void run_exits_2_on_a_cap_below_1() throws Exception {
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "run", "--cap", "0",
        backlog("items: []").toString());
    assertEquals(2, r.exitCode());
    assertOneErrorLine(r, "--cap must be at least 1, got 0");
  }

  @Test
  void run_exits_2_when_no_agent_command_is_configured() throws Exception {
    Path config = dir.resolve("empty.yaml");
    Files.writeString(config, "execution:\n  max_retries: 1\n");
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "--config", config.toString(), "run",
        backlog("items:\n  - id: A\n    title: a\n").toString());
    assertEquals(2, r.exitCode());
    assertOneErrorLine(r, "no agent command configured: set agent.preset (claude, codex, gemini, opencode) or "
        + "agent.command in " + config + " (see 'orchestrate init --agent claude')");
    assertFalse(Files.exists(state()));
  }

  @Test
  void run_exits_2_with_every_backlog_problem_and_writes_nothing() throws Exception {
    Path config = config("exit 0");
    Path backlog = backlog("""
        items:
          - id: A
            title: first
            priority: urgent
          - id: A
            title: duplicate
          - id: B
            depends: [A]
        """);
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "--config", config.toString(), "run",
        backlog.toString());
    assertEquals(2, r.exitCode());
    assertEquals("", r.out());
    List<String> lines = r.err().lines().toList();
    assertTrue(lines.size() >= 4, r.err()); // bad priority, duplicate id, unknown field, missing title
    for (String line : lines) {
      assertTrue(line.startsWith("orchestrate: error: " + backlog + ":"), line);
    }
    assertFalse(Files.exists(state()), "nothing is written when validation fails");
  }

  @Test
  void run_json_reports_the_run_and_status_json_shows_every_item() throws Exception {
    Path config = config("""
        if [ "$ORCHESTRATE_ITEM_ID" = B ]; then
          printf '{"result": "blocked", "context": "needs a key"}' > "$ORCHESTRATE_RESULT_FILE"
        fi
        exit 0""");
    Path backlog = backlog("""
        schema_version: 1
        items:
          - id: A
            title: first
          - id: B
            title: second
        """);
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "--config", config.toString(), "--quiet",
        "run", "--json", backlog.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertEquals("", r.err(), "--quiet: nothing on stderr");
    JsonNode run = JSON.readTree(r.out());
    assertEquals(1, run.get("schema_version").asInt());
    assertEquals("run", run.get("kind").asText());
    assertEquals("all_done", run.get("halt_reason").asText());
    assertEquals(3, run.get("phases_run").asInt());
    assertEquals(1, run.get("items").get("done").asInt());
    assertEquals(1, run.get("items").get("blocked_this_run").asInt());
    assertEquals(List.of("A", "B"), JSON.convertValue(run.get("backlog").get("added"), List.class));

    CliRunner.Result s = CliRunner.run("--state", state().toString(), "status", "--json");
    assertEquals(0, s.exitCode());
    JsonNode status = JSON.readTree(s.out());
    assertEquals("status", status.get("kind").asText());
    assertEquals("done", status.get("items").get(0).get("status").asText());
    JsonNode b = status.get("items").get(1);
    assertEquals("blocked", b.get("status").asText());
    assertEquals("first", b.get("phase").asText());
    assertEquals("agent reported blocked in phase first: needs a key", b.get("blocked_reason").asText());
    assertEquals(1, status.get("counts").get("done").asInt());
    assertEquals(2, status.get("counts").get("total").asInt());
    for (String key : List.of("id", "title", "status", "phase", "attempts", "blocked_reason", "waiting_on")) {
      assertTrue(b.has(key), key);
    }
  }

  @Test
  void run_exits_1_when_it_completed_nothing_and_blocked_something() throws Exception {
    Path config = config("echo 'fatal: no repository' >&2; exit 2");
    Path backlog = backlog("items:\n  - id: A\n    title: a\n");
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "--config", config.toString(), "run",
        backlog.toString());
    assertEquals(1, r.exitCode(), r.err());
    assertTrue(r.out().contains("0 done, 1 blocked"), r.out());
    assertTrue(r.err().contains("A first: failed"), r.err());
  }

  @Test
  void run_records_turns_and_a_failing_summarizer_degrades_the_summary_without_stopping_work() throws Exception {
    Path config = config("echo \"decided: edit src/$ORCHESTRATE_PHASE.java\"");
    Files.writeString(config, Files.readString(config) + """
        context:
          window_size: 1
          summarizer: {kind: command, command: [bash, -c, "echo 'quota exceeded' >&2; exit 3"]}
        """);
    Path backlog = backlog("items:\n  - id: A\n    title: a\n");
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "--config", config.toString(), "run",
        backlog.toString());

    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("1 done"), r.out());
    assertTrue(r.err().contains("A summarizing earlier turns failed: command summarizer: bash exited with code 3: "
        + "quota exceeded"), r.err());
    assertEquals(List.of("summarization of item A failed (command summarizer: bash exited with code 3: quota "
        + "exceeded); using the builtin summarizer"), logs.warnings());
    try (StateStore store = TestStores.backend(state()).open(StateStore.Mode.READ_ONLY)) {
      assertEquals(4, store.turns().turns("A", 0, Long.MAX_VALUE).size(), "A is the only item");
      ContextSummary summary = store.turns().summary("A").orElseThrow();
      assertEquals(1, summary.toSeq());
      assertEquals("builtin", summary.generator());
      assertTrue(summary.degraded());
    }
  }

  @Test
  @SuppressWarnings("try") // the lock is held for the block, never read
  void run_exits_3_when_another_run_holds_the_state_directory() throws Exception {
    Path config = config("exit 0");
    Path backlog = backlog("items:\n  - id: A\n    title: a\n");
    try (RunLease held = TestStores.backend(state()).acquireLease(Instant.parse("2026-11-22T09:00:00Z"))) {
      CliRunner.Result r = CliRunner.run("--state", state().toString(), "--config", config.toString(), "run",
          backlog.toString());
      assertEquals(3, r.exitCode());
      assertOneErrorLine(r, "state directory " + state() + " is in use by another run (pid "
          + ProcessHandle.current().pid() + ", started 2026-11-22T09:00:00Z); wait for it to finish or stop it first");
    }
  }

  @Test
  void the_state_directory_comes_from_ORCHESTRATE_STATE_when_no_flag_is_given() throws Exception {
    Path config = config("exit 0");
    Path backlog = backlog("items:\n  - id: A\n    title: a\n");
    CliRunner.Result r = CliRunner.run(Map.of("ORCHESTRATE_STATE", state().toString(),
        "ORCHESTRATE_CONFIG", config.toString()), "--quiet", "run", backlog.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(Files.exists(state().resolve("state.db")));
  }

  @Test
  void status_prints_a_table_with_the_blocked_reason() throws Exception {
    Path config = config("echo 'boom' >&2; exit 4");
    CliRunner.run("--state", state().toString(), "--config", config.toString(), "--quiet", "run",
        backlog("items:\n  - id: A\n    title: a\n  - id: B\n    title: b\n    depends_on: [A]\n").toString());
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "status");
    assertEquals(0, r.exitCode());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(0).startsWith("ID"), r.out());
    assertTrue(lines.get(0).matches("ID +STATUS +PHASE +ATTEMPTS +TITLE +NOTE"), lines.get(0));
    // The attempts of the phase it was blocked in, not the 0 the state keeps.
    assertTrue(lines.get(1).matches("A +blocked +first +3 +a +retries exhausted in phase first after 3 attempts: "
        + "agent exited with code 4 \\| boom"), lines.get(1));
    assertTrue(lines.get(2).matches("B +new +- +0 +b +waiting on A \\(blocked\\)"), lines.get(2));
    assertEquals("2 items: 1 new, 1 blocked", lines.get(3));
  }

  @Test
  void status_shows_the_origin_of_follow_up_items_and_the_backlog_file_is_left_alone() throws Exception {
    Path config = config("""
        if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = second ]; then
          printf '{"result": "phase_complete", "follow_ups": [{"title": "Add retries"}]}' > "$ORCHESTRATE_RESULT_FILE"
        fi
        exit 0""");
    Path backlog = backlog("items:\n  - id: A\n    title: a\n");
    String yaml = Files.readString(backlog);
    CliRunner.Result r = CliRunner.run("--state", state().toString(), "--config", config.toString(),
        "run", backlog.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(
        r.err().lines().anyMatch(l -> l.matches(".* A-fu-[0-9a-f]{8} added, follow-up of A/second: Add retries")),
        r.err());
    assertEquals(yaml, Files.readString(backlog), "follow-ups are never written into the backlog file");

    JsonNode items = JSON.readTree(CliRunner.run("--state", state().toString(), "status", "--json").out()).get("items");
    assertEquals(2, items.size());
    assertTrue(items.get(0).has("origin"));
    assertTrue(items.get(0).get("origin").isNull(), "a backlog item has a null origin");
    JsonNode followUp = items.get(1);
    assertTrue(followUp.get("id").asText().startsWith("A-fu-"), followUp.toString());
    assertEquals("Add retries", followUp.get("title").asText());
    assertEquals("A/second", followUp.get("origin").asText());
    assertEquals("done", followUp.get("status").asText());
    assertFalse(followUp.get("in_backlog").asBoolean(), "a follow-up is not in the backlog file");

    List<String> lines = CliRunner.run("--state", state().toString(), "status").out().lines().toList();
    assertTrue(lines.get(2).matches("A-fu-[0-9a-f]{8} +done +- +1 +Add retries +follow-up of A/second"), lines.get(2));
  }

  @Test
  void init_scaffolds_a_project_that_runs_and_refuses_to_overwrite() throws Exception {
    Path project = dir.resolve("project");
    CliRunner.Result r = CliRunner.run("init", project.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(Files.isExecutable(project.resolve("agents/example-agent.sh")));
    assertTrue(Files.isDirectory(project.resolve(".orchestrate")));

    CliRunner.Result run = CliRunner.run("--state", project.resolve(".orchestrate").toString(), "--quiet", "run",
        project.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(run.out().contains("2 done"), run.out());

    CliRunner.Result again = CliRunner.run("init", project.toString());
    assertEquals(2, again.exitCode());
    assertTrue(again.err().contains("nothing was written"), again.err());
  }
}
