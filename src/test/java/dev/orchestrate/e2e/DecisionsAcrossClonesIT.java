package dev.orchestrate.e2e;

import static dev.orchestrate.e2e.TwoMachinesIT.git;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decisions taken in one clone about work done in another (docs/workspaces.md, "Several
 * machines"): runner A does the work, and while both runners run, a person in clone B approves one
 * item, rejects another and unblocks a third with {@code --rebase} onto a base that moved. Whoever
 * claims each item applies the decision from the shared remote: nothing is refused for a worktree
 * that lives in the other clone, and every phase commit lands on origin's {@code main}.
 */
class DecisionsAcrossClonesIT {
  @TempDir
  Path dir;

  @Test
  void approve_reject_and_unblock_rebase_from_the_other_clone_are_applied_whoever_claims_the_item() throws Exception {
    String schema = EmbeddedPostgresServer.freshSchema("decisions");
    String url = EmbeddedPostgresServer.location(schema);
    Clones clones = Clones.of(dir, java.util.Map.of("agent.sh", """
        #!/usr/bin/env bash
        case "$ORCHESTRATE_ITEM_ID" in
          H*) while [ -f "$HOLD" ]; do sleep 0.1; done ;;
          X) if [ "$ORCHESTRATE_PHASE" = build ] && [ -f "$FAIL_X" ]; then echo "X fails" >&2; exit 1; fi ;;
        esac
        echo "$ORCHESTRATE_PHASE" >> "work-$ORCHESTRATE_ITEM_ID.txt"
        exit 0
        """, "orchestrate.yaml", """
        agent:
          command: ["bash", "agent.sh"]
        execution:
          max_wip: 8
          max_concurrent: 4
          max_retries: 0
          workspace: worktree
          landing: remote
        state: {lease_timeout: 3s}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
          r:
            review: required
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
        """, "backlog.yaml", """
        items:
          - {id: H1, title: holds runner A}
          - {id: H2, title: holds a runner}
          - {id: X, title: fails its build once}
          - {id: R1, title: approved from the other clone, pipeline: r}
          - {id: R2, title: rejected from the other clone, pipeline: r}
        """));
    Path origin = clones.origin;
    Path a = clones.a;
    Path b = clones.b;
    Path hold = dir.resolve("hold");
    Path failX = dir.resolve("fail-x");
    Files.writeString(hold, "");
    Files.writeString(failX, "");

    Process runnerA = start(a, url, "a");
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (!(status(schema, "R1").equals("awaiting_review") && status(schema, "R2").equals("awaiting_review")
        && status(schema, "X").equals("blocked"))) {
      assertTrue(runnerA.isAlive(), Files.readString(dir.resolve("a.err")));
      assertTrue(System.nanoTime() < deadline, "A did not get R1, R2 to review and X blocked: "
          + Files.readString(dir.resolve("a.err")));
      Thread.sleep(50);
    }
    Process runnerB = start(b, url, "b");
    while (Long.parseLong(EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM runners")) < 2) {
      assertTrue(runnerB.isAlive(), Files.readString(dir.resolve("b.err")));
      assertTrue(System.nanoTime() < deadline, "B did not register");
      Thread.sleep(50);
    }
    // someone else's commit moves origin's main: X's unblock --rebase brings its work onto it
    clones.push("other.txt", "someone else's work\n", "other");

    // the decisions, from clone B, about work whose worktrees are in clone A
    Launcher.Result approve = Launcher.run(b, "--state", url, "approve", "R1");
    assertEquals(0, approve.exitCode(), approve.err());
    Launcher.Result reject = Launcher.run(b, "--state", url, "reject", "R2", "--notes", "Do the build again.");
    assertEquals(0, reject.exitCode(), reject.err());
    Files.delete(failX);
    Launcher.Result unblock = Launcher.run(b, "--state", url, "unblock", "X", "--rebase", "--notes",
        "The build works now.");
    assertEquals(0, unblock.exitCode(), unblock.out() + unblock.err());
    assertTrue(git(dir, "--git-dir=" + origin, "log", "--format=%s", "refs/orchestrate/X").contains("other"),
        "X's work, rebased in clone B, is on origin on top of the moved main");
    Files.delete(hold);

    assertTrue(runnerA.waitFor(3, TimeUnit.MINUTES) && runnerB.waitFor(3, TimeUnit.MINUTES), "both runners ended");
    String errA = Files.readString(dir.resolve("a.err"));
    String errB = Files.readString(dir.resolve("b.err"));
    assertEquals(0, runnerA.exitValue(), errA);
    assertEquals(0, runnerB.exitValue(), errB);
    for (String err : List.of(errA, errB)) {
      assertFalse(err.contains("not a valid branch point") || err.contains("refused"), err);
    }
    assertEquals("awaiting_review", status(schema, "R2"), "R2 ran its build again and awaits review again");
    Launcher.Result again = Launcher.run(a, "--state", url, "approve", "R2");
    assertEquals(0, again.exitCode(), again.err());
    Process last = start(b, url, "b2"); // lands R2 in clone B, whose worktree was made in A
    assertTrue(last.waitFor(2, TimeUnit.MINUTES));
    assertEquals(0, last.exitValue(), Files.readString(dir.resolve("b2.err")));

    for (String id : List.of("H1", "H2", "X", "R1", "R2")) {
      assertEquals("done", status(schema, id), id);
    }
    assertEquals("design\nbuild\n", clones.show("work-R1.txt"));
    assertEquals("design\nbuild\nbuild\n", clones.show("work-R2.txt"), "the rejected build ran again on its work");
    assertEquals("design\nbuild\n", clones.show("work-X.txt"));
    assertEquals("someone else's work\n", clones.show("other.txt"));
    List<String> subjects = clones.subjects();
    assertEquals(1, subjects.stream().filter(s -> s.equals("X design: phase complete")).count(), subjects.toString());
    assertTrue(subjects.indexOf("X design: phase complete") < subjects.indexOf("other"),
        "X's work lands after the commit it was rebased onto: " + subjects);
  }

  private Process start(Path clone, String url, String name) throws IOException {
    ProcessBuilder pb = Launcher.builder(clone, "--state", url, "run", "--json", "backlog.yaml");
    pb.environment().put("HOLD", dir.resolve("hold").toString());
    pb.environment().put("FAIL_X", dir.resolve("fail-x").toString());
    return pb.redirectOutput(dir.resolve(name + ".json").toFile()).redirectError(dir.resolve(name + ".err").toFile())
        .start();
  }

  private static String status(String schema, String id) {
    if (EmbeddedPostgresServer.text(schema, "SELECT to_regclass('items') IS NULL").equals("t")) {
      return ""; // not migrated yet
    }
    String s = EmbeddedPostgresServer.text(schema, "SELECT status FROM items WHERE id = '" + id + "'");
    return s == null ? "" : s;
  }
}
