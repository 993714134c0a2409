package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.testing.TestStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a real runner at many different moments of the same backlog (start-up, an agent
 * starting, running, finishing, its result being recorded), then a run to the end: the state
 * stays consistent through every crash.
 */
@Tag("crash-loop")
class CrashLoopIT {
  private static final List<String> ITEMS = List.of("I1", "I2", "I3", "I4", "I5", "I6");
  private static final List<String> PHASES = List.of("design", "build", "review");

  /**
   * When each session is killed: {@code calls} agent starts into the session (0: counted from the
   * runner's own start), then {@code delayMs} more. An agent takes about 200 ms, so the delays
   * land before, during and just after an agent's end and the recording of its result.
   */
  private record KillMoment(int calls, int delayMs) {
  }

  private static final List<KillMoment> MOMENTS = List.of(new KillMoment(0, 300), new KillMoment(1, 0),
      new KillMoment(2, 120), new KillMoment(1, 210), new KillMoment(3, 240), new KillMoment(0, 1200),
      new KillMoment(2, 60), new KillMoment(1, 400));

  @TempDir
  Path dir;

  @Test
  void kill_9_at_many_moments_loses_no_item_repeats_no_completed_phase_and_interrupts_every_orphaned_job()
      throws Exception {
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        echo $$ >> agent-pids.txt
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
        sleep 0.2
        printf '{"result": "phase_complete", "summary": "%s %s done"}' "$ORCHESTRATE_ITEM_ID" "$ORCHESTRATE_PHASE" \\
          > "$ORCHESTRATE_RESULT_FILE"
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
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
              - {name: review, instructions: "Review."}
        """);
    StringBuilder backlog = new StringBuilder("items:\n");
    ITEMS.forEach(id -> backlog.append("  - {id: ").append(id).append(", title: ").append(id).append("}\n"));
    Files.writeString(dir.resolve("backlog.yaml"), backlog);
    Path state = dir.resolve("state");
    // as the SQL of ORDER BY item_id, phase in the pipeline's order would list them
    Comparator<JobRecord> byItemAndPhase = Comparator.comparing(JobRecord::itemId)
        .thenComparing(j -> PHASES.indexOf(j.phase()));

    Set<Long> leftRunning = new TreeSet<>();
    int kills = 0;
    for (KillMoment moment : MOMENTS) {
      int callsBefore = calls();
      Path output = dir.resolve("run-" + (kills + 1) + ".txt");
      Process runner = Launcher.builder(dir, "--state", "state", "run").redirectErrorStream(true)
          .redirectOutput(output.toFile()).start();
      try {
        Processes.await(Duration.ofSeconds(30), () -> !runner.isAlive() || calls() >= callsBefore + moment.calls());
        Thread.sleep(moment.delayMs());
        if (!runner.isAlive()) {
          // The work ran out before this moment; the final run below checks the end state.
          assertEquals(0, runner.exitValue(), Files.readString(output));
          break;
        }
        Processes.crash(runner);
        kills++;
      } finally {
        runner.destroyForcibly();
        killOrphanedAgents();
      }
      if (TestStores.backend(state).exists()) {
        // What the killed session left behind, as the next run will find it.
        List<JobRecord> jobs = Stored.jobs(state);
        jobs.stream().filter(j -> j.state() == JobState.RUNNING).forEach(j -> leftRunning.add(j.id()));
        for (long count : Stored.completedPerPhase(jobs, byItemAndPhase).values()) {
          assertEquals(1, count, "a completed phase ran again before kill " + kills);
        }
      }
    }
    assertTrue(kills >= 6, "only " + kills + " of " + MOMENTS.size() + " sessions were still running when killed");
    assertFalse(leftRunning.isEmpty(), "some kill hit a running agent");

    Launcher.Result last = Launcher.run(dir, "--state", "state", "run");
    assertEquals(0, last.exitCode(), last.err());
    assertTrue(last.out().contains("6 total, 6 done, 0 blocked, 0 remaining"), last.out());

    List<String> everyPhaseOnce = new ArrayList<>();
    for (String item : ITEMS) {
      for (String phase : PHASES) {
        everyPhaseOnce.add(item + "|" + phase + "|1");
      }
    }
    List<JobRecord> jobs = Stored.jobs(state);
    assertEquals(everyPhaseOnce, Stored.completedPerPhase(jobs, byItemAndPhase).entrySet().stream()
        .map(e -> e.getKey() + "|" + e.getValue()).toList());
    assertEquals(ITEMS.stream().map(id -> id + "|done").toList(),
        Stored.items(state).stream().map(i -> i.id() + "|" + i.status().key()).toList());
    assertEquals(leftRunning, new TreeSet<>(jobs.stream().filter(j -> j.state() == JobState.INTERRUPTED)
        .map(JobRecord::id).toList()), "exactly the jobs the killed sessions left running are recorded as interrupted");
    assertEquals(List.of(), jobs.stream()
        .filter(j -> j.state() != JobState.COMPLETED && j.state() != JobState.INTERRUPTED).toList(),
        "no job is still running, and none failed or was cancelled");
    assertEquals(Optional.of("all_done"),
        TestStores.read(state, store -> store.items().lastRun()).map(RunRecord::haltReason));
  }

  private int calls() {
    try {
      Path file = dir.resolve("calls.txt");
      return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Agents that a kill -9 orphaned, including one spawned just after the runner's descendants were
   * listed. Only this test's: other builds may run agent scripts of the same name at the same time.
   */
  private void killOrphanedAgents() throws IOException {
    Path pids = dir.resolve("agent-pids.txt");
    if (!Files.exists(pids)) {
      return;
    }
    for (String line : Files.readAllLines(pids)) {
      if (!line.isBlank()) {
        ProcessHandle.of(Long.parseLong(line.strip())).filter(this::isOurAgent)
            .ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  private boolean isOurAgent(ProcessHandle process) {
    try {
      return Files.readSymbolicLink(Path.of("/proc/" + process.pid() + "/cwd")).equals(dir.toRealPath())
          && process.info().commandLine().map(c -> c.contains("agent.sh")).orElse(false);
    } catch (IOException e) {
      return false; // gone, or not ours to look at
    }
  }
}
