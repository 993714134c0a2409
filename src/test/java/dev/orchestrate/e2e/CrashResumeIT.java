package dev.orchestrate.e2e;

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
    Path state = dir.resolve("state");
    assertEquals(List.of("interrupted", "completed"), Stored.states(Stored.jobs(state, "A", "build")));
    assertEquals(1, Stored.jobs(state, "A", "design").size());
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
    Path state = dir.resolve("state");
    for (String item : List.of("A", "B")) {
      assertEquals(List.of("interrupted", "completed"), Stored.states(Stored.jobs(state, item, "build")));
      assertEquals(1, Stored.jobs(state, item, "design").size());
    }
  }

  @Test
  void the_next_run_stops_what_the_agents_of_a_killed_run_left_running_before_it_reruns_their_phase()
      throws Exception {
    // The first build call leaves a background child behind and hangs; later calls finish.
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
        if [ ! -f built-once ]; then
          sleep 300 & echo $! > child.pid
          echo $$ > agent.pid
          touch built-once; sleep 300
        fi
        exit 0
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
          kill_grace: 2s
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n");

    Process runner = Launcher.builder(dir, "--state", "state", "run").redirectErrorStream(true)
        .redirectOutput(dir.resolve("first-run.txt").toFile()).start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(dir.resolve("built-once")) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(Files.exists(dir.resolve("built-once")), "the first run reached the build phase");
    runner.toHandle().destroyForcibly(); // SIGKILL: nobody stops the agent
    assertTrue(runner.waitFor(10, TimeUnit.SECONDS));
    long agent = Long.parseLong(Files.readString(dir.resolve("agent.pid")).strip());
    long child = Long.parseLong(Files.readString(dir.resolve("child.pid")).strip());
    try {
      assertTrue(Processes.running(agent), "the killed run's agent runs on");
      assertTrue(Processes.running(child), "and so does its child");

      Launcher.Result second = Launcher.run(dir, "--state", "state", "run");
      assertEquals(0, second.exitCode(), second.err());
      // bash, its foreground sleep and the background child
      assertTrue(second.err().contains("stopped 3 process(es) that agents of an earlier, killed run left"
          + " running"), second.err());
      assertTrue(!Processes.running(agent) && !Processes.running(child), "both were stopped");
      assertEquals(List.of("A build 1", "A build 1"), Files.readAllLines(dir.resolve("calls.txt")));
    } finally {
      ProcessHandle.of(agent).ifPresent(ProcessHandle::destroyForcibly);
      ProcessHandle.of(child).ifPresent(ProcessHandle::destroyForcibly);
    }
  }
}
