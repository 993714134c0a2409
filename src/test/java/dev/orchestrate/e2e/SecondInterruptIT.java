package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A second Ctrl-C while a stubborn agent sits out its grace period: the operator wants out now. */
class SecondInterruptIT {
  /** Far longer than the test may take: only the second Ctrl-C can end the agent in time. */
  private static final Duration KILL_GRACE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  @Test
  void a_second_ctrl_c_kills_the_agent_tree_at_once_instead_of_waiting_out_the_grace_period() throws Exception {
    // "design" completes; "build" ignores TERM and leaves a grandchild that ignores it too.
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        [ "$ORCHESTRATE_PHASE" = design ] && exit 0
        trap '' TERM
        sleep 300 &
        echo $! > grandchild.tmp && mv grandchild.tmp grandchild.pid
        echo $$ > agent.tmp && mv agent.tmp agent.pid
        while true; do sleep 0.1; done
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
          kill_grace: %ds
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
        """.formatted(KILL_GRACE.toSeconds()));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a, status: ready}\n");
    Path agentPid = dir.resolve("agent.pid");
    Path grandchildPid = dir.resolve("grandchild.pid");
    Process runner = Launcher.builder(dir, "--state", "state", "run")
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    try {
      assertTrue(Processes.await(Duration.ofSeconds(60),
          () -> Files.exists(agentPid) && Files.exists(grandchildPid)), "the build agent started");
      Path state = dir.resolve("state");
      List<String> itemBefore = Stored.progress(state);
      assertEquals(List.of("in_progress|build|0"), itemBefore);

      Processes.signal(runner, "INT");
      // The first Ctrl-C sent TERM, which the agent ignores: the runner waits for the grace period.
      assertFalse(runner.waitFor(1, TimeUnit.SECONDS), "the first Ctrl-C waits for the agent to clean up");
      assertTrue(Processes.running(Processes.pid(agentPid)), "the agent ignored TERM");

      long secondAt = System.nanoTime();
      Processes.signal(runner, "INT");
      assertTrue(runner.waitFor(20, TimeUnit.SECONDS),
          "the runner exits soon after the second Ctrl-C, not after kill_grace " + KILL_GRACE);
      Duration toExit = Duration.ofNanos(System.nanoTime() - secondAt);
      assertTrue(toExit.compareTo(KILL_GRACE.dividedBy(4)) < 0, "exited " + toExit + " after the second Ctrl-C");
      assertEquals(130, runner.exitValue(), Files.readString(dir.resolve("err.txt")));
      assertFalse(Processes.running(Processes.pid(agentPid)), "the agent is gone");
      assertFalse(Processes.running(Processes.pid(grandchildPid)), "the grandchild is gone");
      assertTrue(Files.readString(dir.resolve("out.txt")).contains("stopped: interrupted"));

      assertEquals(List.of("design|completed", "build|cancelled"),
          Stored.jobs(state).stream().map(j -> j.phase() + "|" + j.state().key()).toList());
      assertEquals(itemBefore, Stored.progress(state), "the item stays where it was");
    } finally {
      runner.destroyForcibly();
      Processes.killIfRunning(agentPid);
      Processes.killIfRunning(grandchildPid);
    }
  }
}
