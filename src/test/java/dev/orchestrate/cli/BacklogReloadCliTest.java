package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BacklogReloadCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void run_warns_once_per_problem_of_a_bad_edit_and_reports_the_fixed_item_as_added() throws Exception {
    Path agent = Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        case "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" in
          "A first") echo '  - {id: X, titel: x}' >> backlog.yaml ;;
          "B first") sed -i 's/titel: x/title: now fixed/' backlog.yaml ;;
        esac
        exit 0
        """);
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");

    CliRunner.Result r = CliRunner.run("--state", dir.resolve("state").toString(), "--config", config.toString(),
        "run", "--json", backlog.toString());

    assertEquals(0, r.exitCode(), r.err());
    List<String> warnings = r.err().lines().filter(l -> l.contains("warning")).toList();
    assertFalse(warnings.isEmpty(), r.err());
    for (String line : warnings) {
      assertTrue(line.startsWith("orchestrate: warning: " + backlog + ":4:"), line);
    }
    assertTrue(warnings.stream().anyMatch(l -> l.contains("titel")), r.err());
    assertEquals(List.of("backlog reloaded: 1 added"), r.err().lines().filter(l -> l.contains("backlog reloaded"))
        .map(l -> l.substring("HH:mm:ss ".length())).toList());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals(3, doc.get("items").get("done_this_run").asInt());
    assertEquals(List.of("A", "B", "X"), JSON.convertValue(doc.get("backlog").get("added"), List.class));
  }

  @Test
  void a_deleted_backlog_is_one_warning_and_quiet_does_not_hide_it() throws Exception {
    Path agent = Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        if [ "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" = "A first" ]; then rm backlog.yaml; fi
        exit 0
        """);
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");

    CliRunner.Result r = CliRunner.run("--state", dir.resolve("state").toString(), "--config", config.toString(),
        "--quiet", "run", backlog.toString());

    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("orchestrate: warning: " + backlog
        + ": the file was deleted; the run goes on with the items it listed before"
        + " (edit ignored until fixed; the run goes on)"),
        r.err().lines().toList());
    assertTrue(r.out().contains("2 done"), r.out());
  }
}
