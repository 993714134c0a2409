package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.SemanticConflicts;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the real launcher at random moments while the merge queue lands pairs of items that
 * are green alone and red together (MergeQueueRunCliTest's project, with a slower gate, so that
 * kills fall inside gate runs and landings). Each next run resumes the queue; in the end every
 * item is done, every commit on main passes the gate, and no phase commit landed twice.
 */
class MergeQueueCrashIT {
  @TempDir
  Path dir;

  /** What each killed run printed, up to 5 of them. */
  private static String runs(java.util.function.IntFunction<Path> output) throws java.io.IOException {
    StringBuilder out = new StringBuilder();
    for (int round = 0; round < 5; round++) {
      Path file = output.apply(round);
      if (Files.exists(file)) {
        out.append("-- run ").append(round).append(":\n").append(Files.readString(file));
      }
    }
    return out.toString();
  }

  @Test
  void kills_during_landing_land_nothing_twice_and_nothing_ungated_and_the_queue_resumes() throws Exception {
    long seed = Long.getLong("crash.seed", System.nanoTime());
    System.out.println("MergeQueueCrashIT seed " + seed + " (rerun with -Dcrash.seed=" + seed + ")");
    Random random = new Random(seed);
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Files.writeString(dir.resolve("agent.sh"), SemanticConflicts.agent(0.3));
    int pairs = 3;
    SemanticConflicts.write(repo, pairs, 0.4); // a slower gate: kills fall inside gate runs and landings
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution: {workspace: worktree, max_retries: 1, max_wip: 6, max_concurrent: 3}
        default_pipeline: p
        pipelines:
          p:
            verify: [{name: tests, run: "sh check.sh"}]
            integration_max_rounds: 5
            phases:
              - {name: build, instructions: "Build."}
        """.formatted(dir.resolve("agent.sh")));
    repo.commitAll("the project");
    String start = repo.head("main");

    int kills = 0;
    for (int round = 0; round < 5; round++) {
      Process runner = Launcher.builder(repo.dir, "run").redirectErrorStream(true)
          .redirectOutput(dir.resolve("run-" + round + ".txt").toFile()).start();
      long wait = 800 + random.nextInt(2500);
      if (runner.waitFor(wait, TimeUnit.MILLISECONDS)) {
        break; // finished before its kill
      }
      Processes.crash(runner);
      kills++;
    }
    assertTrue(kills > 0, "seed " + seed + ": no run was killed; the test proves nothing then");
    // a git killed in the user's checkout (the fast-forward that lands an item) leaves its lock,
    // which orchestrate never deletes: the run names it, and the person deletes it
    for (Path lock : List.of(repo.dir.resolve(".git/index.lock"), repo.dir.resolve(".git/HEAD.lock"),
        repo.dir.resolve(".git/refs/heads/main.lock"))) {
      if (Files.exists(lock)) {
        Launcher.Result held = Launcher.run(repo.dir, "run");
        assertTrue(held.err().contains("git's lock file " + lock + " exists"), "seed " + seed + ": " + held.err());
        Files.delete(lock);
      }
    }
    Launcher.Result last = Launcher.run(repo.dir, "run");
    assertEquals(0, last.exitCode(), "seed " + seed + ": " + last.out() + last.err());
    if (!last.out().contains(2 * pairs + " done")) {
      // why each item is where it is, for the failure's message
      org.junit.jupiter.api.Assertions.fail("seed " + seed + ": " + last.out() + "\n"
          + Launcher.run(repo.dir, "status", "--json").out() + "\nthe runs said:\n" + runs(round -> dir.resolve(
              "run-" + round + ".txt")));
    }

    List<String> landed = repo.git("rev-list", start + "..main").lines().toList();
    for (String commit : landed) {
      assertTrue(SemanticConflicts.green(repo, commit, dir),
          "seed " + seed + ": commit " + commit + " on main is green: "
              + repo.git("log", "--oneline", "main"));
    }
    Set<String> jobs = new HashSet<>();
    for (String trailer : repo.git("log", "--format=%(trailers:key=Orchestrate-Job,valueonly)", start + "..main")
        .lines().filter(l -> !l.isBlank()).toList()) {
      assertTrue(jobs.add(trailer.strip()), "seed " + seed + ": job " + trailer + "'s phase commit landed twice: "
          + repo.git("log", "--oneline", "main"));
    }
    for (int k = 1; k <= pairs; k++) {
      assertEquals("10", GitRepo.read(repo.dir.resolve("base" + k + ".txt")).strip(), "seed " + seed);
      assertTrue(GitRepo.read(repo.dir.resolve("double" + k + ".txt")).startsWith("fixed"), "seed " + seed);
    }
  }
}
