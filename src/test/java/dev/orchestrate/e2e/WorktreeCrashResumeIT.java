package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the real launcher while an agent is half-way through a phase in its worktree; the
 * next run resets the worktree to the last phase commit before the phase runs again.
 */
class WorktreeCrashResumeIT {
  @TempDir
  Path dir;

  @Test
  void after_kill_9_mid_phase_the_resumed_attempt_starts_from_the_last_phase_commit() throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Path marks = dir.resolve("marks");
    Files.createDirectories(marks);
    // build, first call: edits design.txt, leaves half-built.txt, then hangs until killed.
    // build, second call: must find design.txt as design left it and no half-built.txt.
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        if [ "$ORCHESTRATE_PHASE" = design ]; then echo "the design" > design.txt; echo designed; exit 0; fi
        if [ ! -f "$MARKS/build-started" ]; then
          echo "half-edited" > design.txt; echo half > half-built.txt
          touch "$MARKS/build-started"; sleep 300
        fi
        [ -e half-built.txt ] && { echo "the killed attempt's half-built.txt is still here" >&2; exit 1; }
        [ "$(cat design.txt)" = "the design" ] || { echo "design.txt is not what design committed" >&2; exit 1; }
        echo built > build.txt; echo built
        """);
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          env: {MARKS: "%s"}
        execution: {workspace: worktree, max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
        """.formatted(dir.resolve("agent.sh"), marks));
    repo.write("backlog.yaml", "items:\n  - {id: A, title: a}\n");
    repo.commitAll("backlog");

    Process runner = Launcher.builder(repo.dir, "run").redirectErrorStream(true)
        .redirectOutput(dir.resolve("first-run.txt").toFile()).start();
    assertTrue(Processes.await(Duration.ofSeconds(60), () -> Files.exists(marks.resolve("build-started"))),
        "the first run reached the build phase");
    Processes.crash(runner);
    Path worktree = repo.dir.resolve(".orchestrate/worktrees/A");
    assertTrue(Files.exists(worktree.resolve("half-built.txt")), "the killed attempt left its files behind");

    Launcher.Result second = Launcher.run(repo.dir, "run");
    assertEquals(0, second.exitCode(), second.out() + second.err());
    assertTrue(second.out().contains("1 done"), second.out());
    assertEquals(List.of("A build: built", "A design: designed", "backlog", "init"), repo.subjects("main"));
    assertEquals("the design\n", GitRepo.read(repo.dir.resolve("design.txt")));
    assertEquals("built\n", GitRepo.read(repo.dir.resolve("build.txt")));
    assertFalse(Files.exists(repo.dir.resolve("half-built.txt")));
    assertEquals("", repo.git("status", "--porcelain"), "the user's checkout is clean and up to date");
  }
}
