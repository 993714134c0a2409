package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two machines, one result (docs/workspaces.md, "Several machines"): two clones of one bare
 * {@code origin}, one PostgreSQL state, {@code execution.landing: remote}, 24 items of two phases
 * and, last in the backlog, three that edit the same line (8 and three in the second layout). One runner is killed with {@code kill -9} in the middle of a
 * phase; the other takes its items over from the remote, in its own clone. Every item ends done (or
 * blocked with the conflicting file named, at least one of the three landing), every phase commit reaches origin's {@code main}
 * exactly once, only interrupted phases run again, and the killed runner, restarted, removes the
 * worktrees and branches it left.
 *
 * <p>Two layouts: the clones in two directories, and each runner seeing only its own clone at the
 * same path, in a mount namespace of its own ({@code unshare -m}, root only: skipped, saying so,
 * where it is not allowed), as two machines would. The first is the one at size: the races it
 * found (a takeover that lost a dead runner's phase commit, a fetch beside {@code worktree add})
 * showed with dozens of phases in flight. The second proves what one path for both clones changes
 * (each runner names its checkout by a path the other has too), which 8 items show as well as 24;
 * at 24 it was half of the suite's costliest end-to-end class, on a suite bound to 20 minutes.
 */
class TwoMachinesIT {
  private static final int ITEMS = 24;
  /** The items of the second layout. */
  private static final int ITEMS_SAME_PATH = 8;
  private static final int CONFLICTING = 3;

  @TempDir
  Path dir;

  @Test
  void two_clones_in_two_directories_one_killed_in_its_second_phase_land_every_phase_commit_once() throws Exception {
    Machines m = new Machines(dir, false, ITEMS);
    m.run("build");
  }

  @Test
  void two_clones_at_the_same_path_in_mount_namespaces_one_killed_in_its_first_phase_land_every_phase_commit_once()
      throws Exception {
    assumeTrue(Machines.namespacesAllowed(), "unshare -m is not allowed here (it needs root): the same-path layout "
        + "is not tested on this machine");
    Machines m = new Machines(dir, true, ITEMS_SAME_PATH);
    m.run("design");
  }

  /** Two clones, the runners and what the test checks. */
  static final class Machines {
    final Path dir;
    final boolean namespaced;
    final int items;
    final Path origin;
    final Path a;
    final Path b;
    /** Where each runner sees its clone: its own directory, or one path both see their own clone at. */
    final Path mountPoint;
    final String schema = EmbeddedPostgresServer.freshSchema("machines");
    final String url = EmbeddedPostgresServer.location(schema);

    Machines(Path dir, boolean namespaced, int items) throws Exception {
      this.dir = dir;
      this.namespaced = namespaced;
      this.items = items;
      this.origin = dir.resolve("origin.git");
      this.a = dir.resolve("A");
      this.b = dir.resolve("B");
      this.mountPoint = dir.resolve("clone");
      Files.createDirectories(mountPoint);
      // Each phase adds a line to its item's file; the conflicting items rewrite one line of shared.txt.
      // The conflicting items last: the killed runner's first items are plain ones, which end done,
      // so that its restart has their worktrees and branches to remove.
      StringBuilder backlog = new StringBuilder("items:\n");
      for (int i = 1; i <= items; i++) {
        backlog.append(String.format("  - {id: I%02d, title: item %d}%n", i, i));
      }
      for (int i = 1; i <= CONFLICTING; i++) {
        backlog.append(String.format("  - {id: C%d, title: conflicting %d}%n", i, i));
      }
      Clones.of(dir, Map.of("agent.sh", """
          #!/usr/bin/env bash
          echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE" >> "$CALLS"
          case "$ORCHESTRATE_ITEM_ID" in
            C*) echo "$ORCHESTRATE_ITEM_ID was here in $ORCHESTRATE_PHASE" > shared.txt ;;
            *) echo "$ORCHESTRATE_PHASE" >> "work-$ORCHESTRATE_ITEM_ID.txt" ;;
          esac
          sleep 0.4
          exit 0
          """, "shared.txt", "nobody yet\n", "orchestrate.yaml", """
          agent:
            command: ["bash", "agent.sh"]
          execution:
            max_wip: 6
            max_concurrent: 3
            workspace: worktree
            landing: remote
          state: {lease_timeout: 3s}
          default_pipeline: p
          pipelines:
            p:
              phases:
                - {name: design, instructions: "Design."}
                - {name: build, instructions: "Build."}
          """,
          "backlog.yaml", backlog.toString()));
    }

    static boolean namespacesAllowed() {
      try {
        Process p = new ProcessBuilder("unshare", "-m", "true").redirectErrorStream(true).start();
        return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
      } catch (IOException | InterruptedException e) {
        return false;
      }
    }

    /** A runner of {@code clone}, its report in {@code name}.json and its stderr in {@code name}.err. */
    Process start(Path clone, String name) throws IOException {
      Path cwd = namespaced ? mountPoint : clone;
      ProcessBuilder pb;
      if (namespaced) {
        List<String> command = new ArrayList<>(List.of("unshare", "-m", "bash", "-c",
            "mount --bind \"$0\" \"$1\" && cd \"$1\" && exec \"$2\" --state \"$3\" run --json backlog.yaml",
            clone.toString(), mountPoint.toString(), Launcher.BIN.toString(), url));
        pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().remove("ORCHESTRATE_STATE");
        pb.environment().remove("ORCHESTRATE_CONFIG");
      } else {
        pb = Launcher.builder(cwd, "--state", url, "run", "--json", "backlog.yaml");
      }
      pb.environment().put("CALLS", dir.resolve("calls.txt").toString());
      return pb.redirectOutput(dir.resolve(name + ".json").toFile()).redirectError(dir.resolve(name + ".err").toFile())
          .start();
    }

    void run(String killIn) throws Exception {
      Process runnerA = start(a, "a");
      Process runnerB = start(b, "b");
      long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      // runner A mid-phase in the phase named: its job is running, its agent has begun (a job is
      // recorded before its worktree is made, on a worker: issue 46)
      while (runningJobs(runnerA.pid(), killIn) == 0 || runnerA.toHandle().descendants()
          .noneMatch(p -> p.info().commandLine().orElse("").contains("agent.sh"))) {
        assertTrue(runnerA.isAlive(), "runner A ended early: " + Files.readString(dir.resolve("a.err")));
        assertTrue(System.nanoTime() < deadline, "runner A ran no " + killIn + " phase: "
            + Files.readString(dir.resolve("a.err")));
        Thread.sleep(20);
      }
      runnerA.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
      runnerA.toHandle().destroyForcibly(); // SIGKILL: no release, no deregistration, its agents gone too
      assertTrue(runnerA.waitFor(10, TimeUnit.SECONDS));
      assertTrue(runnerB.waitFor(4, TimeUnit.MINUTES), "runner B finished");
      String errB = Files.readString(dir.resolve("b.err"));
      assertEquals(0, runnerB.exitValue(), errB);
      JsonNode report = new ObjectMapper().readTree(dir.resolve("b.json").toFile());
      assertEquals(0, report.get("items").get("remaining").asInt(), report.toString());

      // every item done, but conflicting ones blocked with the file named
      Map<String, String> status = statuses();
      int blocked = 0;
      for (Map.Entry<String, String> e : status.entrySet()) {
        if (e.getKey().startsWith("C") && e.getValue().equals("blocked")) {
          blocked++;
          String reason = EmbeddedPostgresServer.text(schema, "SELECT blocked_reason FROM items WHERE id = '"
              + e.getKey() + "'");
          assertTrue(reason.contains("shared.txt"), e.getKey() + ": " + reason);
        } else {
          assertEquals("done", e.getValue(), () -> e.getKey() + " in " + status + ", why: "
              + EmbeddedPostgresServer.text(schema, "SELECT blocked_reason FROM items WHERE id = '" + e.getKey() + "'")
              + "; runner B said:\n" + errB);
        }
      }
      // A conflicting item that began from a base without another's landed change conflicts when it
      // lands (a plain rebase: the same line changed on both sides) and is blocked; one that began
      // after the other landed builds on it and lands too. Which happens depends on when each was
      // taken up (a killed runner's items begin again after the take-over, from the base of then;
      // a fast machine may land one before the next begins), so the count is a range, and what
      // landed is checked: origin's shared.txt is the last landed one's.
      assertTrue(blocked <= CONFLICTING - 1, "at least one conflicting item lands: " + status);
      String shared = git(dir, "--git-dir=" + origin, "show", "main:shared.txt");
      assertTrue(status.entrySet().stream().anyMatch(e -> e.getKey().startsWith("C") && e.getValue().equals("done")
          && shared.equals(e.getKey() + " was here in build\n")), "origin's shared.txt is a landed item's: " + shared
              + " " + status);
      String blockedId = status.entrySet().stream().filter(e -> e.getValue().equals("blocked")).map(Map.Entry::getKey)
          .findFirst().orElse(null);
      if (blockedId != null) {
        Launcher.Result shown = Launcher.run(b, "--state", url, "status", blockedId);
        assertTrue(shown.out().contains("work:          on origin refs/orchestrate/" + blockedId + " @ ")
            && shown.out().contains("(in "), "status names where its worktree and its work are: " + shown.out());
      }

      // every phase commit of a done item on origin's main, exactly once; nothing else left there
      List<String> subjects = git(dir, "--git-dir=" + origin, "log", "--format=%s", "main").lines().toList();
      Map<String, Integer> seen = new TreeMap<>();
      subjects.stream().filter(s -> !s.equals("init")).forEach(s -> seen.merge(s, 1, Integer::sum));
      for (Map.Entry<String, String> e : status.entrySet()) {
        if (e.getValue().equals("done")) {
          for (String phase : List.of("design", "build")) {
            String subject = e.getKey() + " " + phase + ": phase complete";
            assertEquals(1, seen.getOrDefault(subject, 0), () -> subject + " on origin's main: " + seen + "\n"
                + history(e.getKey()));
          }
        }
      }
      assertEquals(2 * (items + CONFLICTING - blocked), subjects.size() - 1, "origin's main: " + subjects);
      for (int i = 1; i <= items; i++) {
        String file = git(dir, "--git-dir=" + origin, "show", "main:work-" + String.format("I%02d", i) + ".txt");
        assertEquals("design\nbuild\n", file, "I" + i + "'s work on origin's main");
      }
      for (String ref : git(dir, "--git-dir=" + origin, "for-each-ref", "--format=%(refname)", "refs/orchestrate/")
          .lines().toList()) {
        String id = ref.substring("refs/orchestrate/".length());
        assertEquals("blocked", status.get(id), "only blocked items keep their work under refs/orchestrate: " + ref);
      }

      // at most the phases the kill interrupted ran again
      Map<String, Integer> calls = new HashMap<>();
      Files.readAllLines(dir.resolve("calls.txt")).forEach(l -> calls.merge(l, 1, Integer::sum));
      long again = calls.values().stream().mapToInt(n -> n - 1).sum();
      long interrupted = Long.parseLong(EmbeddedPostgresServer.text(schema,
          "SELECT count(*) FROM jobs WHERE state = 'interrupted'"));
      assertTrue(interrupted >= 1, "the kill interrupted a phase");
      assertTrue(again <= interrupted, again + " phases ran again, " + interrupted + " interrupted: " + calls);

      // the killed runner, restarted, cleans up what it left and has nothing left to do
      Process restarted = start(a, "a2");
      assertTrue(restarted.waitFor(2, TimeUnit.MINUTES));
      String errA = Files.readString(dir.resolve("a2.err"));
      assertEquals(0, restarted.exitValue(), errA);
      assertTrue(errA.contains("removed this clone's worktree"), errA);
      assertFalse(errA.contains(": kept "), errA);
      for (String branch : git(a, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads/orchestrate/").lines()
          .toList()) {
        String id = branch.substring("orchestrate/".length());
        // The kill took the runner's git with it: one killed while it moved this branch left git's
        // lock file, and orchestrate never deletes a lock in a repository (it says so and keeps the
        // branch; its work is on origin). Seen once in about ten verifies on a fast machine.
        Path lock = a.resolve(".git/refs/heads/" + branch + ".lock");
        if (Files.exists(lock)
            && errA.contains(id + ": could not clean up this clone's worktree and branch " + branch)) {
          continue;
        }
        assertEquals("blocked", status.get(id), () -> "clone A keeps only the branches of blocked items: " + branch
            + "\nthe restarted runner printed:\n" + errA + "\n" + history(id));
      }
    }

    /** What the runners did with item {@code id}: its jobs and what they printed about it, for a failure's message. */
    String history(String id) {
      StringBuilder out = new StringBuilder("jobs of " + id + ": ");
      out.append(EmbeddedPostgresServer.text(schema, "SELECT string_agg(id || ' ' || phase || ' ' || attempt || ' '"
          + " || state || ' ' || coalesce(result, '-') || ' ' || coalesce(commit_sha, '-') || ' ' || coalesce(runner_id,"
          + " '-') || ' ' || coalesce(reason, '-'), '; ' ORDER BY id) FROM jobs WHERE item_id = '" + id + "'"));
      for (String name : List.of("a", "b")) {
        try {
          out.append("\nrunner ").append(name).append(" said:\n");
          Files.readAllLines(dir.resolve(name + ".err")).stream().filter(l -> l.contains(id))
              .forEach(l -> out.append(l).append('\n'));
        } catch (IOException e) {
          out.append(e);
        }
      }
      try {
        out.append("origin: ").append(git(dir, "--git-dir=" + origin, "log", "--format=%h %p %s", "--all"));
      } catch (IOException | InterruptedException e) {
        out.append(e);
      }
      return out.toString();
    }

    /** The running jobs of the runner with process {@code pid} in {@code phase} (0 before it registered). */
    long runningJobs(long pid, String phase) {
      if (EmbeddedPostgresServer.text(schema, "SELECT to_regclass('runners') IS NULL").equals("t")) {
        return 0;
      }
      return Long.parseLong(EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM jobs j JOIN runners r"
          + " ON j.runner_id = r.id WHERE r.pid = " + pid + " AND j.state = 'running' AND j.phase = '" + phase
          + "' AND j.started_at < " + (System.currentTimeMillis() - 100)));
    }

    Map<String, String> statuses() {
      Map<String, String> out = new TreeMap<>();
      String rows = EmbeddedPostgresServer.text(schema, "SELECT string_agg(id || '=' || status, ',') FROM items");
      for (String row : rows.split(",")) {
        String[] kv = row.split("=", 2);
        out.put(kv[0], kv[1]);
      }
      return out;
    }
  }

  static String git(Path cwd, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("git", "-C", cwd.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), "git " + String.join(" ", args) + ": " + out);
    return out;
  }
}
