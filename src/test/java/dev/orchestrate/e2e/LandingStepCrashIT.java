package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of the runner, and of the git it runs, at each point of a landing where git is changing
 * the item's worktree (the rebase or merge onto the base, the squash of its phase commits) or the
 * user's checkout (the fast-forward that lands it there).
 * The kill is exact: a {@code git} first on the runner's {@code PATH} takes the real git to that
 * point, then kills the runner (its parent) and itself. The next run finds what the step left
 * (a detached HEAD, a half-applied pick, files of a checkout cut short, a merge in progress),
 * puts the worktree back at the item's branch, and lands the item, once, through its gate: the
 * queue resumes by itself, where a step's leftovers used to read as a person's uncommitted changes
 * and held the item until someone cleaned them up (MergeQueueCrashIT's random kills found it).
 */
class LandingStepCrashIT {
  @TempDir
  Path dir;

  /** Where the kill falls: the git command it falls in, and what git has done of it by then. */
  enum Point {
    /** git rebase stopped right after it checked out the base (a break before its first pick). */
    REBASE_AFTER_ITS_CHECKOUT("rebase", " rebase --quiet --no-autostash ",
        "GIT_SEQUENCE_EDITOR='sed -i 1ibreak' \"$real\" \"$@\" -i"),
    /** git rebase cut inside that checkout: the base's files written, the index not yet, its lock left. */
    REBASE_INSIDE_ITS_CHECKOUT("rebase", " rebase --quiet --no-autostash ", """
        for last; do :; done
        "$real" -C "$2" archive "$last" | tar -x -C "$2"
        touch "$("$real" -C "$2" rev-parse --absolute-git-dir)/index.lock"
        """),
    /** git rebase stopped after its first pick, the second phase commit not picked yet. */
    REBASE_BETWEEN_ITS_PICKS("rebase", " rebase --quiet --no-autostash ", "\"$real\" \"$@\" --exec false"),
    /** The squash moved the branch to the one commit that lands, the worktree not yet. */
    SQUASH_AFTER_IT_MOVED_THE_BRANCH("rebase", " update-ref -m orchestrate: squash to land ", "\"$real\" \"$@\""),
    /** merge: the worktree checked out at the base, detached, before the merge. */
    MERGE_AFTER_ITS_CHECKOUT("merge", " checkout --quiet --detach ", "\"$real\" \"$@\""),
    /** merge: the merge applied, not committed (a merge in progress). */
    MERGE_BEFORE_ITS_COMMIT("merge", " merge --quiet --no-ff ", "\"$real\" \"$@\" --no-commit"),
    /**
     * The last step: the fast-forward of the user's checkout cut inside its checkout, the gated
     * tip's files written over the checkout, git's index.lock left there (the person deletes it).
     */
    FAST_FORWARD_OF_THE_USERS_CHECKOUT("rebase", " merge --quiet --ff-only ", """
        for last; do :; done
        "$real" -C "$2" archive "$last" | tar -x -C "$2"
        touch "$("$real" -C "$2" rev-parse --absolute-git-dir)/index.lock"
        """),
    /**
     * Landing on a shared remote ({@code landing: remote}): the squash moved the branch, not yet
     * recorded, so the branch lacks the recorded commit, which that mode's check refuses.
     */
    SQUASH_ON_A_SHARED_REMOTE("rebase", " update-ref -m orchestrate: squash to land ", "\"$real\" \"$@\"");

    final String merge;
    final String command;
    final String action;

    Point(String merge, String command, String action) {
      this.merge = merge;
      this.command = command;
      this.action = action;
    }

    /** Whether the kill fell in the user's checkout rather than the item's worktree. */
    boolean inTheCheckout() {
      return this == FAST_FORWARD_OF_THE_USERS_CHECKOUT;
    }

    /** Whether the items land on a shared remote, {@code origin}, rather than in the checkout. */
    boolean remote() {
      return this == SQUASH_ON_A_SHARED_REMOTE;
    }
  }

  @ParameterizedTest
  @EnumSource(Point.class)
  void a_landing_step_cut_short_is_undone_and_the_item_lands_once_through_its_gate(Point point) throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Path origin = dir.resolve("origin.git");
    if (point.remote()) {
      repo.addBareOrigin(origin);
    }
    Path realGit = OnPath.find("git");
    Path fired = dir.resolve("fired");
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path wrapper = bin.resolve("git");
    Files.writeString(wrapper, """
        #!/bin/sh
        real='%s'
        case " $* " in
          *'%s'*)
            if [ ! -e '%s' ]; then
              touch '%s'
              %s
              kill -9 "$PPID"
              exit 137
            fi;;
        esac
        exec "$real" "$@"
        """.formatted(realGit, point.command, fired, fired, point.action.strip().replace("\n", "\n      ")));
    Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwx------"));
    // design also commits a person's change on main: the base moves on, so the landing must rebase or merge
    Files.writeString(dir.resolve("agent.sh"), """
        #!/usr/bin/env bash
        set -eu
        if [ "$ORCHESTRATE_PHASE" = design ]; then
          echo "the design" > design.txt
          cd "%1$s" && echo "a person's change" > person.txt && '%2$s' add person.txt \\
            && '%2$s' -c user.name=p -c user.email=p@example.com commit -q -m "a person's commit"
          %3$s
          echo designed; exit 0
        fi
        echo built > build.txt; echo built
        """.formatted(repo.dir, realGit, point.remote() ? "'" + realGit + "' push -q origin main" : ""));
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
        execution: {workspace: worktree, merge: %s, max_retries: 0%s}
        default_pipeline: p
        pipelines:
          p:
            integration_verify: [{name: tests, run: "test -f person.txt && test -f design.txt && test -f build.txt"}]
            phases:
              - {name: design, instructions: "Design."}
              - {name: build, instructions: "Build."}
        """.formatted(dir.resolve("agent.sh"), point.merge, point.remote() ? ", landing: remote" : ""));
    repo.write("backlog.yaml", "items:\n  - {id: A, title: a}\n");
    repo.commitAll("backlog");
    String start = repo.head("main");
    if (point.remote()) {
      repo.git("push", "--quiet", "origin", "main");
    }

    ProcessBuilder killed = Launcher.builder(repo.dir, "run").redirectErrorStream(true)
        .redirectOutput(dir.resolve("killed-run.txt").toFile());
    killed.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    Process runner = killed.start();
    assertTrue(runner.waitFor(120, TimeUnit.SECONDS), "the first run ended");
    String said = Files.readString(dir.resolve("killed-run.txt"));
    assertTrue(Files.exists(fired), point + ": the kill fell where it was meant to: " + said);
    assertEquals(137, runner.exitValue(), point + ": the runner was killed: " + said);
    Path mark = repo.dir.resolve(".orchestrate/worktrees/" + (point.inTheCheckout() ? "+fast-forward" : "+landing-A"));
    assertTrue(Files.exists(mark), point + ": the step's mark is left behind");
    // where the item lands: the checkout's main, or origin's
    GitRepo landed = point.remote() ? GitRepo.at(origin) : repo;
    assertEquals(start, landed.git("rev-parse", "main~1").strip(), point + ": nothing landed but the person's commit");

    if (point.inTheCheckout()) {
      // orchestrate never deletes a lock in the user's repository: it says which, and the person does
      Path lock = repo.dir.resolve(".git/index.lock");
      assertTrue(Files.exists(lock), point + ": git's lock is left in the checkout");
      Launcher.Result held = Launcher.run(repo.dir, "run");
      assertEquals(0, held.exitCode(), point + ": " + held.out() + held.err());
      assertTrue(held.out().contains("1 landing"), point + ": " + held.out() + held.err());
      assertTrue(held.err().contains("git's lock file " + lock + " exists") && held.err().contains("delete " + lock),
          point + ": the run names the lock to delete: " + held.err());
      assertTrue(Files.exists(lock) && Files.exists(mark), point + ": the lock and the mark are left as they were");
      Files.delete(lock);
    }
    Launcher.Result next = Launcher.run(repo.dir, "run");
    assertEquals(0, next.exitCode(), point + ": " + next.out() + next.err());
    assertTrue(next.out().contains("1 done"), point + ": the queue resumed by itself: " + next.out() + next.err()
        + "\nthe killed run said:\n" + said);
    assertFalse(Files.exists(mark), point + ": the mark is gone");
    assertTrue(next.err().contains(point.inTheCheckout()
        ? "the fast-forward of main in " + repo.dir + " was cut short by the end of an earlier run: put back"
        : "A: a landing step of an earlier run ended inside its worktree"), point + ": " + next.err());
    for (String file : List.of("person.txt", "design.txt", "build.txt")) {
      assertFalse(landed.git("ls-tree", "--name-only", "main", "--", file).isBlank(), point + ": " + file
          + " is on main: " + landed.git("log", "--stat", "main"));
    }
    assertEquals("", repo.git("status", "--porcelain"), point + ": the user's checkout is clean");
    Set<String> jobs = new HashSet<>();
    for (String trailer : landed.git("log", "--format=%(trailers:key=Orchestrate-Job,valueonly)", start + "..main")
        .lines().filter(l -> !l.isBlank()).toList()) {
      assertTrue(jobs.add(trailer.strip()), point + ": job " + trailer + " landed twice: " + landed.git("log",
          "--oneline", "main"));
    }
    assertEquals(2, jobs.size(), point + ": both phases landed: " + landed.git("log", "--format=%s%n%b", "main"));
  }
}
