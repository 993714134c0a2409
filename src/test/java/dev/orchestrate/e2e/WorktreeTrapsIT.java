package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two worktree traps a newcomer fell into (issue 30, items 1 and 2), through the real launcher in a
 * real git repository: an agent script the user has not committed, and a blocked item that never
 * saw the fix committed on the base branch.
 */
class WorktreeTrapsIT {
  @TempDir
  Path dir;

  private Path state(GitRepo repo) {
    return repo.dir.resolve(".orchestrate");
  }

  private static String itemStatus(Path state, String id) {
    return Stored.items(state).stream().filter(i -> i.id().equals(id)).findFirst().map(i -> i.status().key())
        .orElseThrow();
  }

  // ---------------------------------------------------------------- item 1

  @Test
  void inits_example_agent_left_uncommitted_runs_in_every_worktree_and_every_item_is_done() throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    Launcher.Result init = Launcher.run(repo.dir, "init");
    assertEquals(0, init.exitCode(), init.err());
    Path config = repo.dir.resolve("orchestrate.yaml");
    String text = Files.readString(config);
    assertTrue(text.matches("(?s).*\\n  workspace: shared\\b.*"), "init's config sets workspace: shared");
    Files.writeString(config, text.replaceFirst("\\n  workspace: shared\\b", "\n  workspace: worktree"));
    repo.git("add", "orchestrate.yaml", "backlog.yaml");
    repo.git("commit", "--quiet", "-m", "orchestrate's config and backlog, not the example agent");
    assertEquals("", repo.git("ls-files", "agents"), "the agent script is not committed");

    Launcher.Result plan = Launcher.run(repo.dir, "run", "--dry-run");
    assertEquals(0, plan.exitCode(), plan.err());
    Path script = repo.dir.toRealPath().resolve("agents/example-agent.sh");
    assertTrue(plan.out().contains(", running " + script + " (from your checkout, also for agents in worktrees)")
        || plan.out().contains(", running " + repo.dir.resolve("agents/example-agent.sh")), plan.out());

    Launcher.Result run = Launcher.run(repo.dir, "run", "--no-live");

    assertEquals(0, run.exitCode(), run.out() + run.err());
    List<ItemState> items = Stored.items(state(repo));
    assertEquals(List.of("done", "done"), items.stream().map(i -> i.status().key()).toList(), run.err());
    assertTrue(Stored.jobs(state(repo)).stream().allMatch(j -> j.state() == JobState.COMPLETED),
        "no attempt failed (exit 127 before): " + Stored.states(Stored.jobs(state(repo))));
  }

  // ---------------------------------------------------------------- item 2

  /**
   * Phase one records notes (and, with {@code SHARED} set, writes shared.txt); phase two needs
   * tools/fix.sh, which the project lacks until the user commits it on main. The agent script is
   * the user's and uncommitted, named relative to the project (item 1 again).
   */
  private GitRepo blockedProject(boolean shared) throws Exception {
    GitRepo repo = GitRepo.init(dir.resolve("repo"));
    repo.write("backlog.yaml", "items:\n  - {id: B-1, title: needs the tool}\n");
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "agents/agent.sh"]
          env: {SHARED: "%s"}
          timeout: 60s
          kill_grace: 1s
        execution: {workspace: worktree, max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: one, instructions: "Take notes."}
              - {name: two, instructions: "Run the tool."}
        """.formatted(shared ? "yes" : ""));
    repo.commitAll("project");
    Files.createDirectories(repo.dir.resolve("agents"));
    Files.writeString(repo.dir.resolve("agents/agent.sh"), """
        set -u
        if [ "$ORCHESTRATE_PHASE" = one ]; then
          echo "notes of $ORCHESTRATE_ITEM_ID" > notes.txt
          [ -n "$SHARED" ] && echo "the agent's line" > shared.txt
          echo "took notes"; exit 0
        fi
        [ -f tools/fix.sh ] || { echo "tools/fix.sh: No such file or directory" >&2; exit 1; }
        sh tools/fix.sh > fixed.txt
        echo "ran the tool"
        """);
    Launcher.Result first = Launcher.run(repo.dir, "run", "--no-live");
    assertEquals(1, first.exitCode(), first.out() + first.err());
    assertEquals("blocked", itemStatus(state(repo), "B-1"));
    repo.write("tools/fix.sh", "echo fixed by the tool\n");
    if (shared) {
      repo.write("shared.txt", "the user's line\n");
    }
    repo.git("add", "tools");
    if (shared) {
      repo.git("add", "shared.txt");
    }
    repo.git("commit", "--quiet", "-m", "the missing tool");
    return repo;
  }

  @Test
  void after_the_fix_is_committed_on_main_unblock_rebase_lets_the_next_attempt_see_it_and_the_item_integrates()
      throws Exception {
    GitRepo repo = blockedProject(false);

    // A plain unblock retries from the recorded commit: the same failure (the trap).
    assertEquals(0, Launcher.run(repo.dir, "unblock", "B-1", "--notes", "try again").exitCode());
    assertEquals(1, Launcher.run(repo.dir, "run", "--no-live").exitCode());
    assertEquals("blocked", itemStatus(state(repo), "B-1"));

    Launcher.Result unblock = Launcher.run(repo.dir, "unblock", "B-1", "--rebase", "--notes", "the tool is on main");
    assertEquals(0, unblock.exitCode(), unblock.err());
    assertTrue(unblock.out().contains("orchestrate/B-1 rebased onto main at " + repo.head("main").substring(0, 12)),
        unblock.out());

    Launcher.Result run = Launcher.run(repo.dir, "run", "--no-live");
    assertEquals(0, run.exitCode(), run.out() + run.err());
    assertEquals("done", itemStatus(state(repo), "B-1"));
    assertEquals("fixed by the tool", repo.git("show", "main:fixed.txt"));
    assertEquals("notes of B-1", repo.git("show", "main:notes.txt"), "phase one's commit came along");
  }

  @Test
  void a_rebase_that_conflicts_blocks_the_item_again_with_the_files_named() throws Exception {
    GitRepo repo = blockedProject(true);
    String recorded = repo.head("orchestrate/B-1");

    Launcher.Result unblock = Launcher.run(repo.dir, "unblock", "B-1", "--rebase", "--notes", "the tool is on main");

    assertEquals(1, unblock.exitCode(), unblock.out() + unblock.err());
    assertTrue(unblock.err().startsWith("orchestrate: error: rebasing orchestrate/B-1 onto main conflicts in "
        + "shared.txt: resolve it on branch orchestrate/B-1 in "), unblock.err());
    assertEquals("blocked", itemStatus(state(repo), "B-1"));
    Launcher.Result status = Launcher.run(repo.dir, "status");
    assertTrue(status.out().contains("conflicts in shared.txt"), status.out());
    assertEquals(recorded, repo.head("orchestrate/B-1"), "the branch is where it was");
    assertEquals("the user's line", repo.git("show", "main:shared.txt"), "main is untouched");
  }
}
