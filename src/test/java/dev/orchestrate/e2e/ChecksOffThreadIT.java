package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checks command that takes a minute (execution.checks) runs off the scheduler thread: while A's
 * poll sleeps, B's phase runs, is pushed and its checks turn green; Ctrl-C then ends the run within
 * seconds, the sleeping poll's process stopped, A's wait kept (run --json counts it), and the next
 * run polls A again without running its agent.
 */
class ChecksOffThreadIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path marks;

  @AfterEach
  void cleanUp() throws Exception {
    if (marks != null) {
      Processes.killIfRunning(marks.resolve("poll-A.pid"));
    }
  }

  @Test
  void a_slow_checks_poll_holds_up_no_other_item_and_ctrl_c_stops_it_keeping_the_wait() throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Path origin = dir.resolve("origin.git");
    repo.addBareOrigin(origin);
    marks = Files.createDirectories(dir.resolve("marks"));
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        echo run >> "$MARKS/agent-$ORCHESTRATE_ITEM_ID"
        echo "work of $ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID.txt"
        echo done
        """);
    // A: a minute long (unless "fast" exists), its pid kept; B: green at once
    Files.writeString(dir.resolve("checks.sh"), """
        #!/bin/sh
        echo poll >> "%1$s/polls-$1"
        if [ "$1" = A ] && [ ! -e "%1$s/fast" ]; then
          echo $$ > "%1$s/poll-A.pid"
          sleep 60
          echo end >> "%1$s/poll-A-ended"
          exit 75
        fi
        echo passed; exit 0
        """.formatted(marks));
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          env: {MARKS: "%s"}
        execution:
          max_concurrent: 1
          workspace: worktree
          merge: push
          checks: ["sh", "%s", "{item}"]
          checks_interval: 2m
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """.formatted(dir.resolve("agent.sh"), marks, dir.resolve("checks.sh")));
    repo.write("backlog.yaml", "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
    repo.commitAll("backlog");

    Process runner = Launcher.builder(repo.dir, "run", "--json", "--no-live")
        .redirectOutput(dir.resolve("first-run.json").toFile()).redirectError(dir.resolve("first-run.err").toFile())
        .start();
    try {
      assertTrue(Processes.await(Duration.ofSeconds(90), () -> Files.exists(marks.resolve("poll-A.pid"))),
          "A's checks poll started");
      long polling = System.nanoTime();
      // under a minute: B ran its phase, was pushed and polled green while A's poll sleeps
      assertTrue(Processes.await(Duration.ofSeconds(45), () -> Files.exists(marks.resolve("polls-B"))),
          "B's phase and checks went on during A's poll");
      assertFalse(Files.exists(marks.resolve("poll-A-ended")), "A's poll still sleeps");
      assertTrue(System.nanoTime() - polling < TimeUnit.SECONDS.toNanos(55));
      assertTrue(Processes.await(Duration.ofSeconds(20), () -> status(repo).contains("B")
          && statusOf(repo, "B").equals("done")), "B is done");
      assertTrue(runner.isAlive(), "the run waits for A's checks");

      long stop = System.nanoTime();
      Processes.signal(runner, "INT");
      assertTrue(runner.waitFor(15, TimeUnit.SECONDS), "Ctrl-C ends the run within seconds");
      assertTrue(System.nanoTime() - stop < TimeUnit.SECONDS.toNanos(15));
    } finally {
      if (runner.isAlive()) {
        Processes.crash(runner);
      }
    }
    long pollPid = Processes.pid(marks.resolve("poll-A.pid"));
    assertTrue(Processes.await(Duration.ofSeconds(10), () -> {
      try {
        return !Processes.running(pollPid);
      } catch (java.io.IOException e) {
        return false;
      }
    }), "the poll's process was stopped with the run");
    assertFalse(Files.exists(marks.resolve("poll-A-ended")));
    assertEquals("awaiting_checks", statusOf(repo, "A"), "the wait is kept");
    JsonNode report = JSON.readTree(Files.readString(dir.resolve("first-run.json")));
    assertEquals("interrupted", report.get("halt_reason").asText(), report.toString());
    assertEquals(1, report.get("items").get("awaiting_checks").asInt(), report.toString());
    assertEquals("A", report.get("awaiting_checks_ids").get(0).asText(), report.toString());
    assertEquals(1, report.get("items").get("done").asInt(), report.toString());
    assertEquals(0, report.get("items").get("remaining").asInt(), report.toString());

    Files.writeString(marks.resolve("fast"), "");
    Launcher.Result second = Launcher.run(repo.dir, "run", "--no-live");
    assertEquals(0, second.exitCode(), second.out() + second.err());
    assertEquals("done", statusOf(repo, "A"));
    assertEquals("run\n", GitRepo.read(marks.resolve("agent-A")), "A's agent ran once");
    assertEquals("run\n", GitRepo.read(marks.resolve("agent-B")), "B's agent ran once");
    assertEquals(2, Files.readAllLines(marks.resolve("polls-A")).size(), "A polled again: the stopped poll, then one");
  }

  private static String status(GitRepo repo) {
    try {
      return Launcher.run(repo.dir, "status", "--json").out();
    } catch (Exception e) {
      return "";
    }
  }

  private static String statusOf(GitRepo repo, String id) {
    try {
      for (JsonNode item : JSON.readTree(status(repo)).get("items")) {
        if (item.get("id").asText().equals(id)) {
          return item.get("status").asText();
        }
      }
    } catch (Exception e) {
      return "";
    }
    return "";
  }
}
