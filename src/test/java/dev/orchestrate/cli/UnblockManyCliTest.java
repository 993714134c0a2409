package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code unblock A B --notes TEXT}: several ids at once, all or nothing. */
class UnblockManyCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /** Every item as {@code id:status}, in backlog order. */
  private List<String> statuses() {
    return TestStores.read(dir.resolve("state"),
        store -> store.items().items().stream().map(i -> i.id() + ":" + i.status().key()).toList());
  }

  /** A and B block in their first phase (until unblocked with notes); C completes. */
  @BeforeEach
  void aAndBBlockedCDone() throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        if [ "$ORCHESTRATE_ITEM_ID" != C ] && ! grep -q '^## Unblock Context' "$ORCHESTRATE_PROMPT_FILE"; then
          printf '{"result": "blocked", "context": "needs a key"}' > "$ORCHESTRATE_RESULT_FILE"
        fi
        exit 0
        """);
    Path config = TwoPhaseProject.config(dir, agent);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n  - {id: C, title: c}\n");
    CliRunner.Result run = cli("--config", config.toString(), "--quiet", "run", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    assertEquals(List.of("A:blocked", "B:blocked", "C:done"), statuses());
  }

  @Test
  void unblock_of_two_blocked_items_unblocks_both() throws Exception {
    CliRunner.Result r = cli("unblock", "A", "B", "--notes", "the key is in the vault", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode items = JSON.readTree(r.out()).get("items");
    assertEquals(2, items.size());
    assertEquals("A", items.get(0).get("id").asText());
    assertEquals("in_progress", items.get(1).get("status").asText());
    assertEquals(List.of("A:in_progress", "B:in_progress", "C:done"), statuses());
  }

  @Test
  void one_unknown_or_not_blocked_id_refuses_them_all_with_exit_2_and_changes_nothing() throws Exception {
    CliRunner.Result r = cli("unblock", "A", "Z", "C", "B", "--notes", "the key is in the vault");
    assertEquals(2, r.exitCode());
    assertEquals("", r.out());
    assertEquals(List.of("orchestrate: error: unknown item 'Z'; item C is done, not blocked; only blocked items can "
        + "be unblocked (nothing was unblocked)"), r.err().lines().toList());
    assertEquals(List.of("A:blocked", "B:blocked", "C:done"), statuses());
  }

  @Test
  void text_output_names_every_unblocked_item() {
    CliRunner.Result r = cli("unblock", "B", "A", "--notes", "the key is in the vault");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("Unblocked B: in_progress at phase first", "Unblocked A: in_progress at phase first",
        "The notes go into each one's next prompt. Continue with: orchestrate run"), r.out().lines().toList());
  }
}
