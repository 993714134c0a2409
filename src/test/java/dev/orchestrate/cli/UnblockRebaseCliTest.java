package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code unblock --rebase} (issue 30, item 2): a blocked item's branch is brought onto the base
 * branch's current tip before its next attempt, so a fix committed there meanwhile is seen; a
 * conflict blocks it again naming the files; a person's own rebase of the branch is kept.
 */
class UnblockRebaseCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Phase one writes notes.txt (and, for item C, shared.txt); phase two needs tools/fix.sh, which
   * only a commit on main brings.
   */
  private static final String AGENT = """
      #!/usr/bin/env bash
      set -u
      if [ "$ORCHESTRATE_PHASE" = one ]; then
        echo "one by $ORCHESTRATE_ITEM_ID" > "notes-$ORCHESTRATE_ITEM_ID.txt"
        [ "$ORCHESTRATE_ITEM_ID" = C ] && echo "the agent's line" > shared.txt
        echo "phase one done"; exit 0
      fi
      [ -f tools/fix.sh ] || { echo "tools/fix.sh is missing" >&2; exit 1; }
      sh tools/fix.sh > "fixed-$ORCHESTRATE_ITEM_ID.txt"
      echo "phase two done"
      """;

  @TempDir
  Path tmp;

  private GitRepo repo;

  private void project(String item) throws Exception {
    repo = GitRepo.init(tmp.resolve("repo"));
    Path agent = tmp.resolve("agent.sh");
    Files.writeString(agent, AGENT);
    repo.write("backlog.yaml", "items:\n  - {id: " + item + ", title: an item}\n");
    repo.write("orchestrate.yaml", """
        agent:
          command: ["bash", "%s"]
          timeout: 60s
        execution: {workspace: worktree, max_retries: 0}
        default_pipeline: p
        pipelines:
          p:
            phases:
              - {name: one, instructions: "First."}
              - {name: two, instructions: "Second."}
        """.formatted(agent));
    repo.commitAll("project");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", repo.dir.resolve(".orchestrate").toString(), "--config",
        repo.dir.resolve("orchestrate.yaml").toString()));
    all.addAll(List.of(args));
    return CliRunner.runIn(repo.dir, Map.of(), all.toArray(String[]::new));
  }

  private CliRunner.Result run() {
    return cli("run", "--no-live", repo.dir.resolve("backlog.yaml").toString());
  }

  private JsonNode item(String id) throws Exception {
    CliRunner.Result r = cli("status", id, "--json");
    assertEquals(0, r.exitCode(), r.err());
    return JSON.readTree(r.out());
  }

  private String status(String id) throws Exception {
    JsonNode item = item(id);
    return item.has("item") ? item.path("item").path("status").asText() : item.path("status").asText();
  }

  private String blockedReason(String id) throws Exception {
    JsonNode item = item(id);
    return (item.has("item") ? item.path("item") : item).path("blocked_reason").asText();
  }

  private void commitFixOnMain() {
    repo.write("tools/fix.sh", "echo fixed\n");
    repo.commitAll("the missing tool");
  }

  @Test
  void a_fix_committed_on_the_base_branch_reaches_the_blocked_item_after_unblock_rebase() throws Exception {
    project("A");
    assertEquals(1, run().exitCode());
    assertEquals("blocked", status("A"));
    commitFixOnMain();

    // Without --rebase the item would start again from its recorded commit, without the fix.
    CliRunner.Result unblock = cli("unblock", "A", "--rebase", "--notes", "tools/fix.sh is on main now", "--json");
    assertEquals(0, unblock.exitCode(), unblock.err());
    JsonNode rebase = JSON.readTree(unblock.out()).path("items").get(0).path("rebase");
    assertEquals("rebased", rebase.path("result").asText(), unblock.out());
    assertEquals(repo.head("main"), rebase.path("base_commit").asText());
    assertEquals(repo.head("orchestrate/A"), rebase.path("head_commit").asText(), "the recorded start is the tip");
    assertFalse(rebase.path("kept_moved_branch").asBoolean());
    assertEquals("the missing tool", repo.git("log", "-1", "--format=%s", "orchestrate/A~1"),
        "phase one's commit is on top of the fix");

    CliRunner.Result second = run();
    assertEquals(0, second.exitCode(), second.out() + second.err());
    assertEquals("done", status("A"));
    assertEquals("fixed", repo.git("show", "main:fixed-A.txt"));
    assertEquals("one by A", repo.git("show", "main:notes-A.txt"), "phase one's commit survived the rebase");
  }

  @Test
  void a_plain_unblock_after_a_fix_on_the_base_branch_hints_at_rebase_where_the_user_decides() throws Exception {
    project("H");
    CliRunner.Result first = run();
    assertEquals(1, first.exitCode());
    assertTrue(first.out().contains("unblock ID --notes TEXT sends it back, with --rebase onto a fix committed on "
        + "the base branch): H"), first.out());
    CliRunner.Result before = cli("status", "H");
    assertFalse(before.out().contains("base moved"), "nothing landed on main yet: " + before.out());
    commitFixOnMain();
    repo.write("README.md", "a second commit\n");
    repo.commitAll("another");

    CliRunner.Result blocked = cli("status", "H");
    assertTrue(
        blocked.out().contains("base moved:    main has 2 commits this branch does not (landed since it forked); "
            + "unblock H --rebase --notes TEXT brings them into its next attempt"),
        blocked.out());
    assertEquals(2, item("H").path("item").path("branch_summary").path("base_ahead").asInt());

    CliRunner.Result unblock = cli("unblock", "H", "--notes", "tools/fix.sh is on main now");
    assertEquals(0, unblock.exitCode(), unblock.err());
    assertTrue(unblock.out().contains("hint: its base branch has 2 commits its branch does not (landed since it "
        + "forked), and its next attempt starts without them; when an item needs a fix committed there, unblock "
        + "--rebase brings it in"), unblock.out());
  }

  @Test
  void the_unblock_json_counts_the_base_commits_a_plain_unblock_leaves_out() throws Exception {
    project("J");
    run();
    commitFixOnMain();
    CliRunner.Result unblock = cli("unblock", "J", "--notes", "n", "--json");
    assertEquals(0, unblock.exitCode(), unblock.err());
    assertEquals(1, JSON.readTree(unblock.out()).path("items").get(0).path("base_ahead").asInt(), unblock.out());
    CliRunner.Result rebased = run();
    assertEquals(1, rebased.exitCode(), "without the fix phase two fails again: " + rebased.out());
  }

  @Test
  void a_conflicting_rebase_blocks_the_item_again_naming_the_files_and_a_hand_resolution_is_kept() throws Exception {
    project("C");
    assertEquals(1, run().exitCode());
    repo.write("shared.txt", "the user's line\n");
    commitFixOnMain();
    String recorded = repo.head("orchestrate/C");

    CliRunner.Result unblock = cli("unblock", "C", "--rebase", "--notes", "fixed on main");
    assertEquals(1, unblock.exitCode(), unblock.out() + unblock.err());
    Path worktree = repo.dir.resolve(".orchestrate/worktrees/C");
    assertEquals(List.of("orchestrate: error: rebasing orchestrate/C onto main conflicts in shared.txt: resolve it on "
        + "branch orchestrate/C in " + worktree + " (git rebase main, fix the files, git add them, git rebase "
        + "--continue), then unblock C --rebase"), unblock.err().lines().toList());
    assertEquals("blocked", status("C"));
    assertTrue(blockedReason("C").startsWith("rebasing orchestrate/C onto main conflicts in shared.txt"),
        blockedReason("C"));
    assertEquals(recorded, repo.head("orchestrate/C"), "the aborted rebase left the branch where it was");
    assertEquals("", repo.git(worktree, "status", "--porcelain"), "and the worktree clean");

    // The person resolves it on the branch, by hand; unblock --rebase keeps that resolution.
    Git hand = new Git(repo, worktree);
    hand.fails("rebase", "main");
    Files.writeString(worktree.resolve("shared.txt"), "both lines\n");
    hand.ok("add", "shared.txt");
    hand.ok("-c", "core.editor=true", "rebase", "--continue");
    String resolved = repo.head("orchestrate/C");

    CliRunner.Result again = cli("unblock", "C", "--rebase", "--notes", "resolved by hand");
    assertEquals(0, again.exitCode(), again.err());
    assertTrue(again.out().contains("orchestrate/C already holds main at " + repo.head("main").substring(0, 12)
        + " (from its tip " + resolved.substring(0, 12) + ", which had moved since orchestrate recorded it: your "
        + "commits on it are kept)"), again.out());

    CliRunner.Result second = run();
    assertEquals(0, second.exitCode(), second.out() + second.err());
    assertEquals("done", status("C"));
    assertEquals("both lines", repo.git("show", "main:shared.txt"));
    assertEquals("fixed", repo.git("show", "main:fixed-C.txt"));
  }

  @Test
  void rebase_is_refused_without_worktrees_and_leaves_the_item_blocked() throws Exception {
    project("S");
    Files.writeString(repo.dir.resolve("orchestrate.yaml"), Files.readString(repo.dir.resolve("orchestrate.yaml"))
        .replace("workspace: worktree", "workspace: shared"));
    run();
    assertEquals("blocked", status("S"));
    CliRunner.Result r = cli("unblock", "S", "--rebase", "--notes", "n");
    assertEquals(2, r.exitCode(), r.err());
    assertTrue(r.err().contains("--rebase needs execution.workspace: worktree"), r.err());
    assertEquals("blocked", status("S"));
  }

  /** git in a worktree, as a person runs it there. */
  private record Git(GitRepo repo, Path where) {
    void ok(String... args) {
      repo.git(where, args);
    }

    void fails(String... args) {
      try {
        repo.git(where, args);
      } catch (AssertionError expected) {
        return;
      }
      throw new AssertionError("git " + String.join(" ", args) + " succeeded");
    }
  }
}
