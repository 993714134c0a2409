package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 points 4, 7 and 8 with the real launcher: a state destroyed by an agent, a write lock
 * held by an agent past the busy timeout, and a state database that cannot grow.
 */
class HostileStateIT {
  @TempDir
  Path dir;

  private void project(String agent, int items) throws Exception {
    project(agent, items, "");
  }

  private void project(String agent, int items, String execution) throws Exception {
    Files.writeString(dir.resolve("agent.sh"), agent);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
          timeout: 60s
        %s
        default_pipeline: two
        pipelines:
          two:
            phases:
              - {name: first, instructions: "One."}
              - {name: second, instructions: "Two."}
        """.formatted(execution));
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= items; i++) {
      backlog.append("  - {id: I").append(i).append(", title: item ").append(i).append("}\n");
    }
    Files.writeString(dir.resolve("backlog.yaml"), backlog);
  }

  /** The launcher under {@code ulimit -f kib}. */
  private Launcher.Result withFileSizeLimit(int kib, String... args) throws Exception {
    Path out = dir.resolve("limited.out");
    Path err = dir.resolve("limited.err");
    ProcessBuilder pb = Launcher.builder(dir, args);
    List<String> command = new java.util.ArrayList<>(
        List.of("bash", "-c", "ulimit -f " + kib + " && exec \"$@\"", "-"));
    command.addAll(pb.command());
    Process p = pb.command(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS), "finished in 120 s");
    return new Launcher.Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  void an_agent_that_truncates_state_db_and_its_wal_ends_the_run_with_exit_1_and_one_line() throws Exception {
    project("""
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" >> calls.txt
        if [ "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" = "I2 first" ]; then
          truncate -s 0 state/state.db state/state.db-wal
        fi
        exit 0
        """, 4);

    Launcher.Result r = Launcher.run(dir, "--state", "state", "--quiet", "run", "--json");

    assertEquals(1, r.exitCode(), r.err());
    assertEquals("", r.out(), "no run report: the run did not end as all_done");
    List<String> lines = r.err().lines().toList();
    assertEquals(1, lines.size(), r.err());
    assertTrue(lines.get(0).startsWith("orchestrate: error: state database " + dir.resolve("state/state.db")
        + " was truncated to 0 bytes while in use"), lines.get(0));
    assertFalse(Files.readString(dir.resolve("calls.txt")).contains("I3"), "no work after the state was gone");
  }

  @Test
  void a_write_lock_held_by_an_agent_past_the_busy_timeout_is_waited_out_and_said_once() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    String classpath = System.getProperty("java.class.path");
    // I1's first phase holds the lock for 15 s (a sqlite3 shell left in a transaction, say) while
    // I2's first phase ends at once: recording that end must wait, not fail after 10 s.
    project("""
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" >> calls.txt
        if [ "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" = "I1 first" ]; then
          exec "%s" -cp "%s" dev.orchestrate.e2e.HoldWriteLock state/state.db 15 holding </dev/null
        fi
        for i in $(seq 600); do [ -s holding ] && break; sleep 0.1; done
        exit 0
        """.formatted(java, classpath), 3, "execution: {max_wip: 2, max_concurrent: 2}");

    Launcher.Result r = Launcher.run(dir, "--state", "state", "--quiet", "run", "--json");

    assertTrue(Files.exists(dir.resolve("holding")), "the lock was held");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals(List.of("orchestrate: warning: state database " + dir.resolve("state/state.db")
        + " is locked by another process; waiting\u2026 (Ctrl-C to stop)"), r.err().lines().toList());
    assertTrue(r.out().contains("\"halt_reason\":\"all_done\"") || r.out().contains("\"halt_reason\" : \"all_done\""),
        r.out());
    Path state = dir.resolve("state");
    assertEquals(3, done(state));
    assertEquals(6, completed(state).size(), "nothing lost");
  }

  @Test
  void ctrl_c_while_a_run_waits_for_the_lock_ends_it_with_exit_130_and_the_next_run_finishes_the_work()
      throws Exception {
    String javaBin = ProcessHandle.current().info().command().orElse("java");
    project("""
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" >> calls.txt
        if [ "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" = "I1 first" ]; then
          exec "%s" -cp "%s" dev.orchestrate.e2e.HoldWriteLock state/state.db 120 holding </dev/null
        fi
        for i in $(seq 600); do [ -s holding ] && break; sleep 0.1; done
        exit 0
        """.formatted(javaBin, System.getProperty("java.class.path")), 2, "execution: {max_wip: 2, max_concurrent: 2}");
    Path err = dir.resolve("run.err");
    Process run = Launcher.builder(dir, "--state", "state", "--quiet", "run").redirectError(err.toFile())
        .redirectOutput(dir.resolve("run.out").toFile()).start();
    try {
      assertTrue(Processes.await(Duration.ofSeconds(90), () -> {
        try {
          return Files.exists(err) && Files.readString(err).contains("is locked by another process; waiting");
        } catch (java.io.IOException e) {
          return false;
        }
      }), "the run says it waits");

      Processes.signal(run, "INT");

      assertTrue(run.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "Ctrl-C ends the wait");
      assertEquals(130, run.exitValue(), Files.readString(err));
      List<String> lines = Files.readString(err).lines().toList();
      assertEquals(2, lines.size(), lines.toString());
      assertTrue(lines.get(1).startsWith("orchestrate: error: state database " + dir.resolve("state/state.db")
          + " is locked by another process; stopped while waiting for it"), lines.get(1));
    } finally {
      run.destroyForcibly();
      Processes.killIfRunning(dir.resolve("holding"));
    }
    assertTrue(Processes.await(Duration.ofSeconds(30), () -> {
      try {
        return !Processes.running(Processes.pid(dir.resolve("holding")));
      } catch (java.io.IOException e) {
        return true;
      }
    }), "the lock holder is gone");
    Files.writeString(dir.resolve("agent.sh"),
        "#!/usr/bin/env bash\necho \"$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE\" >> calls.txt\n");

    Launcher.Result again = Launcher.run(dir, "--state", "state", "--quiet", "run");

    assertEquals(0, again.exitCode(), again.err());
    assertEquals(2, done(dir.resolve("state")));
  }

  @Test
  void memory_add_waits_for_a_lock_held_past_the_busy_timeout_says_so_once_and_adds() throws Exception {
    Path db = dir.resolve("state/state.db");
    assertEquals(0, Launcher.run(dir, "--state", "state", "memory", "add", "--kind", "semantic", "first").exitCode());
    String java = ProcessHandle.current().info().command().orElse("java");
    Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        "dev.orchestrate.e2e.HoldWriteLock", db.toString(), "13", dir.resolve("holding").toString())
        .redirectErrorStream(true).redirectOutput(dir.resolve("holder.txt").toFile()).start();
    try {
      assertTrue(Processes.await(Duration.ofSeconds(60), () -> Files.exists(dir.resolve("holding"))),
          "the lock is held");

      Launcher.Result r = Launcher.run(dir, "--state", "state", "memory", "add", "--kind", "semantic", "--id", "m2",
          "second");

      assertEquals(0, r.exitCode(), r.err());
      assertEquals(List.of("orchestrate: warning: state database " + db
          + " is locked by another process; waiting\u2026"), r.err().lines().toList());
      assertEquals("m2", r.out().strip());
      assertEquals(2, (long) TestStores.read(dir.resolve("state"), store -> store.memory().size()));
    } finally {
      holder.destroyForcibly();
    }
  }

  @Test
  void a_state_database_that_cannot_grow_stops_the_run_with_one_line_and_a_resume_repeats_no_completed_phase()
      throws Exception {
    project("""
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" >> calls.txt
        exit 0
        """, 40);
    // A file size limit (ulimit -f, in KiB) makes writes past it fail with EFBIG, as a full disk
    // fails them with ENOSPC; it needs no root and no special file system. The WAL is the
    // largest file the runner writes, so it reaches the limit first.
    Launcher.Result full = withFileSizeLimit(600, "--state", "state", "--quiet", "run");
    assertEquals(1, full.exitCode(), full.err());
    List<String> lines = full.err().lines().toList();
    assertEquals(1, lines.size(), full.err());
    assertTrue(lines.get(0).startsWith("orchestrate: error: state database " + dir.resolve("state/state.db") + ": "),
        lines.get(0));
    assertTrue(lines.get(0).contains("so the last change was not recorded"), lines.get(0));
    Path state = dir.resolve("state");
    long completedBefore = completed(state).size();
    assertTrue(completedBefore > 0 && completedBefore < 80, "stopped part-way: " + completedBefore);

    Launcher.Result resumed = Launcher.run(dir, "--state", "state", "--quiet", "run");

    assertEquals(0, resumed.exitCode(), resumed.err());
    assertEquals(40, done(state));
    assertEquals(List.of(), Stored.completedPerPhase(Stored.jobs(state), Comparator.comparing(JobRecord::id))
        .entrySet().stream().filter(e -> e.getValue() > 1).map(e -> e.getKey()).toList(),
        "no completed phase ran twice");
  }

  /** How many items are done, read through the port as the next command finds them. */
  private static long done(Path state) {
    return Stored.items(state).stream().filter(i -> i.status() == ItemStatus.DONE).count();
  }

  /** The jobs that completed, oldest first. */
  private static List<JobRecord> completed(Path state) {
    return Stored.jobs(state).stream().filter(j -> j.state() == JobState.COMPLETED).toList();
  }
}
