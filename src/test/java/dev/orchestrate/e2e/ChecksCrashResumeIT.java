package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the real launcher while two pushed items await their checks (execution.checks); the
 * next run runs no agent again: the persisted waits resume, and the items end done once the checks
 * turn green.
 */
class ChecksCrashResumeIT {
  @TempDir
  Path dir;

  @Test
  void after_kill_9_while_items_await_checks_nothing_reruns_and_the_waits_resume() throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Path origin = dir.resolve("origin.git");
    repo.addBareOrigin(origin);
    Path marks = dir.resolve("marks");
    Files.createDirectories(marks);
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        echo run >> "$MARKS/agent-$ORCHESTRATE_ITEM_ID"
        echo "work of $ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID.txt"
        echo done
        """);
    // pending until the test creates "green"; each poll leaves a mark
    Files.writeString(dir.resolve("checks.sh"), """
        #!/bin/sh
        echo poll >> "%1$s/polls-$1"
        [ -e "%1$s/green" ] && { echo passed; exit 0; }
        echo "still running"; exit 75
        """.formatted(marks));
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          env: {MARKS: "%s"}
        execution:
          workspace: worktree
          merge: push
          checks: ["sh", "%s", "{item}"]
          checks_interval: 1s
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """.formatted(dir.resolve("agent.sh"), marks, dir.resolve("checks.sh")));
    repo.write("backlog.yaml", "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
    repo.commitAll("backlog");

    Process runner = Launcher.builder(repo.dir, "run").redirectErrorStream(true)
        .redirectOutput(dir.resolve("first-run.txt").toFile()).start();
    assertTrue(Processes.await(Duration.ofSeconds(90), () -> polls(marks, "A") >= 2 && polls(marks, "B") >= 2),
        "both items await their checks, polled");
    assertTrue(runner.isAlive(), "the run waits for the checks");
    Processes.crash(runner);

    Launcher.Result status = Launcher.run(repo.dir, "status");
    assertTrue(status.out().contains("awaiting_checks"), status.out());
    assertTrue(status.out().contains("awaiting checks (round 1, next poll "), status.out());
    Launcher.Result detail = Launcher.run(repo.dir, "status", "A");
    assertTrue(detail.out().contains("; awaiting checks (round 1, next poll "), detail.out());
    Launcher.Result json = Launcher.run(repo.dir, "status", "--json");
    assertTrue(json.out().contains("\"next_poll\" : \"20"), json.out());

    Files.writeString(marks.resolve("green"), "");
    Launcher.Result second = Launcher.run(repo.dir, "run");
    assertEquals(0, second.exitCode(), second.out() + second.err());
    assertEquals("run\n", GitRepo.read(marks.resolve("agent-A")), "A's agent ran once");
    assertEquals("run\n", GitRepo.read(marks.resolve("agent-B")), "B's agent ran once");
    String remote = repo.git("ls-remote", origin.toString());
    for (String id : new String[] {"A", "B"}) {
      assertTrue(remote.contains(repo.head("orchestrate/" + id) + "\trefs/heads/orchestrate/" + id), remote);
    }
    Launcher.Result after = Launcher.run(repo.dir, "status");
    assertTrue(!after.out().contains("awaiting_checks") && after.out().contains("done"), after.out());
  }

  /**
   * kill -9 while the item awaits its checks; the next run's poll says red: the item goes back to its
   * phase and the agent continues the session of the attempt that was pushed (kept with the
   * workspace, not only in the killed run's memory), then green makes it done.
   */
  @Test
  void after_kill_9_a_red_check_continues_the_agent_session_of_the_pushed_phase() throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Path origin = dir.resolve("origin.git");
    repo.addBareOrigin(origin);
    Path marks = Files.createDirectories(dir.resolve("marks"));
    // a stand-in for Claude Code: its argv kept, a session of its own unless it resumes one
    Files.writeString(dir.resolve("claude.sh"), """
        #!/usr/bin/env bash
        n=$(( $(cat "$MARKS/calls" 2>/dev/null || echo 0) + 1 )); echo $n > "$MARKS/calls"
        printf '%s\\n' "$@" > "$MARKS/argv-$n"
        cat > /dev/null
        sid="sess-$n"
        for ((i=1;i<=$#;i++)); do if [ "${!i}" = --resume ]; then j=$((i+1)); sid="${!j}"; fi; done
        echo '{"type":"system","subtype":"init","session_id":"'$sid'"}'
        echo "attempt $n" >> work.txt
        echo '{"type":"result","subtype":"success","is_error":false,"result":"did it","session_id":"'$sid'"}'
        """);
    // pending; once "red" exists, red once (then green)
    Files.writeString(dir.resolve("checks.sh"), """
        #!/bin/sh
        echo poll >> "%1$s/polls-$1"
        [ -e "%1$s/green" ] && { echo passed; exit 0; }
        [ -e "%1$s/red" ] && { rm "%1$s/red"; touch "%1$s/green"; echo "FAILED test_login"; exit 1; }
        echo "still running"; exit 75
        """.formatted(marks));
    repo.write("orchestrate.yaml", """
        agent:
          preset: claude
          command: ["bash", "%s"]
          env: {MARKS: "%s"}
          resume: true
        execution:
          workspace: worktree
          merge: push
          checks: ["sh", "%s", "{item}"]
          checks_interval: 1s
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """.formatted(dir.resolve("claude.sh"), marks, dir.resolve("checks.sh")));
    repo.write("backlog.yaml", "items:\n  - {id: A, title: a}\n");
    repo.commitAll("backlog");

    Process runner = Launcher.builder(repo.dir, "run").redirectErrorStream(true)
        .redirectOutput(dir.resolve("first-run.txt").toFile()).start();
    assertTrue(Processes.await(Duration.ofSeconds(90), () -> polls(marks, "A") >= 1), "A awaits its checks");
    Processes.crash(runner);
    assertEquals("1\n", GitRepo.read(marks.resolve("calls")));

    Files.writeString(marks.resolve("red"), "");
    Launcher.Result second = Launcher.run(repo.dir, "run");
    assertEquals(0, second.exitCode(), second.out() + second.err());
    assertEquals("2\n", GitRepo.read(marks.resolve("calls")), "one attempt after the red report");
    String argv = GitRepo.read(marks.resolve("argv-2"));
    assertTrue(argv.contains("--resume\nsess-1\n"), "the pushed attempt's session continues: " + argv);
    assertTrue(GitRepo.read(marks.resolve("argv-1")).indexOf("--resume") < 0);
    Launcher.Result after = Launcher.run(repo.dir, "status");
    assertTrue(!after.out().contains("awaiting_checks") && after.out().contains("done"), after.out());
    assertTrue(repo.git("show", "orchestrate/A:work.txt").contains("attempt 2"), "the fix was pushed");
  }

  private static int polls(Path marks, String id) {
    try {
      Path file = marks.resolve("polls-" + id);
      return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
