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

/** Ctrl-C (SIGINT) and SIGTERM of a real runner while an agent works. */
class InterruptIT {
  @TempDir
  Path dir;

  private Process startRunner() throws Exception {
    return startRunner(false);
  }

  private Process startRunner(boolean interruptIgnored) throws Exception {
    // The agent starts a grandchild and ignores TERM itself, like a stubborn agent CLI.
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        trap '' TERM
        sleep 300 &
        echo $! > grandchild.pid
        echo $$ > agent.pid
        while true; do sleep 1; done
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
          kill_grace: 1s
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a, status: ready}\n");
    String[] run = {"--state", "state", "run"};
    Process runner = (interruptIgnored ? Launcher.builderWithInterruptIgnored(dir, run) : Launcher.builder(dir, run))
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!(Files.exists(dir.resolve("agent.pid")) && Files.exists(dir.resolve("grandchild.pid")))
        && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    Thread.sleep(200);
    return runner;
  }

  private void assertCancelledAndCleanedUp(Process runner) throws Exception {
    assertTrue(runner.waitFor(30, TimeUnit.SECONDS), "the runner exits after cancelling its agent");
    assertEquals(130, runner.exitValue(), Files.readString(dir.resolve("err.txt")));
    for (String pidFile : List.of("agent.pid", "grandchild.pid")) {
      long pid = Long.parseLong(Files.readString(dir.resolve(pidFile)).strip());
      assertFalse(Processes.running(pid), pidFile + " is gone");
    }
    assertTrue(Files.readString(dir.resolve("out.txt")).contains("stopped: interrupted"));
    Path state = dir.resolve("state");
    assertEquals(List.of("cancelled"), Stored.states(Stored.jobs(state)));
    assertEquals(List.of("in_progress|build|0"), Stored.progress(state));
  }

  @Test
  void ctrl_c_cancels_the_agent_tree_records_the_job_as_cancelled_and_exits_130() throws Exception {
    Process runner = startRunner();
    new ProcessBuilder("kill", "-INT", Long.toString(runner.pid())).start().waitFor();
    assertCancelledAndCleanedUp(runner);
  }

  @Test
  void a_run_started_with_sigint_ignored_says_so_and_stops_on_sigterm() throws Exception {
    // as a script's background job (or nohup from one) starts it: the JVM cannot handle an
    // ignored SIGINT, so the run names the signal that works
    Process runner = startRunner(true);
    String err = Files.readString(dir.resolve("err.txt"));
    assertTrue(err.contains("Ctrl-C (SIGINT) is ignored by this run, as it was when it started")
        && err.contains("stop it with SIGTERM: kill " + runner.pid()), err);
    Processes.signal(runner, "INT");
    assertFalse(runner.waitFor(3, TimeUnit.SECONDS), "the ignored SIGINT stops nothing");
    runner.destroy(); // SIGTERM
    assertCancelledAndCleanedUp(runner);
  }

  @Test
  void a_run_started_from_a_terminal_has_no_such_line() throws Exception {
    Process runner = startRunner();
    runner.destroy();
    assertCancelledAndCleanedUp(runner);
    assertFalse(Files.readString(dir.resolve("err.txt")).contains("SIGINT"), Files.readString(dir.resolve("err.txt")));
  }

  @Test
  void sigterm_is_handled_like_ctrl_c() throws Exception {
    Process runner = startRunner();
    runner.destroy(); // SIGTERM
    assertCancelledAndCleanedUp(runner);
  }

  @Test
  void ctrl_c_with_two_agents_running_cancels_both_trees_and_records_both_jobs_as_cancelled() throws Exception {
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        trap '' TERM
        sleep 300 &
        echo $! > "grandchild-$ORCHESTRATE_ITEM_ID.pid"
        echo $$ > "agent-$ORCHESTRATE_ITEM_ID.pid"
        while true; do sleep 1; done
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
          kill_grace: 1s
        execution: {max_wip: 2, max_concurrent: 2}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: build, instructions: "Build."}
        """);
    Files.writeString(dir.resolve("backlog.yaml"),
        "items:\n  - {id: A, title: a, status: ready}\n  - {id: B, title: b, status: ready}\n");
    Process runner = Launcher.builder(dir, "--state", "state", "run")
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    List<String> pidFiles = List.of("agent-A.pid", "grandchild-A.pid", "agent-B.pid", "grandchild-B.pid");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!pidFiles.stream().allMatch(f -> Files.exists(dir.resolve(f))) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    Thread.sleep(200);
    new ProcessBuilder("kill", "-INT", Long.toString(runner.pid())).start().waitFor();

    assertTrue(runner.waitFor(30, TimeUnit.SECONDS), "the runner exits after cancelling its agents");
    assertEquals(130, runner.exitValue(), Files.readString(dir.resolve("err.txt")));
    for (String pidFile : pidFiles) {
      long pid = Long.parseLong(Files.readString(dir.resolve(pidFile)).strip());
      assertFalse(Processes.running(pid), pidFile + " is gone");
    }
    Path state = dir.resolve("state");
    assertEquals(List.of("cancelled", "cancelled"), Stored.states(Stored.jobs(state)));
    assertEquals(List.of("in_progress|build|0", "in_progress|build|0"), Stored.progress(state));
  }
}
