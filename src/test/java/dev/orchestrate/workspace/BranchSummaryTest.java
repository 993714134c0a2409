package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reviewer's summary of an item's branch: real git, bounded lists, the rest counted. */
class BranchSummaryTest {
  @TempDir
  Path tmp;

  private static WorkspaceRecord record(GitRepo repo, String branch) {
    return new WorkspaceRecord("A", repo.dir.resolve("wt"), branch, "main", repo.dir.resolve(".git/worktrees/A"),
        null, repo.head(branch), null, null, null, null, 0, Instant.EPOCH, null, null);
  }

  @Test
  void the_diff_is_taken_from_where_the_branch_forked_and_lists_files_and_commits() {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    repo.write("a.txt", "one\ntwo\nthree\n");
    repo.commitAll("base");
    repo.git("checkout", "-q", "-b", "orchestrate/A");
    repo.write("a.txt", "one\nTWO\nthree\nfour\n");
    repo.write("b.bin", "\0\1\2");
    repo.commitAll("phase build");
    repo.git("checkout", "-q", "main");
    repo.write("c.txt", "a commit on main after the fork\n");
    repo.commitAll("user's work");

    BranchSummary s = BranchSummary.of(new Git(), record(repo, "orchestrate/A")).orElseThrow();
    assertEquals(2, s.filesChanged(), "c.txt is on main only: not the branch's change");
    assertEquals(2, s.added());
    assertEquals(1, s.removed());
    assertEquals(List.of(new BranchSummary.FileChange("a.txt", 2L, 1L), new BranchSummary.FileChange("b.bin", null,
        null)), s.files());
    assertEquals(1, s.commitCount());
    assertEquals("phase build", s.commits().get(0).subject());
    assertEquals(repo.git("rev-parse", "--short", "orchestrate/A"), s.commits().get(0).id());
  }

  @Test
  void files_and_commits_beyond_fifty_are_counted_not_listed() {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    repo.write("seed.txt", "seed\n");
    repo.commitAll("base");
    repo.git("checkout", "-q", "-b", "orchestrate/A");
    for (int i = 0; i < 53; i++) {
      repo.write("f" + i + ".txt", "line\n");
      repo.commitAll("commit " + i);
    }
    BranchSummary s = BranchSummary.of(new Git(), record(repo, "orchestrate/A")).orElseThrow();
    assertEquals(53, s.filesChanged());
    assertEquals(53, s.added());
    assertEquals(BranchSummary.MAX_FILES, s.files().size());
    assertEquals(3, s.filesNotListed());
    assertEquals(53, s.commitCount());
    assertEquals(BranchSummary.MAX_COMMITS, s.commits().size());
    assertEquals(3, s.commitsNotListed());
    assertEquals("commit 52", s.commits().get(0).subject(), "newest first");
  }

  @Test
  void a_branch_that_is_gone_gives_no_summary_rather_than_an_error() {
    GitRepo repo = GitRepo.init(tmp.resolve("repo"));
    repo.write("seed.txt", "seed\n");
    repo.commitAll("base");
    WorkspaceRecord ws = record(repo, "main");
    WorkspaceRecord gone = new WorkspaceRecord("A", ws.path(), "orchestrate/gone", "main", ws.gitDir(), null,
        ws.headCommit(), null, null, null, null, 0, Instant.EPOCH, null, null);
    assertTrue(BranchSummary.of(new Git(), gone).isEmpty());
    WorkspaceRecord noRepo = new WorkspaceRecord("A", ws.path(), "main", "main", tmp.resolve("nowhere/w/A"), null,
        ws.headCommit(), null, null, null, null, 0, Instant.EPOCH, null, null);
    assertNull(BranchSummary.of(new Git(), noRepo).orElse(null));
  }
}
