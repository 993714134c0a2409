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
 * What keeps several clones from splitting or losing work (docs/workspaces.md, "Several machines"):
 * a second checkout is refused at start when its work would stay in it, and a clone's stale branch
 * of an item is never landed in place of the work another clone recorded.
 */
class SharedRemoteSafetyIT {
  @TempDir
  Path dir;

  /** origin, and clones A and B of it, with this config's execution keys and these items. */
  private Clones clones(String execution, String pipeline, String items) throws Exception {
    return Clones.of(dir, java.util.Map.of("agent.sh", """
        #!/usr/bin/env bash
        while [ -f "$HOLD" ]; do sleep 0.1; done
        echo "$ORCHESTRATE_PHASE" >> "work-$ORCHESTRATE_ITEM_ID.txt"
        exit 0
        """, "orchestrate.yaml", """
        agent:
          command: ["bash", "agent.sh"]
        execution:
        %s
        state: {lease_timeout: 3s}
        default_pipeline: p
        pipelines:
          p:
        %s
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
        """.formatted(execution.indent(2).stripTrailing(), pipeline.indent(4).stripTrailing()),
        "backlog.yaml", "items:\n" + items.indent(2)));
  }

  private Process start(Path clone, String url, String name) throws IOException {
    ProcessBuilder pb = Launcher.builder(clone, "--state", url, "run", "--json", "backlog.yaml");
    pb.environment().put("HOLD", dir.resolve("hold").toString());
    return pb.redirectOutput(dir.resolve(name + ".json").toFile()).redirectError(dir.resolve(name + ".err").toFile())
        .start();
  }

  private Launcher.Result run(Path clone, String url) throws Exception {
    return Launcher.run(clone, "--state", url, "run", "backlog.yaml");
  }

  @Test
  void a_second_checkout_is_refused_at_start_when_its_work_would_stay_in_it_and_a_second_process_in_one_is_not()
      throws Exception {
    clones("workspace: worktree", "", "- {id: H, title: holds runner A}\n- {id: K, title: more}");
    String schema = EmbeddedPostgresServer.freshSchema("checkouts");
    String url = EmbeddedPostgresServer.location(schema);
    Path a = dir.resolve("A");
    Files.writeString(dir.resolve("hold"), "");
    Process runnerA = start(a, url, "a");
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (EmbeddedPostgresServer.text(schema, "SELECT to_regclass('jobs') IS NULL").equals("t")
        || Long
            .parseLong(EmbeddedPostgresServer.text(schema, "SELECT count(*) FROM jobs WHERE state = 'running'")) == 0) {
      assertTrue(runnerA.isAlive() && System.nanoTime() < deadline, Files.readString(dir.resolve("a.err")));
      Thread.sleep(50);
    }

    Launcher.Result refused = run(dir.resolve("B"), url);
    assertEquals(2, refused.exitCode(), refused.out() + refused.err());
    assertTrue(refused.err().contains("another checkout shares this state: this runner works in ")
        && refused.err().contains(dir.resolve("B").toRealPath().toString())
        && refused.err().contains(" in ") && refused.err().contains(a.toRealPath().toString())
        && refused.err().contains("Set execution.landing: remote"), refused.err());
    assertEquals(1, refused.err().strip().lines().count(), "one line: " + refused.err());

    Files.writeString(dir.resolve("B/orchestrate.yaml"), Files.readString(dir.resolve("B/orchestrate.yaml"))
        .replace("workspace: worktree", "workspace: shared"));
    Launcher.Result shared = run(dir.resolve("B"), url);
    assertEquals(2, shared.exitCode(), shared.err());
    assertTrue(shared.err().contains("with execution.workspace: shared each agent edits whichever clone runs it")
        && shared.err().contains("Set execution.workspace: worktree with execution.landing: remote"), shared.err());

    // a second process in the same checkout is one machine: it runs (and finds nothing it may claim yet)
    Process second = start(a, url, "a-second");
    Thread.sleep(1500);
    Files.delete(dir.resolve("hold"));
    assertTrue(runnerA.waitFor(2, TimeUnit.MINUTES) && second.waitFor(2, TimeUnit.MINUTES));
    assertEquals(0, runnerA.exitValue(), Files.readString(dir.resolve("a.err")));
    assertEquals(0, second.exitValue(), Files.readString(dir.resolve("a-second.err")));
    assertEquals("design\nbuild\n", Files.readString(a.resolve("work-K.txt")), "landed in A's own main");
  }

  @Test
  void approve_after_the_work_was_done_in_another_clone_lands_the_recorded_work_and_never_a_stale_branch()
      throws Exception {
    clones("workspace: worktree\nlanding: remote", "review: required",
        "- {id: S, title: stale branch in A}\n- {id: T, title: diverged branch in A}");
    String schema = EmbeddedPostgresServer.freshSchema("stale");
    String url = EmbeddedPostgresServer.location(schema);
    Path a = dir.resolve("A");
    Path origin = dir.resolve("origin.git");
    // clone A: S's branch from an earlier attempt that never committed; T's with a commit of its own
    git(a, "branch", "orchestrate/S", "main");
    git(a, "switch", "-q", "-c", "orchestrate/T");
    Files.writeString(a.resolve("local.txt"), "only in clone A\n");
    git(a, "add", "local.txt");
    git(a, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "T: a commit only clone A has");
    String diverged = git(a, "rev-parse", "HEAD").strip();
    git(a, "switch", "-q", "main");

    Launcher.Result inB = run(dir.resolve("B"), url); // the work, in clone B, to review
    assertEquals(0, inB.exitCode(), inB.err());
    assertEquals("awaiting_review", EmbeddedPostgresServer.text(schema, "SELECT status FROM items WHERE id = 'S'"));
    String recordedT = EmbeddedPostgresServer.text(schema, "SELECT head_commit FROM workspaces WHERE item_id = 'T'");

    Launcher.Result approve = Launcher.run(a, "--state", url, "approve", "S", "T");
    assertEquals(0, approve.exitCode(), approve.err());
    Launcher.Result inA = run(a, url); // lands them from clone A
    assertEquals(0, inA.exitCode(), inA.err());

    assertEquals("done", EmbeddedPostgresServer.text(schema, "SELECT status FROM items WHERE id = 'S'"));
    assertEquals("design\nbuild\n", git(dir, "--git-dir=" + origin, "show", "main:work-S.txt"),
        "S's recorded work landed, not the empty stale branch");
    assertEquals("blocked", EmbeddedPostgresServer.text(schema, "SELECT status FROM items WHERE id = 'T'"));
    String reason = EmbeddedPostgresServer.text(schema, "SELECT blocked_reason FROM items WHERE id = 'T'");
    assertTrue(reason.contains(diverged) && reason.contains(recordedT), "both commits named: " + reason);
    List<String> landed = git(dir, "--git-dir=" + origin, "log", "--format=%s", "main").lines().toList();
    assertFalse(landed.stream().anyMatch(s -> s.startsWith("T")), "nothing of T landed: " + landed);
    assertEquals(recordedT, git(dir, "--git-dir=" + origin, "rev-parse", "refs/orchestrate/T").strip(),
        "T's recorded work is still on origin");
    assertEquals(diverged, git(a, "rev-parse", "orchestrate/T").strip(), "clone A's own commit is left for a person");
  }
}
