package dev.orchestrate.e2e;

import static dev.orchestrate.e2e.ExampleRunIT.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kill -9 of a real runner in the middle of a phase, then a new run. */
class CrashResumeIT {
  @TempDir
  Path dir;

  @Test
  void after_kill_9_the_next_run_reruns_the_interrupted_phase_and_no_completed_one() throws Exception {
    // The agent records each call; "build" hangs on its first call only.
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
        if [ "$ORCHESTRATE_PHASE" = build ] && [ ! -f built-once ]; then touch built-once; sleep 300; fi
        exit 0
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
              - {name: review, instructions: "Review."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");

    Process runner = Launcher.builder(dir, "--state", "state", "run").redirectErrorStream(true)
        .redirectOutput(dir.resolve("first-run.txt").toFile()).start();
    Path marker = dir.resolve("built-once");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(marker) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(Files.exists(marker), "the first run reached the build phase");
    List<ProcessHandle> agents = runner.toHandle().descendants().toList();
    runner.toHandle().destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
    assertTrue(runner.waitFor(10, TimeUnit.SECONDS));
    agents.forEach(ProcessHandle::destroyForcibly); // the orphaned agent, so it cannot interfere

    Launcher.Result second = Launcher.run(dir, "--state", "state", "run");
    assertEquals(0, second.exitCode(), second.err());
    assertTrue(second.out().contains("2 done"), second.out());
    assertTrue(second.out().contains("1 job(s) of an earlier, interrupted run were re-queued"), second.out());

    assertEquals(List.of("A design 1", "A build 1", "A build 1", "A review 1", "B design 1", "B build 1",
        "B review 1"), Files.readAllLines(dir.resolve("calls.txt")));
    Path db = dir.resolve("state/state.db");
    assertEquals(List.of("interrupted", "completed"),
        column(db, "SELECT state FROM jobs WHERE item_id = 'A' AND phase = 'build' ORDER BY id"));
    assertEquals(List.of("1"), column(db, "SELECT count(*) FROM jobs WHERE item_id = 'A' AND phase = 'design'"));
  }

  @Test
  void after_kill_9_with_two_agents_running_both_phases_rerun_and_no_completed_one_repeats() throws Exception {
    // Each item's build hangs on its first call; with max_concurrent 2 both hang at once.
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
        if [ "$ORCHESTRATE_PHASE" = build ] && [ ! -f "built-$ORCHESTRATE_ITEM_ID" ]; then
          touch "built-$ORCHESTRATE_ITEM_ID"; sleep 300
        fi
        exit 0
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
        execution: {max_wip: 2, max_concurrent: 2}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");

    Process runner = Launcher.builder(dir, "--state", "state", "run").redirectErrorStream(true)
        .redirectOutput(dir.resolve("first-run.txt").toFile()).start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!(Files.exists(dir.resolve("built-A")) && Files.exists(dir.resolve("built-B")))
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(Files.exists(dir.resolve("built-B")), "both builds are running");
    List<ProcessHandle> agents = runner.toHandle().descendants().toList();
    runner.toHandle().destroyForcibly();
    assertTrue(runner.waitFor(10, TimeUnit.SECONDS));
    agents.forEach(ProcessHandle::destroyForcibly);

    Launcher.Result second = Launcher.run(dir, "--state", "state", "run");
    assertEquals(0, second.exitCode(), second.err());
    assertTrue(second.out().contains("2 done"), second.out());
    assertTrue(second.out().contains("2 job(s) of an earlier, interrupted run were re-queued"), second.out());
    Path db = dir.resolve("state/state.db");
    for (String item : List.of("A", "B")) {
      assertEquals(List.of("interrupted", "completed"), column(db,
          "SELECT state FROM jobs WHERE item_id = '" + item + "' AND phase = 'build' ORDER BY id"));
      assertEquals(List.of("1"), column(db,
          "SELECT count(*) FROM jobs WHERE item_id = '" + item + "' AND phase = 'design'"));
    }
  }
}
