package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.Placement;
import dev.orchestrate.item.WorkspaceUnavailableException;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a worktree gets before an agent and what never leaves it (issue 29, docs/verification.md):
 * {@code workspace.copy} files, {@code workspace.setup} once per new worktree, a kept worktree for a
 * resumed session, and files git ignores kept out of phase commits. Real git, a real state database.
 */
class WorktreePreparationTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(Worktrees.class, BaseRefs.class, WorktreeGuard.class,
      WorktreeRetention.class);

  private static final String SECRET = "API_KEY=sk-unit-0123456789\n";
  private static final List<ProjectCommand> SETUP = List
      .of(ProjectCommand.shell("deps", "npm ci", Duration.ofMinutes(1)));

  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private WorkspaceStore store;

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    store = state.workspaces();
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  private Worktrees worktrees(List<ProjectCommand> setup, List<String> copy) {
    WorkspaceConfig config = ConfigWithers
        .withDeleteMergedBranches(ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE),
            false)
        .withPreparation(setup, copy);
    Repository repository = Repository.discover(new Git(), repo.dir, null);
    return new Worktrees(new Git(), repository, config, RetentionConfig.WorktreePolicy.DEFAULT, store,
        repo.dir.resolve(".orchestrate/worktrees"), Clock.fixed(Instant.parse("2026-11-01T00:00:00Z"), ZoneOffset.UTC))
        .open();
  }

  @Test
  void on_a_large_repository_new_worktrees_are_checked_out_apart_from_their_making_and_hold_every_file()
      throws Exception {
    // an index over Worktrees.LARGE_INDEX_BYTES: worktree add --no-checkout under the lock, then reset --hard
    for (int i = 0; i < 6_000; i++) {
      Path file = repo.dir.resolve(String.format("src/module-%02d/a-file-with-a-longer-name-%05d.txt", i % 40, i));
      Files.createDirectories(file.getParent());
      Files.writeString(file, i + "\n");
    }
    repo.commitAll("many files");
    assertTrue(Files.size(repo.dir.resolve(".git/index")) > Worktrees.LARGE_INDEX_BYTES, "the index is large");
    Worktrees w = worktrees(List.of(), List.of());
    for (String id : List.of("A", "B")) {
      Path ws = w.prepare(id, repo.dir, false).workspace();
      assertEquals("", repo.git(ws, "status", "--porcelain").strip(), id + ": every file checked out, nothing staged");
      assertEquals("4321\n", Files.readString(ws.resolve("src/module-01/a-file-with-a-longer-name-04321.txt")));
      assertEquals("orchestrate/" + id, repo.git(ws, "symbolic-ref", "--short", "HEAD").strip());
      GitRepo.write(ws, id + ".txt", id + "\n");
      String commit = w.commit(id, "build", 1, 1, "built " + id);
      assertEquals(List.of(id + ".txt"), List.of(repo.git(ws, "diff-tree", "--no-commit-id", "--name-only", "-r",
          commit).strip()), "the phase commit holds the agent's file alone");
    }
  }

  private void ignoreEnv() {
    repo.write(".gitignore", "build/\n.env\n");
    repo.commitAll("ignore .env");
  }

  private String history() {
    return repo.git("log", "--all", "-p", "--format=commit %H %s");
  }

  @Test
  void a_copied_env_is_in_the_worktree_and_stays_out_of_the_phase_commit_though_the_agent_forced_it_in()
      throws Exception {
    ignoreEnv();
    GitRepo.write(repo.dir, ".env", SECRET);
    Worktrees w = worktrees(List.of(), List.of(".env"));
    Path ws = w.prepare("A", repo.dir).workspace();
    assertEquals(SECRET, GitRepo.read(ws.resolve(".env")));
    GitRepo.write(ws, "work.txt", "work\n");
    repo.git(ws, "add", "-f", ".env");
    String commit = w.commit("A", "build", 1, 1, "built");
    w.committed("A");
    assertNotNull(commit);
    assertEquals("work.txt", repo.git(ws, "show", "--name-only", "--format=", commit));
    assertEquals(SECRET, GitRepo.read(ws.resolve(".env")), "the worktree keeps its copy");
    assertFalse(history().contains("sk-unit"));
  }

  @Test
  void a_copy_path_git_does_not_ignore_is_copied_again_after_the_reset_and_never_committed() {
    GitRepo.write(repo.dir, ".env", SECRET);
    Worktrees w = worktrees(List.of(), List.of(".env"));
    Path ws = w.prepare("A", repo.dir).workspace();
    repo.git(ws, "add", ".env");
    repo.git(ws, "-c", "user.name=agent", "-c", "user.email=a@b", "commit", "--quiet", "-m", "agent: env");
    assertNull(w.commit("A", "build", 1, 1, "built"), "only the .env changed: nothing to commit");
    GitRepo.write(ws, ".env", "API_KEY=changed by the agent\n");
    w.prepare("A", repo.dir); // the reset's clean removes the untracked .env; the copy brings it back
    assertEquals(SECRET, GitRepo.read(ws.resolve(".env")));
    assertFalse(history().contains("sk-unit"));
  }

  @Test
  void a_copy_path_the_user_tracks_is_refused_when_the_worktrees_open() {
    repo.write("config/local.yml", "db: local\n");
    repo.commitAll("tracked");
    WorkspaceSetupException e = assertThrows(WorkspaceSetupException.class,
        () -> worktrees(List.of(), List.of("config/local.yml")));
    assertTrue(e.getMessage().startsWith("workspace.copy: config/local.yml is tracked by git"), e.getMessage());
    WorkspaceSetupException missing = assertThrows(WorkspaceSetupException.class,
        () -> worktrees(List.of(), List.of(".env")));
    assertTrue(missing.getMessage().contains(".env is not a file"), missing.getMessage());
  }

  @Test
  void a_directory_on_the_copy_path_that_the_agent_made_a_link_is_refused_and_nothing_is_copied_through_it()
      throws Exception {
    repo.write(".gitignore", "build/\nconf\n");
    repo.commitAll("ignore conf");
    GitRepo.write(repo.dir, "conf/local.yml", "db: secret\n");
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Worktrees w = worktrees(List.of(), List.of("conf/local.yml"));
    Path ws = w.prepare("A", repo.dir).workspace();
    assertEquals("db: secret\n", GitRepo.read(ws.resolve("conf/local.yml")));
    DiskUsage.delete(ws.resolve("conf"));
    Files.createSymbolicLink(ws.resolve("conf"), outside);
    WorkspaceUnavailableException e = assertThrows(WorkspaceUnavailableException.class, () -> w.prepare("A", repo.dir));
    assertTrue(e.getMessage().contains("workspace.copy: conf in the worktree"), e.getMessage());
    assertTrue(e.getMessage().contains("is a link"), e.getMessage());
    try (var files = Files.list(outside)) {
      assertEquals(0, files.count(), "nothing written through the link");
    }
  }

  @Test
  void a_link_at_the_copy_destination_is_replaced_not_followed() throws Exception {
    ignoreEnv();
    GitRepo.write(repo.dir, ".env", SECRET);
    Path victim = tmp.resolve("victim.txt");
    Files.writeString(victim, "keep me\n");
    Worktrees w = worktrees(List.of(), List.of(".env"));
    Path ws = w.prepare("A", repo.dir).workspace();
    Files.delete(ws.resolve(".env"));
    Files.createSymbolicLink(ws.resolve(".env"), victim);
    w.prepare("A", repo.dir);
    assertEquals("keep me\n", Files.readString(victim));
    assertFalse(Files.isSymbolicLink(ws.resolve(".env")));
    assertEquals(SECRET, GitRepo.read(ws.resolve(".env")));
  }

  @Test
  void files_git_ignores_that_the_agent_added_are_not_committed_but_an_ignored_file_the_branch_tracks_is() {
    repo.write("build/keep.txt", "v1\n");
    repo.git("add", "-f", "build/keep.txt");
    repo.commitAll("tracked on purpose");
    Worktrees w = worktrees(List.of(), List.of());
    Path ws = w.prepare("A", repo.dir).workspace();
    GitRepo.write(ws, "build/out.bin", "derived\n");
    GitRepo.write(ws, "build/keep.txt", "v2\n");
    GitRepo.write(ws, "src.txt", "code\n");
    repo.git(ws, "add", "-f", "build/out.bin");
    GitRepo.write(ws, "build/late.bin", "more\n");
    repo.git(ws, "add", "-f", "build/late.bin");
    repo.git(ws, "-c", "user.name=agent", "-c", "user.email=a@b", "commit", "--quiet", "-m", "agent: output");
    String commit = w.commit("A", "build", 1, 1, "built");
    List<String> files = repo.git(ws, "show", "--name-only", "--format=", commit).lines().sorted().toList();
    assertEquals(List.of("build/keep.txt", "src.txt"), files);
    assertEquals("v2", repo.git(ws, "show", commit + ":build/keep.txt"));
    assertTrue(Files.exists(ws.resolve("build/out.bin")), "left on disk, only out of the commit");
  }

  @Test
  void the_agents_own_commit_is_taken_off_its_branch_when_its_attempt_ends_with_its_files_kept() {
    ignoreEnv();
    GitRepo.write(repo.dir, ".env", SECRET);
    Worktrees w = worktrees(List.of(), List.of(".env"));
    Path ws = w.prepare("A", repo.dir).workspace();
    String start = repo.head("orchestrate/A");
    GitRepo.write(ws, "work.txt", "work\n");
    repo.git(ws, "add", "-f", ".env", "work.txt");
    repo.git(ws, "-c", "user.name=agent", "-c", "user.email=a@b", "commit", "--quiet", "-m", "agent: my work");
    assertNull(w.inspect("A"));
    assertEquals(start, repo.head("orchestrate/A"));
    assertFalse(history().contains("sk-unit"));
    assertEquals("work\n", GitRepo.read(ws.resolve("work.txt")));
    assertTrue(repo.git(ws, "diff", "--cached", "--name-only").contains("work.txt"), "still staged");

    // detached, then committed: HEAD goes back on the branch, so the commit is on no ref
    repo.git(ws, "checkout", "--quiet", "--detach");
    repo.git(ws, "-c", "user.name=agent", "-c", "user.email=a@b", "commit", "--quiet", "-m", "agent: detached");
    assertNull(w.inspect("A"));
    assertEquals("orchestrate/A", repo.git(ws, "symbolic-ref", "--short", "HEAD"));
    assertFalse(history().contains("sk-unit"));
    assertFalse(history().contains("agent: detached"));
  }

  @Test
  void set_up_is_asked_for_until_it_ran_once_and_again_for_a_worktree_made_anew() throws Exception {
    Worktrees w = worktrees(SETUP, List.of());
    Placement first = w.prepare("A", repo.dir);
    assertEquals(SETUP, first.setup());
    assertEquals(SETUP, w.prepare("A", repo.dir).setup(), "it has not run to the end yet");
    w.setUp("A");
    assertEquals(List.of(), w.prepare("A", repo.dir).setup());
    assertEquals(List.of(), w.prepare("A", repo.dir, true).setup());
    repo.git("worktree", "remove", "--force", first.workspace().toString());
    Placement again = w.prepare("A", repo.dir, true);
    assertEquals(SETUP, again.setup(), "a new directory: its installed dependencies are gone");
    assertFalse(again.kept(), "made anew, so nothing of the last attempt is there to continue");
  }

  @Test
  void a_kept_worktree_holds_the_last_attempts_edits_and_a_reset_one_does_not() {
    Worktrees w = worktrees(List.of(), List.of());
    Path ws = w.prepare("A", repo.dir).workspace();
    GitRepo.write(ws, "README.md", "edited\n");
    GitRepo.write(ws, "new.txt", "new\n");
    Placement kept = w.prepare("A", repo.dir, true);
    assertTrue(kept.kept());
    assertEquals("edited\n", GitRepo.read(ws.resolve("README.md")));
    assertTrue(Files.exists(ws.resolve("new.txt")));
    Placement reset = w.prepare("A", repo.dir, false);
    assertFalse(reset.kept());
    assertEquals("hello\n", GitRepo.read(ws.resolve("README.md")));
    assertFalse(Files.exists(ws.resolve("new.txt")));
  }

  @Test
  void an_attempt_that_changed_only_ignored_and_copied_files_makes_no_commit() {
    ignoreEnv();
    GitRepo.write(repo.dir, ".env", SECRET);
    Worktrees w = worktrees(List.of(), List.of(".env"));
    Path ws = w.prepare("A", repo.dir).workspace();
    GitRepo.write(ws, "build/out.bin", "derived\n");
    GitRepo.write(ws, ".env", "API_KEY=edited\n");
    repo.git(ws, "add", "-f", ".env", "build/out.bin");
    assertNull(w.commit("A", "build", 1, 1, "built"), "changes: required counts this as no change");
  }
}
