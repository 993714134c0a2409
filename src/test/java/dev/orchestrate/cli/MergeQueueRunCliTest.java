package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

  /**
   * Item {@code A<k>} writes 10 into {@code base<k>.txt}; item {@code B<k>} writes
   * {@code double<k>.txt}. An agent whose prompt holds the gate's report of pair k (it landed second)
   * also writes {@code fixed} into {@code double<k>.txt}, the fix the test expects.
   */
  private static final String AGENT = """
      #!/usr/bin/env bash
      set -u
      id=$ORCHESTRATE_ITEM_ID; k=${id#?}
      echo "$id $ORCHESTRATE_ATTEMPT" >> "$LOG"
      case "$id" in
        A*) echo 10 > "base$k.txt";;
        B*) [ -f "double$k.txt" ] || echo 'base() * 2' > "double$k.txt";;
      esac
      if grep -q "AssertionError (pair $k)" "$ORCHESTRATE_PROMPT_FILE"; then
        echo "$id saw the report" >> "$LOG"
        echo 'fixed: base() * 2 == 2 * base()' > "double$k.txt"
      fi
      sleep 0.2
      echo "$id built"
      """;

  /** Red when, for some pair, base is 5 or more and double exists without the fix. */
  private static final String CHECK = """
      #!/bin/sh
      for b in base*.txt; do
        k=${b#base}; k=${k%.txt}
        if [ "$(cat "$b")" -ge 5 ] && [ -f "double$k.txt" ] && ! grep -q fixed "double$k.txt"; then
          echo "AssertionError (pair $k): 20 != 2"; exit 1
        fi
      done
      echo ok
      """;

  private GitRepo repo;
  private Path state;

  private void project(int pairs, int maxConcurrent) throws Exception {
    repo = GitRepo.init(tmp.resolve("project"));
    state = repo.dir.resolve(".orchestrate");
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, AGENT);
    repo.write("check.sh", CHECK);
    StringBuilder backlog = new StringBuilder("schema_version: 1\nitems:\n");
    for (int k = 1; k <= pairs; k++) {
      repo.write("base" + k + ".txt", "1\n");
      backlog.append("  - {id: A").append(k).append(", title: base returns 10}\n");
      backlog.append("  - {id: B").append(k).append(", title: add double}\n");
    }
    repo.write("backlog.yaml", backlog.toString());
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
        default_pipeline: one
        pipelines:
          one:
            verify: [{name: tests, run: "sh check.sh"}]
            phases:
              - name: build
                instructions: "Build it."
        """.formatted(agent, tmp.resolve("agents.log"), 2 * pairs, maxConcurrent));
    repo.commitAll("the project");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", state.toString(), "--config",
        repo.dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(Map.of(), all.toArray(String[]::new));
  }

  /** Runs check.sh on a commit, checked out on its own. */
  private boolean green(String commit) throws Exception {
    Path dir = tmp.resolve("check-" + commit);
    repo.git("worktree", "add", "--quiet", "--detach", dir.toString(), commit);
    try {
      Process p = new ProcessBuilder("sh", "check.sh").directory(dir.toFile()).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));
      return p.exitValue() == 0;
    } finally {
      repo.git("worktree", "remove", "--force", dir.toString());
    }
  }

  @ParameterizedTest(name = "{0} conflicting pair(s), {1} agents at once")
  @CsvSource({"1, 2", "4, 4"})
  void every_commit_on_main_passes_the_gate_and_the_second_of_each_pair_is_sent_back_and_fixed(int pairs,
      int maxConcurrent) throws Exception {
    project(pairs, maxConcurrent);
    String start = repo.head("main");

    CliRunner.Result run = cli("run", repo.dir.resolve("backlog.yaml").toString(), "--json");

    String log = Files.readString(tmp.resolve("agents.log"));
    assertEquals(0, run.exitCode(), run.err() + "\n" + log);
    JsonNode report = JSON.readTree(run.out());
    assertEquals(2 * pairs, report.at("/items/done").asInt(), run.out() + "\n" + log);
    assertEquals(0, report.at("/items/landing").asInt(), run.out());
    for (String commit : repo.git("rev-list", start + "..main").lines().toList()) {
      assertTrue(green(commit), "commit " + commit + " on main is green: " + repo.git("log", "--oneline", "main"));
    }
    for (int k = 1; k <= pairs; k++) {
      assertTrue(log.contains("A" + k + " saw the report") ^ log.contains("B" + k + " saw the report"),
          "exactly one of pair " + k + " was sent back with the gate's report, and fixed it: " + log);
      assertTrue(GitRepo.read(repo.dir.resolve("double" + k + ".txt")).startsWith("fixed"));
      assertEquals("10", GitRepo.read(repo.dir.resolve("base" + k + ".txt")).strip());
    }
    CliRunner.Result status = cli("status", "--json");
    assertEquals(0, status.exitCode(), status.err());
    for (JsonNode item : JSON.readTree(status.out()).at("/items")) {
      assertEquals("done", item.at("/status").asText(), status.out());
    }
  }
}
