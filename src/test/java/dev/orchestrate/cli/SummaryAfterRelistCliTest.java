package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 13 point 18: an item dropped from the backlog and listed again keeps its phase summary. */
class SummaryAfterRelistCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void an_item_removed_and_re_added_during_a_run_keeps_its_previous_phase_summary() throws Exception {
    // A's first phase takes A out of the backlog (the sweep then drops its map entry); B's first
    // phase lists A again; A's second phase must still see what its first phase did.
    Path agent = Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        case "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" in
          "A first")
            printf 'items:\\n  - {id: B, title: b}\\n' > backlog.yaml
            echo '{"result": "phase_complete", "summary": "A-FIRST-DID-THE-SCHEMA"}' > "$ORCHESTRATE_RESULT_FILE" ;;
          "B first")
            printf 'items:\\n  - {id: A, title: a}\\n  - {id: B, title: b}\\n' > backlog.yaml ;;
          "A second")
            cp "$ORCHESTRATE_PROMPT_FILE" a-second-prompt.md ;;
        esac
        exit 0
        """);
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");

    CliRunner.Result r = CliRunner.run("--state", dir.resolve("state").toString(),
        "--config", config.toString(), "run", "--json", "--max-wip", "1", backlog.toString());

    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals(2, doc.get("items").get("done_this_run").asInt(), r.out());
    String prompt = Files.readString(dir.resolve("a-second-prompt.md"));
    assertTrue(prompt.contains("## Previous Phase Summary"), prompt);
    assertTrue(prompt.contains("A-FIRST-DID-THE-SCHEMA"), prompt);
  }
}
