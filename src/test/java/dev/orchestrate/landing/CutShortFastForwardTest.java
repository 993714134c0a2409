package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a cut-short fast-forward of the user's checkout left is put back, and nothing else: a change
 * is the landing's own only when its content is exactly the marked tip's (real git, real files).
 */
class CutShortFastForwardTest {
  @TempDir
  Path tmp;

  private GitRepo repo;
  private String base;
  private String tip;
  private CutShortFastForward cutShort;

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    repo.write("kept.txt", "kept\n");
    repo.write("changed.txt", "before\n");
    repo.write("gone.txt", "gone at the tip\n");
    repo.commitAll("base");
    base = repo.head("main");
    repo.git("checkout", "--quiet", "-b", "landing");
    repo.write("changed.txt", "after\n");
    repo.write("new dir/new file.txt", "new\n");
    repo.git("rm", "--quiet", "gone.txt");
    repo.commitAll("the item");
    tip = repo.head("landing");
    repo.git("checkout", "--quiet", "main");
    Path common = repo.dir.resolve(".git");
    cutShort = new CutShortFastForward(new Git(), new Git.Place(repo.dir, common, common, repo.dir), repo.dir,
        Files.exists(tmp.resolve("worktrees")) ? tmp.resolve("worktrees") : mkdirs(tmp.resolve("worktrees")));
  }

  private static Path mkdirs(Path dir) {
    try {
      return Files.createDirectories(dir);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** What git's fast-forward leaves when it is killed after writing the files, before its index. */
  private void cutShortAfterTheFiles() throws Exception {
    Files.writeString(repo.dir.resolve("changed.txt"), "after\n");
    Files.createDirectories(repo.dir.resolve("new dir"));
    Files.writeString(repo.dir.resolve("new dir/new file.txt"), "new\n");
    Files.delete(repo.dir.resolve("gone.txt"));
  }

  @Test
  void exactly_what_the_fast_forward_wrote_is_put_back_and_the_fast_forward_then_succeeds() throws Exception {
    CutShortFastForward.Marked marked = new CutShortFastForward.Marked("refs/heads/main", base, tip);
    cutShort.mark(marked);
    assertEquals(marked, cutShort.read());
    cutShortAfterTheFiles();
    assertFalse(repo.git("status", "--porcelain").isBlank());

    List<String> undone = cutShort.undo(marked);

    assertEquals(3, undone.size(), undone.toString());
    assertEquals("", repo.git("status", "--porcelain"), "the checkout is as it was before the fast-forward");
    assertEquals("before\n", GitRepo.read(repo.dir.resolve("changed.txt")));
    repo.git("merge", "--quiet", "--ff-only", tip);
    assertEquals(tip, repo.head("main"));
  }

  @Test
  void a_persons_change_beside_them_leaves_everything_as_it_is() throws Exception {
    CutShortFastForward.Marked marked = new CutShortFastForward.Marked("refs/heads/main", base, tip);
    cutShortAfterTheFiles();
    Files.writeString(repo.dir.resolve("kept.txt"), "a person's edit\n");
    String before = repo.git("status", "--porcelain");

    assertNull(cutShort.undo(marked));

    assertEquals(before, repo.git("status", "--porcelain"), "nothing touched");
    assertEquals("a person's edit\n", GitRepo.read(repo.dir.resolve("kept.txt")));
    assertEquals("after\n", GitRepo.read(repo.dir.resolve("changed.txt")));
  }

  @Test
  void a_file_not_quite_the_tips_a_staged_change_or_a_new_file_of_a_persons_is_not_the_landings() throws Exception {
    CutShortFastForward.Marked marked = new CutShortFastForward.Marked("refs/heads/main", base, tip);
    Files.writeString(repo.dir.resolve("changed.txt"), "after, half written"); // cut inside the file
    assertNull(cutShort.undo(marked));
    assertEquals("after, half written", GitRepo.read(repo.dir.resolve("changed.txt")));

    Files.writeString(repo.dir.resolve("changed.txt"), "after\n");
    repo.git("add", "changed.txt"); // staged: git's index was written, or a person's
    assertNull(cutShort.undo(marked));
    repo.git("reset", "--quiet");

    Files.writeString(repo.dir.resolve("notes.txt"), "mine\n"); // not in the tip
    assertNull(cutShort.undo(marked));
    assertTrue(Files.exists(repo.dir.resolve("notes.txt")));
    assertEquals("after\n", GitRepo.read(repo.dir.resolve("changed.txt")));
  }

  @Test
  void a_mark_not_as_orchestrate_writes_it_is_none_and_a_link_there_is_replaced() throws Exception {
    Path mark = tmp.resolve("worktrees/+fast-forward");
    Files.writeString(mark, "refs/heads/main not-an-id " + tip + "\n");
    assertNull(cutShort.read());
    Files.delete(mark);
    Path target = Files.writeString(tmp.resolve("yours.txt"), "yours\n");
    Files.createSymbolicLink(mark, target);
    assertNull(cutShort.read(), "a link is not read");
    cutShort.mark(new CutShortFastForward.Marked("refs/heads/main", base, tip));
    assertEquals("yours\n", Files.readString(target));
    assertTrue(Files.isRegularFile(mark, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    cutShort.drop();
    assertFalse(Files.exists(mark, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    Files.createDirectories(mark.resolve("planted"));
    cutShort.mark(new CutShortFastForward.Marked("refs/heads/main", base, tip));
    assertTrue(Files.isRegularFile(mark, java.nio.file.LinkOption.NOFOLLOW_LINKS), "a directory there is removed");
  }
}
