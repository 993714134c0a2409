package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four runner processes share one backlog on one PostgreSQL state; one is killed with
 * {@code kill -9} in the middle of the run. The others take its items over once its heartbeat is
 * older than the lease timeout, stop the agents it left running on this host, and re-run the
 * phases it was running, exactly as a {@code kill -9} resume does on SQLite.
 */
class MultiRunnerIT {
  private static final int ITEMS = 200;
  private static final int RUNNERS = 4;
  private static final int MAX_WIP = 8;
  private static final int MAX_CONCURRENT = 2;

  @TempDir
  Path dir;

  @Test
  void four_runners_one_killed_finish_every_item_with_no_item_held_twice_and_no_completed_phase_run_again()
      throws Exception {
    String schema = EmbeddedPostgresServer.freshSchema("multi");
    String url = EmbeddedPostgresServer.location(schema);
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
        while [ ! -f go ]; do sleep 0.05; done
        # An agent of the runner to be killed (a "doomed-PID" file names it) once that file is there
        # says so and outlasts the kill, so that the kill finds it running.
        # (Builtins only, and only once the file is there: a process per agent is dear on a slow machine.)
        for doomed in doomed-*; do
          [ -e "$doomed" ] || break
          p=$$
          while [ "${p:-1}" -gt 1 ]; do
            if [ -f "doomed-$p" ]; then : > "outlasting-$$"; exec sleep 60; fi
            read -r _ _ _ p _ < "/proc/$p/stat" || break
          done
        done
        sleep 0.2
        exit 0
        """);
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          command: ["bash", "agent.sh"]
        execution: {max_wip: %d, max_concurrent: %d, phase_cap: 10000}
        state: {lease_timeout: 3s}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
              - {name: review, instructions: "Review."}
        """.formatted(MAX_WIP, MAX_CONCURRENT));
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 0; i < ITEMS; i++) {
      backlog.append(String.format("  - {id: I%03d, title: item %d}%n", i, i));
    }
    Files.writeString(dir.resolve("backlog.yaml"), backlog);

    List<Process> runners = new ArrayList<>();
    for (int r = 0; r < RUNNERS; r++) {
      runners
          .add(Launcher.builder(dir, "--state", url, "--logs", "runner-" + r + "/jobs", "run", "--json", "backlog.yaml")
              .redirectOutput(dir.resolve("report-" + r + ".json").toFile())
              .redirectError(dir.resolve("err-" + r + ".txt").toFile()).start());
    }
    // The agents wait for the file "go" until every runner has agents running: on a loaded machine
    // one JVM may start many seconds after the others, and it must still get work to do.
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    for (int r = 0; r < RUNNERS; r++) {
      Process runner = runners.get(r);
      while (runningJobs(schema, runner.pid()) == 0) {
        if (!runner.isAlive()) { // say why it ended: its report names the halt
          runner.waitFor();
        }
        assertTrue(runner.isAlive(), "runner " + r + " exited " + (runner.isAlive() ? "" : runner.exitValue())
            + " before it ran an agent: " + Files.readString(dir.resolve("err-" + r + ".txt")) + "\nits report: "
            + Files.readString(dir.resolve("report-" + r + ".json")));
        assertTrue(System.nanoTime() < deadline, "runner " + r + " ran no agent in 180 s: "
            + Files.readString(dir.resolve("err-" + r + ".txt")));
        Thread.sleep(50);
      }
    }
    Files.writeString(dir.resolve("go"), "");
    // Mid-run: a third of the phases have started; then the runner to kill gets an agent that
    // outlasts the kill (agents of 0.2 s could all end between a check and the kill on a slow machine).
    Path calls = dir.resolve("calls.txt");
    Process killed = runners.get(0);
    while (lines(calls) < ITEMS && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(lines(calls) >= ITEMS, "the runners got going: " + lines(calls) + " calls");
    Files.writeString(dir.resolve("doomed-" + killed.pid()), "");
    while (!outlasting(dir) && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(outlasting(dir), "the runner to kill started an agent that outlasts the kill");
    assertTrue(runningJobs(schema, killed.pid()) > 0, "the runner to kill has its agent's job running");
    List<ProcessHandle> orphans = killed.toHandle().descendants().toList();
    String killedId = runnerOf(schema, killed.pid());
    assertNotNull(killedId, "the killed runner was registered");
    killed.toHandle().destroyForcibly(); // SIGKILL: no release, no deregistration
    assertTrue(killed.waitFor(10, TimeUnit.SECONDS));
    Files.delete(dir.resolve("doomed-" + killed.pid())); // its pid may be a new process's from now on

    ObjectMapper json = new ObjectMapper();
    Set<String> ids = new HashSet<>();
    for (int r = 1; r < RUNNERS; r++) {
      Process runner = runners.get(r);
      assertTrue(runner.waitFor(5, TimeUnit.MINUTES), "runner " + r + " finished");
      String err = Files.readString(dir.resolve("err-" + r + ".txt"));
      assertEquals(0, runner.exitValue(), err);
      JsonNode report = json.readTree(dir.resolve("report-" + r + ".json").toFile());
      assertEquals("all_done", report.get("halt_reason").asText(), report.toString());
      assertEquals(ITEMS, report.get("items").get("done").asInt());
      assertTrue(ids.add(report.get("runner_id").asText()), report.toString());
      assertTrue(report.get("summary_map").get("peak").asInt() <= MAX_WIP + MAX_CONCURRENT, report.toString());
      assertEquals(0, report.get("summary_map").get("final").asInt(), report.toString());
      assertTrue(report.get("job_table").get("peak_active").asInt() <= MAX_CONCURRENT, report.toString());
      assertTrue(report.get("job_table").get("final").asInt() <= MAX_CONCURRENT + 3, report.toString());
    }
    assertFalse(ids.contains(killedId));
    for (ProcessHandle orphan : orphans) {
      assertFalse(orphan.isAlive(), "the killed runner's agent " + orphan.pid() + " was stopped by a take-over");
    }

    try (Connection c = EmbeddedPostgresServer.connect(); Statement st = c.createStatement()) {
      st.execute("SET search_path TO \"" + schema + "\"");
      assertEquals(ITEMS, count(st, "SELECT count(*) FROM items WHERE status = 'done'"));
      assertEquals(0, count(st, "SELECT count(*) FROM items WHERE lease_owner IS NOT NULL"));
      assertEquals(0, count(st, "SELECT count(*) FROM runners"), "the dead one taken over, the rest deregistered");
      // Every phase of every item completed exactly once.
      assertEquals(ITEMS * 3, count(st, "SELECT count(*) FROM jobs WHERE state = 'completed'"));
      assertEquals(0, count(st, "SELECT count(*) FROM (SELECT item_id, phase FROM jobs WHERE state = 'completed'"
          + " GROUP BY item_id, phase HAVING count(*) > 1) twice"));
      // Only the killed runner's running phases were interrupted, and each ran again.
      long interrupted = count(st, "SELECT count(*) FROM jobs WHERE state = 'interrupted'");
      assertTrue(interrupted >= 1 && interrupted <= MAX_CONCURRENT, interrupted + " interrupted");
      assertEquals(interrupted, count(st, "SELECT count(*) FROM jobs WHERE state = 'interrupted' AND runner_id = '"
          + killedId + "'"));
      assertEquals(1, count(st, "SELECT count(*) FROM events WHERE kind = 'runner.taken_over'"));
      // No two runners ever held one item: per item, each job ended before the next one started.
      Map<String, List<long[]>> spans = new HashMap<>();
      try (ResultSet rs = st.executeQuery("SELECT item_id, started_at, ended_at, runner_id FROM jobs ORDER BY id")) {
        while (rs.next()) {
          assertNotNull(rs.getString(4), "every job names its runner");
          spans.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
              .add(new long[] {rs.getLong(2), rs.getLong(3)});
        }
      }
      assertEquals(ITEMS, spans.size());
      for (Map.Entry<String, List<long[]>> item : spans.entrySet()) {
        List<long[]> jobs = item.getValue();
        jobs.sort((a, b) -> Long.compare(a[0], b[0]));
        for (int i = 1; i < jobs.size(); i++) {
          assertTrue(jobs.get(i)[0] >= jobs.get(i - 1)[1], item.getKey() + ": a job started before the previous ended");
        }
      }
      Set<String> runnersOfJobs = new HashSet<>();
      try (ResultSet rs = st.executeQuery("SELECT DISTINCT runner_id FROM jobs")) {
        while (rs.next()) {
          runnersOfJobs.add(rs.getString(1));
        }
      }
      Set<String> expected = new HashSet<>(ids);
      expected.add(killedId);
      assertEquals(expected, runnersOfJobs, "all four runners worked");
    }
  }

  private static long lines(Path file) throws java.io.IOException {
    return Files.exists(file) ? Files.readAllLines(file).size() : 0;
  }

  /** The jobs running now under the runner of process {@code pid} (0 before it registered). */
  /** Whether an agent of the runner to kill has started to outlast the kill. */
  private static boolean outlasting(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.getFileName().toString().startsWith("outlasting-"));
    }
  }

  private static long runningJobs(String schema, long pid) {
    if (EmbeddedPostgresServer.text(schema, "SELECT to_regclass('runners') IS NULL").equals("t")) {
      return 0; // not migrated yet
    }
    return Long.parseLong(EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM jobs j JOIN runners r"
        + " ON j.runner_id = r.id WHERE r.pid = " + pid + " AND j.state = 'running'"));
  }

  private static String runnerOf(String schema, long pid) {
    return EmbeddedPostgresServer.text(schema, "SELECT id FROM runners WHERE pid = " + pid);
  }

  private static long count(Statement st, String sql) throws Exception {
    try (ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
