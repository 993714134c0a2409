package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.item.Progress;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.TreeSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code orchestrate unblock} and {@code orchestrate jobs}, in-process, against a real state database. */
class UnblockAndJobsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NOTES = "The staging key is in vault/staging; use it for the sandbox.";

  @TempDir
  Path dir;

  private Path state() {
    return dir.resolve("state");
  }

  private Path prompts() {
    return dir.resolve("prompts");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state().toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  private static void assertOneErrorLine(CliRunner.Result r, int code, String expected) {
    assertEquals(code, r.exitCode(), r.err());
    assertEquals("", r.out(), "stdout stays empty on error");
    assertEquals(List.of("orchestrate: error: " + expected), r.err().lines().toList());
  }

  /**
   * Two items in a two-phase pipeline. The agent saves every prompt (numbered, in order); A
   * reports blocked in its first phase unless its prompt carries unblock notes; B fails its
   * first attempt once, then everything succeeds.
   */
  private Path[] project() throws Exception {
    Files.createDirectories(prompts());
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        n=$(ls '%1$s' | wc -l)
        cp "$ORCHESTRATE_PROMPT_FILE" "%1$s/$(printf %%02d $((n + 1)))-$ORCHESTRATE_ITEM_ID-$ORCHESTRATE_PHASE.md"
        if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = first ] \\
            && ! grep -q '^## Unblock Context' "$ORCHESTRATE_PROMPT_FILE"; then
          printf '{"result": "blocked", "context": "needs the staging key"}' > "$ORCHESTRATE_RESULT_FILE"
          exit 0
        fi
        if [ "$ORCHESTRATE_ITEM_ID" = B ] && [ ! -e '%2$s' ]; then
          touch '%2$s'
          echo 'flaky network' >&2
          exit 3
        fi
        echo "$ORCHESTRATE_PHASE of $ORCHESTRATE_ITEM_ID done"
        """.formatted(prompts(), dir.resolve("b-failed-once")));
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - id: A\n    title: Wire the sandbox\n  - id: B\n    title: b\n");
    return new Path[] {config, backlog};
  }

  private CliRunner.Result run(Path[] project, String... extra) {
    List<String> args = new ArrayList<>(List.of("--config", project[0].toString(), "--quiet", "run"));
    args.addAll(List.of(extra));
    args.add(project[1].toString());
    return cli(args.toArray(String[]::new));
  }

  private List<Path> savedPrompts() throws Exception {
    try (Stream<Path> files = Files.list(prompts())) {
      return files.sorted().toList();
    }
  }

  /** Item {@code id}'s progress as the state holds it, read without writing. */
  private Progress progress(String id) {
    return TestStores.read(state(), store -> store.items().item(id)).orElseThrow().progress();
  }

  private String status(String id) {
    return progress(id).status().key();
  }

  /** What memory {@code id} was superseded by, or null; the memory must exist. */
  private String supersededBy(String id) {
    return TestStores.read(state(), store -> store.memory().get(id)).orElseThrow().supersededBy();
  }

  @Test
  void a_blocked_item_unblocked_with_notes_gets_them_in_its_next_prompt_and_then_completes() throws Exception {
    Path[] project = project();
    CliRunner.Result first = run(project);
    assertEquals(0, first.exitCode(), first.err());
    assertEquals("blocked", status("A"));

    CliRunner.Result unblocked = cli("unblock", "A", "--notes", NOTES, "--json");
    assertEquals(0, unblocked.exitCode(), unblocked.err());
    JsonNode doc = JSON.readTree(unblocked.out());
    assertEquals(1, doc.get("schema_version").asInt());
    assertEquals("unblock", doc.get("kind").asText());
    assertEquals("A", doc.get("id").asText());
    assertEquals("in_progress", doc.get("status").asText());
    assertEquals("first", doc.get("phase").asText());
    Progress a = progress("A");
    assertEquals("in_progress|first|0||" + NOTES, a.status().key() + "|" + a.phase() + "|" + a.attempts() + "|"
        + (a.blockedReason() == null ? "" : a.blockedReason()) + "|" + a.unblockNotes());
    assertEquals(Map.of("from", "blocked", "to", "in_progress", "phase", "first", "reason", "unblocked with notes"),
        TestStores.read(state(), store -> store.events().recent(Integer.MAX_VALUE)).stream()
            .map(EventLog.Entry::event).filter(e -> e.kind().equals("item.status")).findFirst().orElseThrow()
            .payload());

    // One phase only: the unblocked one. Its prompt has the notes; once it succeeds they are gone.
    CliRunner.Result second = run(project, "--cap", "1");
    assertEquals(0, second.exitCode(), second.err());
    List<Path> prompts = savedPrompts();
    Path resumed = prompts.get(prompts.size() - 1);
    assertTrue(resumed.getFileName().toString().endsWith("-A-first.md"), resumed.toString());
    String prompt = Files.readString(resumed);
    assertTrue(prompt.contains("## Unblock Context\n\n" + NOTES), prompt);
    a = progress("A");
    assertEquals("in_progress|second|",
        a.status().key() + "|" + a.phase() + "|" + (a.unblockNotes() == null ? "" : a.unblockNotes()));

    CliRunner.Result third = run(project);
    assertEquals(0, third.exitCode(), third.err());
    String last = Files.readString(savedPrompts().get(savedPrompts().size() - 1));
    assertTrue(last.contains("## Task: second"), last);
    assertFalse(last.contains("## Unblock Context"), "the notes were cleared after the phase succeeded");
    assertEquals("done", status("A"));
    assertEquals("outcome:A:done", supersededBy("outcome:A:blocked"));
    assertNull(supersededBy("outcome:A:done"));
  }

  @Test
  void jobs_json_after_runs_lists_every_attempt_newest_first_with_its_state() throws Exception {
    Path[] project = project();
    run(project);
    CliRunner.Result r = cli("jobs", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals(1, doc.get("schema_version").asInt());
    assertEquals("jobs", doc.get("kind").asText());
    JsonNode run = doc.get("run");
    assertEquals(1, run.get("id").asInt());
    assertEquals("ended", run.get("state").asText());
    assertEquals("all_done", run.get("halt_reason").asText());
    assertEquals(ProcessHandle.current().pid(), run.get("pid").asLong());
    assertTrue(run.get("started_at").asText().endsWith("Z"), run.toString());

    List<String> rows = new ArrayList<>();
    for (JsonNode job : doc.get("jobs")) {
      rows.add(job.get("item_id").asText() + " " + job.get("phase").asText() + " " + job.get("attempt").asInt() + " "
          + job.get("state").asText() + " " + job.get("result").asText() + " " + job.get("exit_code").asText());
    }
    assertEquals(List.of(
        "B second 1 completed phase_complete 0",
        "B first 2 completed phase_complete 0",
        "B first 1 failed failed 3",
        "A first 1 blocked blocked 0"), rows);
    JsonNode oldest = doc.get("jobs").get(3);
    for (String key : List.of("id", "run_id", "item_id", "phase", "attempt", "state", "result", "started_at",
        "ended_at", "duration_ms", "exit_code", "log_path", "reason")) {
      assertTrue(oldest.has(key), key);
    }
    assertTrue(oldest.get("log_path").asText().startsWith("jobs/"), "relative to the state directory: " + oldest);
    assertTrue(Files.isRegularFile(state().resolve(oldest.get("log_path").asText())), oldest.toString());
    assertEquals("needs the staging key", oldest.get("reason").asText());
    Instant started = Instant.parse(oldest.get("started_at").asText());
    Instant ended = Instant.parse(oldest.get("ended_at").asText());
    assertEquals(ended.toEpochMilli() - started.toEpochMilli(), oldest.get("duration_ms").asLong());

    CliRunner.Result limited = cli("jobs", "--json", "--limit", "1");
    assertEquals(1, JSON.readTree(limited.out()).get("jobs").size());

    CliRunner.Result text = cli("jobs");
    assertEquals(0, text.exitCode(), text.err());
    List<String> lines = text.out().lines().toList();
    assertTrue(lines.get(0).matches("Run 1 \\(pid \\d+\\), started \\S+Z: ended \\S+Z after \\S+, all_done"),
        lines.get(0));
    assertTrue(
        lines.get(1)
            .matches("ID +ITEM +PHASE +ATTEMPT +STATE +RESULT +OUTCOME +STARTED +DURATION +EXIT +TOKENS +COST +LOG"),
        lines.get(1));
    assertTrue(
        lines.get(5).matches("1 +A +first +1 +blocked +blocked +blocked +\\S+Z +\\S+ +0 +- +- +jobs/\\S+/output\\.log"),
        lines.get(5));
  }

  @Test
  @SuppressWarnings("try") // the lock is held, never read: that is the point of the test
  void jobs_shows_a_run_without_an_end_as_running_while_it_holds_the_lock_and_as_died_after() throws Exception {
    StateBackend backend = TestStores.backend(state());
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      store.items().runStarted(Instant.parse("2026-11-22T09:00:00Z"), 4242);
    }
    try (RunLease held = backend.acquireLease(Instant.parse("2026-11-22T09:00:00Z"))) {
      JsonNode run = JSON.readTree(cli("jobs", "--json").out()).get("run");
      assertEquals("running", run.get("state").asText());
      assertTrue(run.get("ended_at").isNull());
      assertTrue(cli("jobs").out().startsWith("Run 1 (pid 4242), started 2026-11-22T09:00:00Z: running for "));
    }
    JsonNode run = JSON.readTree(cli("jobs", "--json").out()).get("run");
    assertEquals("died", run.get("state").asText());
  }

  @Test
  void jobs_without_any_state_lists_nothing_and_creates_nothing() throws Exception {
    CliRunner.Result r = cli("jobs", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertTrue(doc.get("run").isNull());
    assertEquals(0, doc.get("jobs").size());
    CliRunner.Result text = cli("jobs");
    assertEquals(0, text.exitCode());
    assertTrue(text.out().startsWith("No jobs yet in "), text.out());
    assertFalse(Files.exists(state()), "nothing is created");
  }

  @Test
  void jobs_rejects_a_limit_below_1_with_exit_2() {
    assertOneErrorLine(cli("jobs", "--limit", "0"), 2, "--limit must be at least 1, got 0");
    assertOneErrorLine(cli("jobs", "--json", "--limit", "-3"), 2, "--limit must be at least 1, got -3");
  }

  @Test
  @SuppressWarnings("try") // the lock is held for the block, never read
  void unblock_is_refused_with_exit_3_while_a_run_holds_the_state() throws Exception {
    Path[] project = project();
    run(project);
    try (RunLease held = TestStores.backend(state()).acquireLease(Instant.parse("2026-11-22T09:00:00Z"))) {
      assertOneErrorLine(cli("unblock", "A", "--notes", NOTES), 3, "state directory " + state()
          + " is in use by another run (pid " + ProcessHandle.current().pid()
          + ", started 2026-11-22T09:00:00Z); wait for it to finish or stop it first");
    }
    assertEquals("blocked", status("A"));
    CliRunner.Result after = cli("unblock", "A", "--notes", NOTES);
    assertEquals(0, after.exitCode(), after.err());
    assertEquals("Unblocked A: in_progress at phase first; the notes go into its next prompt. "
        + "Continue with: orchestrate run", after.out().strip());
  }

  @Test
  void unblock_of_an_unknown_or_not_blocked_item_or_without_notes_exits_2_with_one_line() throws Exception {
    assertOneErrorLine(cli("unblock", "A", "--notes", NOTES), 2,
        "unknown item 'A': there is no state in " + state() + " yet");
    assertFalse(Files.exists(state()), "nothing is created");

    Path[] project = project();
    run(project);
    assertOneErrorLine(cli("unblock", "Z", "--notes", NOTES), 2, "unknown item 'Z'");
    assertOneErrorLine(cli("unblock", "B", "--notes", NOTES), 2,
        "item B is done, not blocked; only blocked items can be unblocked");
    assertOneErrorLine(cli("unblock", "A", "--notes", "  "), 2,
        "--notes must not be empty: tell the agent what changed");
    CliRunner.Result missing = cli("unblock", "A");
    assertEquals(2, missing.exitCode());
    assertEquals("", missing.out());
    assertEquals("blocked", status("A"));
  }

  @Test
  void a_refused_unblock_creates_no_lock_file_and_writes_nothing() throws Exception {
    Path[] project = project();
    run(project);
    // A state copied elsewhere, or cleaned by hand, has no lock file; a refusal must not make one.
    Files.deleteIfExists(state().resolve("run.lock"));
    TreeSnapshot before = TreeSnapshot.of(state());
    assertOneErrorLine(cli("unblock", "Z", "--notes", NOTES), 2, "unknown item 'Z'");
    assertOneErrorLine(cli("unblock", "B", "--notes", NOTES), 2,
        "item B is done, not blocked; only blocked items can be unblocked");
    assertEquals(before, TreeSnapshot.of(state()));
    assertFalse(Files.exists(state().resolve("run.lock")));
  }

  @Test
  void an_unknown_id_of_a_megabyte_with_a_newline_is_quoted_short_on_one_line() throws Exception {
    run(project());
    String id = "Z\n" + "z".repeat(1_000_000);
    CliRunner.Result r = cli("unblock", id, "--notes", NOTES);
    assertEquals(2, r.exitCode());
    assertEquals(List.of("orchestrate: error: unknown item 'Z\\n" + "z".repeat(58) + "…' (1000002 characters)"),
        r.err().lines().toList());
  }

  @Test
  void help_of_unblock_says_it_is_refused_while_a_run_is_active() {
    CliRunner.Result r = CliRunner.run("unblock", "--help");
    assertEquals(0, r.exitCode());
    assertTrue(r.out().replaceAll("\\s+", " ").contains("Refused (exit 3) while a run works on the same state"),
        r.out());
    CliRunner.Result root = CliRunner.run("--help");
    assertTrue(root.out().contains("unblock") && root.out().contains("jobs"), root.out());
  }
}
