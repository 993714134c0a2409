package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run report says what a person must do (issue 45): the stop reason as it is, the blocked
 * items, what the remaining items wait on, the status hint with the run's own --state and
 * --config; run --json's blocked_ids, halt_kind and exit_code, and --strict-exit's 6.
 */
class RunReportCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  /** B blocks; C depends on B; A completes. */
  private Path backlog() throws Exception {
    Path agent = Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        if [ "$ORCHESTRATE_ITEM_ID" = B ]; then
          printf '{"result": "blocked", "context": "needs a key"}' > "$ORCHESTRATE_RESULT_FILE"
        fi
        exit 0
        """);
    TwoPhaseProject.config(dir, agent);
    return Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n  - {id: C, title: c, depends_on: [B]}\n");
  }

  private CliRunner.Result run(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("--state", dir.resolve("my state").toString(), "--config",
        dir.resolve("orchestrate.yaml").toString(), "--quiet", "run"));
    args.addAll(List.of(extra));
    args.add(dir.resolve("backlog.yaml").toString());
    return CliRunner.run(args.toArray(String[]::new));
  }

  @Test
  void a_blocked_item_is_named_with_what_waits_on_it_and_the_hint_repeats_state_and_config() throws Exception {
    backlog();
    CliRunner.Result r = run();

    assertEquals(0, r.exitCode(), r.err());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(0).startsWith("run 1 stopped: the remaining items wait on blocked items ("), r.out());
    assertTrue(lines.contains("  items: 3 total, 1 done, 1 blocked, 1 remaining (this run: 1 done, 1 blocked)"),
        r.out());
    assertTrue(lines.contains("  they wait on: B (blocked)"), r.out());
    assertTrue(lines.contains("  blocked (orchestrate status ID says why; unblock ID --notes TEXT sends it back): B"),
        r.out());
    assertEquals("  details: orchestrate --state '" + dir.resolve("my state") + "' --config "
        + dir.resolve("orchestrate.yaml") + " status", lines.get(lines.size() - 1));
  }

  @Test
  void run_json_names_the_blocked_items_and_strict_exit_makes_an_incomplete_run_exit_6() throws Exception {
    backlog();
    CliRunner.Result r = run("--strict-exit", "--json");

    assertEquals(ExitCode.INCOMPLETE, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals("[\"B\"]", doc.get("blocked_ids").toString());
    assertEquals("incomplete", doc.get("halt_kind").asText());
    assertEquals(6, doc.get("exit_code").asInt());
    List<String> keys = new ArrayList<>();
    doc.fieldNames().forEachRemaining(keys::add);
    assertEquals(List.of("landing_ids", "only", "blocked_ids", "halt_kind", "exit_code"),
        keys.subList(keys.size() - 5, keys.size()), "the new keys come last");
  }

  @Test
  void a_run_whose_every_item_is_done_says_done_not_done_or_blocked_and_exits_0_even_strict() throws Exception {
    backlog();
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n");
    CliRunner.Result r = run("--strict-exit", "--json");

    assertEquals(0, r.exitCode(), r.err());
    assertEquals("finished", JSON.readTree(r.out()).get("halt_kind").asText());
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: D, title: d}\n");
    CliRunner.Result text = run();
    assertTrue(text.out().startsWith("run 2 stopped: every item is done ("), text.out());
  }
}
