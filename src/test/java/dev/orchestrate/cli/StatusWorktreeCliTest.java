package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code status ID} and {@code jobs} say of items in worktrees, with real git: the branch, the
 * commit and the integration of the item, the commits that landed on the base branch (a rebase
 * copies phase commits under new ids), and an item whose agent changed nothing.
 */
class StatusWorktreeCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private GitRepo repo;
  private Path state;

  /**
   * A and B work at once (each waits until the other's first phase started), so the second to
   * finish is rebased onto the first; N writes nothing.
   */
  @BeforeEach
  void run() throws Exception {
    repo = GitRepo.init(tmp.resolve("project"));
    state = repo.dir.resolve(".orchestrate");
    Path barrier = Files.createDirectories(tmp.resolve("barrier"));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        id=$ORCHESTRATE_ITEM_ID; phase=$ORCHESTRATE_PHASE
        [ "$id" = N ] && { echo "nothing to change"; exit 0; }
        touch '%1$s'/$id-$phase
        for i in $(seq 1 100); do [ "$(ls '%1$s' | grep -c -- "-$phase")" -ge 2 ] && break; sleep 0.1; done
        echo "$phase by $id" > "item-$id-$phase.txt"
        echo "wrote item-$id-$phase.txt"
        """.formatted(barrier));
    repo.write("backlog.yaml", """
        items:
          - {id: A, title: Item A}
          - {id: B, title: Item B}
          - {id: N, title: Item N, depends_on: [A, B]}
        """);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution:
          max_wip: 2
          max_concurrent: 2
          workspace: worktree
        default_pipeline: two
        pipelines:
          two:
            phases:
              - name: first
                instructions: "Do the first thing."
              - name: second
                instructions: "Do the second thing."
        """.formatted(agent));
    repo.commitAll("backlog and config");
    CliRunner.Result run = cli("--quiet", "run", repo.dir.resolve("backlog.yaml").toString());
    assertEquals(0, run.exitCode(), run.err());
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state.toString(), "--config",
        repo.dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(Map.of(), all.toArray(String[]::new));
  }

  @Test
  void jobs_show_the_commits_that_landed_on_the_base_branch_after_a_rebase() throws Exception {
    JsonNode jobs = JSON.readTree(cli("jobs", "--json").out()).get("jobs");
    int rebased = 0;
    int committed = 0;
    for (JsonNode job : jobs) {
      if (job.get("commit").isNull()) {
        assertTrue(job.get("landed_commit").isNull(), job.toString());
        continue;
      }
      committed++;
      String landed = job.get("landed_commit").asText();
      assertEquals("", repo.git("merge-base", "--is-ancestor", landed, "main").strip(), "main holds " + landed);
      assertTrue(repo.git("log", "-1", "--format=%b", landed).contains("Orchestrate-Job: " + job.get("id").asText()),
          "the landed commit is this job's: " + job);
      if (!landed.equals(job.get("commit").asText())) {
        rebased++;
      }
    }
    assertEquals(4, committed, jobs.toString());
    assertEquals(2, rebased, "the item integrated second was rebased: " + jobs);
    // The text shows the landed commits, which main holds.
    List<String> shown = cli("jobs").out().lines().filter(l -> l.matches("\\d+ +[AB] .*")).toList();
    assertEquals(4, shown.size(), shown.toString());
    for (String line : shown) {
      String commit = line.replaceAll(".* ([0-9a-f]{12})$", "$1");
      assertEquals("", repo.git("merge-base", "--is-ancestor", commit, "main").strip(), line);
    }
  }

  @Test
  void status_id_shows_the_branch_commit_integration_tokens_and_the_jobs_as_jobs_does() throws Exception {
    JsonNode doc = JSON.readTree(cli("status", "A", "--json").out());
    JsonNode item = doc.get("item");
    assertEquals("orchestrate/A", item.at("/workspace/branch").asText(), item.toString());
    assertEquals("main", item.at("/workspace/base_branch").asText());
    assertEquals("integrated", item.at("/workspace/integration").asText());
    assertTrue(item.at("/workspace/commit").isTextual(), item.toString());
    assertTrue(item.get("usage").has("total_tokens"), item.toString());
    assertTrue(item.get("usage").has("cost_usd"), item.toString());
    // Each job row has the keys of jobs --json, in its order.
    JsonNode all = JSON.readTree(cli("jobs", "--json").out()).get("jobs");
    JsonNode job = doc.get("jobs").get(0);
    List<String> keys = new ArrayList<>();
    job.fieldNames().forEachRemaining(keys::add);
    List<String> jobsKeys = new ArrayList<>();
    all.get(0).fieldNames().forEachRemaining(jobsKeys::add);
    assertEquals(jobsKeys, keys);
    assertTrue(job.get("commit").isTextual(), job.toString());
    assertTrue(job.get("landed_commit").isTextual(), job.toString());

    String text = cli("status", "A").out();
    String head = item.at("/workspace/commit").asText().substring(0, 12);
    assertTrue(text.lines().anyMatch(l -> l.startsWith("branch:        orchestrate/A from main @ " + head
        + ", integrated into main")), text);
    assertTrue(text.lines().anyMatch(l -> l.matches("JOB +PHASE .* TOKENS +COST +LOG +COMMIT")), text);
  }

  @Test
  void an_item_that_made_no_commit_says_so_in_words() throws Exception {
    String table = cli("status").out();
    assertTrue(table.contains("[orchestrate/N: no changes, nothing to integrate]"), table);
    assertFalse(table.contains("no commit yet, integrated"), table);
    String item = cli("status", "N").out();
    assertTrue(item.contains("branch:        orchestrate/N from main: no changes, nothing to integrate"), item);
    assertNotEquals("", repo.git("rev-parse", "main").strip());
  }
}
