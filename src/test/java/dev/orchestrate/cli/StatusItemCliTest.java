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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code status ID}: one item in full; and the table's TITLE and ATTEMPTS columns. */
class StatusItemCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String LONG_REASON = "The staging key is missing and the vendor needs a signed form "
      + "before they issue another one; the form is in the shared drive under legal/vendors/2026";
  private static final String LONG_TITLE = "Migrate the billing service to the new ledger and retire the old one";

  @TempDir
  Path dir;

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /**
   * A fails its first phase once, then completes both (its second phase proposes a follow-up);
   * B blocks in its first phase and is unblocked with notes; C has a long title.
   */
  @BeforeEach
  void project() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent,
        """
            #!/usr/bin/env bash
            if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = first ] && [ ! -e '%1$s' ]; then
              touch '%1$s'; echo 'flaky network' >&2; exit 3
            fi
            if [ "$ORCHESTRATE_ITEM_ID" = A ] && [ "$ORCHESTRATE_PHASE" = second ]; then
              printf '{"result": "phase_complete", "summary": "wired the retries", "follow_ups": [{"title": "Add jitter"}]}' \\
                > "$ORCHESTRATE_RESULT_FILE"
              exit 0
            fi
            if [ "$ORCHESTRATE_ITEM_ID" = D ]; then
              printf '{"result": "blocked", "context": "%2$s\\\\nsecond line: ask ops"}' > "$ORCHESTRATE_RESULT_FILE"
              exit 0
            fi
            if [ "$ORCHESTRATE_ITEM_ID" = B ]; then
              printf '{"result": "blocked", "context": "needs the staging key"}' > "$ORCHESTRATE_RESULT_FILE"
              exit 0
            fi
            echo "$ORCHESTRATE_PHASE of $ORCHESTRATE_ITEM_ID done"
            """
            .formatted(dir.resolve("a-failed-once"), LONG_REASON));
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"), """
        items:
          - {id: A, title: Wire retries, tags: [api]}
          - {id: B, title: Sandbox}
          - {id: C, title: "%s", depends_on: [B]}
          - {id: D, title: Decide}
        """.formatted(LONG_TITLE));
    CliRunner.Result run = cli("--config", config.toString(), "--quiet", "run", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    assertEquals(0, cli("unblock", "B", "--notes", "the key is in the vault").exitCode());
  }

  @Test
  void status_id_json_has_the_phases_with_summaries_attempts_jobs_and_follow_ups() throws Exception {
    CliRunner.Result r = cli("status", "A", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals("item", doc.get("kind").asText());
    JsonNode item = doc.get("item");
    assertEquals("done", item.get("status").asText());
    assertEquals(1, item.get("attempts").asInt(), "the last phase took one attempt");
    assertTrue(item.get("in_backlog").asBoolean());

    JsonNode phases = doc.get("phases");
    assertEquals("first", phases.get(0).get("name").asText());
    assertEquals(2, phases.get(0).get("attempts").asInt());
    assertTrue(phases.get(0).get("completed").asBoolean());
    assertTrue(phases.get(0).get("summary").asText().contains("first of A done"), phases.toString());
    assertTrue(phases.get(1).get("summary").asText().contains("wired the retries"), phases.toString());

    assertEquals(3, doc.get("jobs").size());
    assertEquals("failed", doc.get("jobs").get(0).get("state").asText());
    String log = doc.get("jobs").get(0).get("log_path").asText();
    assertFalse(log.startsWith("/"), "relative to the state directory: " + log);
    assertTrue(Files.isRegularFile(dir.resolve("state").resolve(log)), log);

    JsonNode followUp = doc.get("follow_ups").get(0);
    assertTrue(followUp.get("id").asText().startsWith("A-fu-"), followUp.toString());
    assertEquals("A/second", followUp.get("origin").asText());
  }

  @Test
  void status_id_text_shows_the_blocked_reason_and_unblock_notes() {
    CliRunner.Result r = cli("status", "B");
    assertEquals(0, r.exitCode(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals("B: Sandbox", lines.get(0));
    assertTrue(lines.contains("status:        in_progress at phase first, attempts 0"), r.out());
    assertTrue(lines.contains("unblock notes: the key is in the vault"), r.out());
    assertTrue(lines.stream().anyMatch(l -> l.matches("PHASE +ATTEMPTS +RESULT +SUMMARY")), r.out());
    assertTrue(lines.stream().anyMatch(l -> l.matches("first +1 +blocked +.*")), r.out());
    assertTrue(
        lines.stream().anyMatch(
            l -> l.matches("JOB +PHASE +ATTEMPT +STATE +RESULT +OUTCOME +STARTED +DURATION +EXIT +TOKENS +COST +LOG")),
        r.out());
    assertTrue(
        lines.stream().anyMatch(l -> l.matches("\\d+ +first +1 +blocked +blocked +blocked +.* jobs/.*output\\.log")),
        r.out());
  }

  @Test
  void status_id_shows_a_blocked_reason_in_full_and_its_job_as_blocked() throws Exception {
    CliRunner.Result r = cli("status", "D");
    assertEquals(0, r.exitCode(), r.err());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.contains("blocked:       agent reported blocked in phase first: " + LONG_REASON), r.out());
    assertTrue(lines.contains("               second line: ask ops"), r.out());
    assertTrue(lines.stream().anyMatch(l -> l.matches("\\d+ +first +1 +blocked +blocked +blocked +.*")), r.out());
    JsonNode blocked = JSON.readTree(cli("status", "D", "--json").out()).get("jobs").get(0);
    assertEquals("blocked", blocked.get("state").asText(), "what the agent reported, not failed: " + blocked);
    assertTrue(cli("jobs").out().lines().anyMatch(l -> l.matches("\\d+ +D +first +1 +blocked +blocked +blocked .*")));
  }

  @Test
  void status_id_json_has_the_items_workspace_and_usage_and_jobs_rows_as_jobs_json_has_them() throws Exception {
    JsonNode doc = JSON.readTree(cli("status", "A", "--json").out());
    List<String> keys = new ArrayList<>();
    doc.get("item").fieldNames().forEachRemaining(keys::add);
    assertEquals(List.of("id", "title", "status", "phase", "attempts", "pipeline", "priority", "depends_on",
        "waiting_on", "tags", "in_backlog", "origin", "description", "blocked_reason", "unblock_notes", "last_failure",
        "workspace", "branch_summary", "usage", "held_by", "worktree_checkout", "remote_ref"), keys);
    assertTrue(doc.at("/item/workspace").isNull(), "a shared workspace has none");
    assertTrue(doc.at("/item/held_by").isNull() && doc.at("/item/remote_ref").isNull(), "one run, one checkout");
    assertTrue(doc.at("/item/branch_summary").isNull(), "nor a branch to summarize");
    List<String> jobKeys = new ArrayList<>();
    doc.get("jobs").get(0).fieldNames().forEachRemaining(jobKeys::add);
    assertEquals(List.of("id", "run_id", "item_id", "phase", "attempt", "state", "result", "outcome", "agent",
        "started_at", "ended_at", "duration_ms", "exit_code", "log_path", "reason", "session_id", "session_start",
        "checks", "commit", "landed_commit", "pull_request", "usage"), jobKeys);
  }

  @Test
  void status_of_an_unknown_id_exits_2_and_suggests_the_closest() {
    CliRunner.Result r = cli("status", "b");
    assertEquals(2, r.exitCode());
    assertEquals(List.of("orchestrate: error: unknown item 'b'; did you mean 'B'? (orchestrate status lists them)"),
        r.err().lines().toList());
  }

  @Test
  void the_table_has_a_cut_title_and_the_attempts_of_the_last_phase_of_done_items() {
    List<String> lines = cli("status").out().lines().toList();
    assertTrue(lines.get(0).matches("ID +STATUS +PHASE +ATTEMPTS +TITLE +NOTE"), lines.get(0));
    assertTrue(lines.get(1).matches("A +done +- +1 +Wire retries"), lines.get(1));
    String cut = LONG_TITLE.substring(0, StatusCommand.TITLE_COLUMN_MAX - 1) + "…";
    assertTrue(lines.get(3).matches("C +new +- +0 +" + cut + " +waiting on B \\(in_progress\\)"), lines.get(3));
  }
}
