package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.limits.LoopThread;
import dev.orchestrate.testing.SemanticConflicts;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The merge queue end to end, in-process, with real git, a real gate and a script agent: pairs of
 * items that are each green alone and red together (one makes {@code base()} return 10, the other
 * adds {@code double() = base() * 2} with a test expecting 2) run side by side from the same base.
 * Whichever of a pair lands second is red on the base as it then is, goes back to its phase with the
 * gate's report, and its agent, seeing the report, fixes it. Every commit on {@code main} is green.
 */
class MergeQueueRunCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path tmp;

  private ProjectCli project;
  private GitRepo repo;

  private void write(int pairs, int maxConcurrent, int batch) throws Exception {
    project = ProjectCli.init(tmp.resolve("project"));
    repo = project.repo;
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, SemanticConflicts.agent(0.2));
    SemanticConflicts.write(repo, pairs, 0);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
          env: {LOG: "%s"}
        execution:
          max_wip: %d
          max_concurrent: %d
          max_retries: 1
          workspace: worktree
          integration_batch: %d
        default_pipeline: one
        pipelines:
          one:
            verify: [{name: tests, run: "sh check.sh"}]
            phases:
              - name: build
                instructions: "Build it."
        """.formatted(agent, tmp.resolve("agents.log"), 2 * pairs, maxConcurrent, batch));
    repo.commitAll("the project");
  }

  private CliRunner.Result cli(String... args) {
    return project.cli(args);
  }

  @ParameterizedTest(name = "{0} conflicting pair(s), {1} agents at once, batches of {2}")
  @CsvSource({"1, 2, 1", "4, 4, 1", "4, 4, 4"})
  void every_commit_on_main_passes_the_gate_and_the_second_of_each_pair_is_sent_back_and_fixed(int pairs,
      int maxConcurrent, int batch) throws Exception {
    write(pairs, maxConcurrent, batch);
    String start = repo.head("main");

    long onLoop = LoopThread.slowWorkOnLoop();
    CliRunner.Result run = project.run();

    String log = Files.readString(tmp.resolve("agents.log"));
    assertEquals(0, run.exitCode(), run.err() + "\n" + log);
    // issue 46: the worktrees' git, the landing's and the push's ran off the scheduler thread
    assertEquals(0, LoopThread.slowWorkOnLoop() - onLoop, "git on the scheduler thread, the first: "
        + LoopThread.firstSlowWorkOnLoop());
    JsonNode report = JSON.readTree(run.out());
    assertEquals(2 * pairs, report.at("/items/done").asInt(), run.out() + "\n" + log);
    assertEquals(0, report.at("/items/landing").asInt(), run.out());
    for (String commit : repo.git("rev-list", start + "..main").lines().toList()) {
      assertTrue(SemanticConflicts.green(repo, commit, tmp),
          "commit " + commit + " on main is green: " + repo.git("log", "--oneline", "main"));
    }
    for (int k = 1; k <= pairs; k++) {
      assertTrue(log.contains("A" + k + " saw the report") ^ log.contains("B" + k + " saw the report"),
          "exactly one of pair " + k + " was sent back with the gate's report, and fixed it: " + log);
      assertTrue(GitRepo.read(repo.dir.resolve("double" + k + ".txt")).startsWith("fixed"));
      assertEquals("10", GitRepo.read(repo.dir.resolve("base" + k + ".txt")).strip());
    }
    String sentBack = log.contains("A1 saw the report") ? "A1" : "B1";
    JsonNode landings = JSON.readTree(cli("status", sentBack, "--json").out()).at("/landings");
    assertEquals("integrated", landings.at("/0/result").asText(), landings.toString());
    assertEquals("integration_failed", landings.at("/1/result").asText(), landings.toString());
    assertEquals(1, landings.at("/1/round").asInt(), landings.toString());
    assertEquals(40, landings.at("/1/tested_commit").asText().length(), "what the gates ran on: " + landings);
    assertTrue(landings.at("/1/gates").asText().startsWith("tests exited 1"), landings.toString());
    CliRunner.Result status = cli("status", "--json");
    assertEquals(0, status.exitCode(), status.err());
    for (JsonNode item : JSON.readTree(status.out()).at("/items")) {
      assertEquals("done", item.at("/status").asText(), status.out());
    }
  }
}
