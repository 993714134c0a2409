package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import dev.orchestrate.workspace.GitRepo;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mark of a landing step ({@code +landing-<ID>} beside the worktrees) decides whether what
 * the item's worktree holds is a step's leftovers, put back at the branch, or a person's change,
 * left alone (LandingStepCrashIT kills real runs inside each step).
 */
class InterruptedLandingTest {
  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private WorktreeSite site;
  private Path worktree;
  private Path mark;

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    repo.write(".gitignore", "cache/\n");
    repo.write("base.txt", "1\n");
    repo.commitAll("the project");
    // workspace.copy: a file of the checkout's, never committed, copied into each worktree
    GitRepo.write(repo.dir, ".env", "TOKEN=local\n");
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    site = WorktreeSite.open(repo.dir, ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE)
        .withPreparation(java.util.List.of(), java.util.List.of(".env")), state.workspaces(), Clock.systemUTC());
    worktree = site.prepare("A", repo.dir).workspace();
    GitRepo.write(worktree, "a.txt", "the work\n");
    site.succeed("A", "build", 1, "built");
    mark = repo.dir.resolve(".orchestrate/worktrees/+landing-A");
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  @Test
  void a_persons_change_with_no_step_cut_short_is_left_alone_and_holds_the_item() throws Exception {
    GitRepo.write(worktree, "a.txt", "a person's fix, not committed yet\n");
    GitRepo.write(worktree, "notes.txt", "a person's notes\n");
    IntegrationResult result = site.integrate("A", "a");
    assertEquals("deferred", result.kind(), result.message());
    assertTrue(result.message().contains("has uncommitted changes"), result.message());
    assertEquals("a person's fix, not committed yet\n", GitRepo.read(worktree.resolve("a.txt")));
    assertEquals("a person's notes\n", GitRepo.read(worktree.resolve("notes.txt")));
  }

  @Test
  void a_step_cut_short_is_put_back_at_the_branch_its_ignored_files_kept_and_the_item_lands() throws Exception {
    // what a rebase killed inside its checkout of the base leaves: a tracked file changed, an
    // untracked one written, a directory of them; git's ignored files (a build's cache) are not its
    Files.writeString(mark, "rebase\n");
    GitRepo.write(worktree, "a.txt", "half of the base's version\n");
    GitRepo.write(worktree, "from-the-base.txt", "x\n");
    GitRepo.write(worktree, "dir/deep.txt", "x\n");
    GitRepo.write(worktree, "cache/built.bin", "kept\n");

    WorkspaceRecord ws = state.workspaces().workspace("A").orElseThrow();
    assertTrue(site.worktrees.undoInterruptedLanding(ws, site.worktrees.verified(ws)));
    assertEquals("the work\n", GitRepo.read(worktree.resolve("a.txt")));
    assertFalse(Files.exists(worktree.resolve("from-the-base.txt")));
    assertFalse(Files.exists(worktree.resolve("dir")));
    assertEquals("kept\n", GitRepo.read(worktree.resolve("cache/built.bin")), "ignored files are not the step's");
    assertEquals("TOKEN=local\n", GitRepo.read(worktree.resolve(".env")), "nor the workspace.copy files");
    assertFalse(Files.exists(mark), "the mark is dropped");
    assertFalse(site.worktrees.undoInterruptedLanding(ws, site.worktrees.verified(ws)), "once");

    IntegrationResult result = site.integrate("A", "a");
    assertEquals("integrated", result.kind(), result.message());
    assertEquals("the work\n", GitRepo.read(repo.dir.resolve("a.txt")), "the branch's work landed, not the leftovers");
    assertFalse(Files.exists(repo.dir.resolve("from-the-base.txt")));
  }

  @Test
  void a_branch_a_cut_short_landing_moved_and_never_recorded_is_put_back_at_the_recorded_head() throws Exception {
    // a rebase done, its new commits not yet recorded when the run died: the branch lacks the
    // recorded head (its work copied onto the base's tip), which a shared remote's check refuses
    WorkspaceRecord ws = state.workspaces().workspace("A").orElseThrow();
    repo.write("person.txt", "a person's change\n");
    repo.git("add", "person.txt");
    repo.git("-c", "user.name=p", "-c", "user.email=p@example.com", "commit", "--quiet", "-m", "a person's commit");
    Files.writeString(mark, "rebase\n");
    repo.git(worktree, "-c", "user.name=o", "-c", "user.email=o@example.com", "rebase", "--quiet", "main");
    assertFalse(repo.head("orchestrate/A").equals(ws.headCommit()));

    assertTrue(site.worktrees.undoInterruptedLanding(ws, site.worktrees.verified(ws)));
    assertEquals(ws.headCommit(), repo.head("orchestrate/A"), "the branch is back at the recorded head");
    assertEquals("", repo.git(worktree, "status", "--porcelain", "--", ".", ":(exclude).env"));

    IntegrationResult result = site.integrate("A", "a");
    assertEquals("integrated", result.kind(), result.message());
    assertEquals("the work\n", GitRepo.read(repo.dir.resolve("a.txt")));
    assertEquals("a person's change\n", GitRepo.read(repo.dir.resolve("person.txt")));
  }

  @Test
  void a_directory_planted_where_the_mark_goes_is_removed_and_the_step_marked() throws Exception {
    GitRepo.write(mark, "planted.txt", "x\n");
    site.worktrees.landingStep("A", "rebase");
    assertTrue(Files.isRegularFile(mark, java.nio.file.LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void a_link_planted_where_the_mark_goes_is_replaced_never_written_through() throws Exception {
    Path target = Files.writeString(tmp.resolve("outside.txt"), "not orchestrate's\n");
    Files.createSymbolicLink(mark, target);
    site.worktrees.landingStep("A", "rebase");
    assertEquals("not orchestrate's\n", Files.readString(target));
    assertTrue(Files.isRegularFile(mark, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    site.worktrees.landingStepDone("A");
    assertFalse(Files.exists(mark, java.nio.file.LinkOption.NOFOLLOW_LINKS));
  }
}
