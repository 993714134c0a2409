package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Landed worktrees kept for the next items' ({@link SpareWorktrees}), on real git; most tests count
 * the repository large whatever its size (its checkouts made outside `worktree add`'s lock), so
 * that a test needs no 10,000 files.
 */
class SpareWorktreesTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-01T00:00:00Z"), ZoneOffset.UTC);

  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private Path root;

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project")); // its .gitignore has build/
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    root = repo.dir.resolve(".orchestrate/worktrees");
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  private WorktreeSite site(boolean large) {
    WorkspaceConfig config = ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE);
    WorktreeSite site = WorktreeSite.open(repo.dir, repo.dir.resolve(".orchestrate"), config,
        RetentionConfig.WorktreePolicy.DEFAULT, state.workspaces(), CLOCK);
    site.worktrees.large(large).keepingSpares();
    return site;
  }

  /** The item prepared, one phase committed with {@code file}, and landed. */
  private void land(WorktreeSite w, String id, String file) {
    Path ws = w.prepare(id, repo.dir).workspace();
    GitRepo.write(ws, file, id + "\n");
    w.succeed(id, "build", 1, "wrote " + file);
    IntegrationResult result = w.integrate(id, "Item " + id);
    assertEquals("integrated", result.kind(), result.message());
  }

  /** A landed, its worktree kept, its administrative directory marked as A's. */
  private Path landedAndMarked(WorktreeSite w) throws Exception {
    land(w, "A", "a.txt");
    Path spare = root.resolve(kept().get(0));
    Files.writeString(adminOf(spare).resolve(MARKER), "A's");
    return spare;
  }

  private List<String> kept() throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      return entries.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(SpareWorktrees.PREFIX) && !n.endsWith(".lock")).sorted()
          .toList();
    }
  }

  /** The work trees git knows, the user's checkout first. */
  private List<String> registered() {
    return repo.git("worktree", "list", "--porcelain").lines().filter(l -> l.startsWith("worktree "))
        .map(l -> Path.of(l.substring("worktree ".length())).getFileName().toString()).toList();
  }

  /** Item A prepared and its one phase committed with {@code a.txt}: its worktree. */
  private Path builtA(WorktreeSite w) {
    Path a = w.prepare("A", repo.dir).workspace();
    GitRepo.write(a, "a.txt", "a\n");
    w.succeed("A", "build", 1, "built a");
    return a;
  }

  @Test
  void a_landed_worktree_becomes_the_next_items_with_nothing_its_agent_left() throws Exception {
    WorktreeSite w = site(true);
    Path a = builtA(w);
    Object readme = Files.getAttribute(a.resolve("README.md"), "unix:ino");
    Files.writeString(adminOf(a).resolve(MARKER), "A's"); // git moves a worktree with its administrative directory
    GitRepo.write(a, "build/out.bin", "an agent's build output\n"); // ignored
    IntegrationResult landed = w.integrate("A", "Item A");
    assertEquals("integrated", landed.kind(), landed.message());

    assertFalse(Files.exists(a), "the landed worktree left its item's directory");
    assertEquals(1, kept().size(), "and was kept: " + kept());
    assertEquals("", repo.git("branch", "--list", "orchestrate/A"), "its branch deleted all the same");
    GitRepo.write(root.resolve(kept().get(0)), "notes/stray.txt", "left behind\n"); // untracked

    Path b = w.prepare("B", repo.dir).workspace();
    assertEquals(List.of(), kept(), "taken by the next item");
    assertTrue(Files.exists(adminOf(b).resolve(MARKER)), "A's worktree, moved");
    assertEquals(readme, Files.getAttribute(b.resolve("README.md"), "unix:ino"), "the kept files, not new ones");
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
    assertEquals(repo.head("main"), repo.git(b, "rev-parse", "HEAD"), "at the base, A's work included");
    assertEquals("a\n", GitRepo.read(b.resolve("a.txt")));
    assertFalse(Files.exists(b.resolve("build")), "an ignored build output does not reach the next item");
    assertFalse(Files.exists(b.resolve("notes")), "nor an untracked file");
    assertEquals("", repo.git(b, "status", "--porcelain", "--ignored"));

    GitRepo.write(b, "b.txt", "b\n");
    w.succeed("B", "build", 1, "built b");
    IntegrationResult second = w.integrate("B", "Item B");
    assertEquals("integrated", second.kind(), second.message());
    assertEquals(List.of("B build: built b", "A build: built a", "init"),
        repo.subjects("main"));

    w.worktrees.runEnded();
    assertEquals(List.of(), kept(), "the run's end deletes what is kept");
    assertEquals(List.of("project"), registered(), "and git's registry has only the user's checkout");
  }

  @Test
  void no_more_than_four_are_kept_the_others_are_deleted() throws Exception {
    WorktreeSite w = site(true);
    for (String id : List.of("A", "B", "C", "D", "E", "F")) {
      Path ws = w.prepare(id, repo.dir).workspace();
      GitRepo.write(ws, id + ".txt", id + "\n");
      w.succeed(id, "build", 1, "wrote " + id);
    }
    for (String id : List.of("A", "B", "C", "D", "E", "F")) {
      IntegrationResult result = w.integrate(id, "Item " + id);
      assertEquals("integrated", result.kind(), result.message());
    }
    assertEquals(SpareWorktrees.MAX, kept().size(), kept().toString());
    assertEquals(1 + SpareWorktrees.MAX, registered().size(), registered().toString());
    w.worktrees.runEnded();
    assertEquals(List.of(), kept());
    assertEquals(List.of("project"), registered());
  }

  @Test
  void a_small_repository_keeps_a_landed_worktree_too() throws Exception {
    WorktreeSite w = site(false); // its checkouts made inside `worktree add`
    land(w, "A", "a.txt");
    assertEquals(1, kept().size(), "kept: " + kept());
    Path b = w.prepare("B", repo.dir).workspace();
    assertEquals(List.of(), kept(), "taken by the next item");
    assertEquals("A\n", GitRepo.read(b.resolve("a.txt")));
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
    assertEquals("", repo.git(b, "status", "--porcelain", "--ignored"));
    w.worktrees.runEnded();
    assertEquals(List.of("project", "B"), registered(), "B's own worktree, none kept");
  }

  @Test
  void without_a_run_a_landed_worktree_is_deleted_as_before() throws Exception {
    WorkspaceConfig config = ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE);
    WorktreeSite w = WorktreeSite.open(repo.dir, repo.dir.resolve(".orchestrate"), config,
        RetentionConfig.WorktreePolicy.DEFAULT, state.workspaces(), CLOCK); // a one-shot command: none kept
    land(w, "A", "a.txt");
    assertEquals(List.of(), kept());
    assertEquals(List.of("project"), registered());
  }

  @Test
  void a_worktree_git_will_not_move_is_deleted_and_the_next_item_gets_a_new_one() throws Exception {
    WorktreeSite w = site(true);
    Path a = builtA(w);
    Files.writeString(adminOf(a).resolve(MARKER), "A's");
    repo.git("worktree", "lock", "--reason", "an agent's", a.toString()); // git moves no locked worktree
    IntegrationResult landed = w.integrate("A", "Item A");
    assertEquals("integrated", landed.kind(), landed.message());
    assertFalse(Files.exists(a));
    assertEquals(List.of(), kept());
    Path b = w.prepare("B", repo.dir).workspace();
    // a new worktree: not A's moved (an inode number is no proof either way: ext4 reuses a deleted one)
    assertFalse(Files.exists(adminOf(b).resolve(MARKER)), "a new worktree, not A's");
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
  }

  @Test
  void a_kept_worktree_replaced_by_a_link_is_dropped_without_following_it() throws Exception {
    WorktreeSite w = site(true);
    land(w, "A", "a.txt");
    Path spare = root.resolve(kept().get(0));
    Path elsewhere = tmp.resolve("elsewhere");
    Files.move(spare, elsewhere);
    Files.createSymbolicLink(spare, elsewhere);

    Path b = w.prepare("B", repo.dir).workspace();

    assertEquals(List.of(), kept(), "the link is gone");
    assertTrue(Files.isRegularFile(elsewhere.resolve("README.md")), "and nothing was deleted through it");
    assertFalse(Files.isSymbolicLink(b));
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
    assertEquals("A\n", GitRepo.read(b.resolve("a.txt")));
  }

  @Test
  void what_a_killed_run_kept_is_deleted_when_the_next_opens_unless_its_runner_still_holds_its_lock()
      throws Exception {
    Files.createDirectories(root);
    Path dead = root.resolve(SpareWorktrees.PREFIX + "7x1dead-1"); // its lock file, held by nobody
    Path deadLock = root.resolve(SpareWorktrees.PREFIX + "7x1dead.lock");
    Path alive = root.resolve(SpareWorktrees.PREFIX + "7x2live-1"); // another runner's, at work
    Path aliveLock = root.resolve(SpareWorktrees.PREFIX + "7x2live.lock");
    repo.git("worktree", "add", "--quiet", "--detach", dead.toString());
    repo.git("worktree", "add", "--quiet", "--detach", alive.toString());
    Files.createFile(deadLock);
    try (FileChannel held = FileChannel.open(aliveLock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = held.lock()) {

      site(true);

      assertFalse(Files.exists(dead));
      assertFalse(Files.exists(deadLock));
      assertTrue(Files.isDirectory(alive));
      assertTrue(Files.exists(aliveLock));
      assertEquals(List.of("project", alive.getFileName().toString()), registered());
    }
  }

  @Test
  void a_leftover_an_agent_planted_naming_another_items_git_directory_deletes_only_itself() throws Exception {
    WorktreeSite w = site(true);
    Path a = builtA(w);
    Path admin = repo.dir.resolve(".git/worktrees/A");
    assertTrue(Files.isDirectory(admin));
    Path planted = root.resolve(SpareWorktrees.PREFIX + "7x3evil-1");
    GitRepo.write(planted, ".git", "gitdir: " + admin + "\n"); // no lock file: looks like a killed run's

    site(true);

    assertFalse(Files.exists(planted));
    assertTrue(Files.isDirectory(admin), "item A's git directory is not the leftover's to delete");
    assertEquals("orchestrate/A", repo.git(a, "symbolic-ref", "--short", "HEAD"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"--skip-worktree", "--assume-unchanged"})
  void bits_an_agent_hid_in_the_index_do_not_reach_the_next_item(String bit) throws Exception {
    WorktreeSite w = site(true);
    Path a = builtA(w);
    // hidden from status, so the landing goes ahead: a change the next item would not see
    repo.git(a, "update-index", bit, "README.md");
    GitRepo.write(a, "README.md", "planted\n");
    IntegrationResult landed = w.integrate("A", "Item A");
    assertEquals("integrated", landed.kind(), landed.message());
    assertEquals(1, kept().size());

    Path b = w.prepare("B", repo.dir).workspace();

    assertEquals("hello\n", GitRepo.read(b.resolve("README.md")));
    assertEquals("H README.md", repo.git(b, "ls-files", "-v", "README.md"));
    assertEquals("", repo.git(b, "status", "--porcelain", "--ignored"));
  }

  @Test
  void a_worktree_moved_without_git_is_where_gits_registry_says_through_a_prune() throws Exception {
    WorktreeSite w = site(true);
    land(w, "A", "a.txt");
    Path spare = root.resolve(kept().get(0));
    assertEquals(spare.toRealPath().toString(), registeredPaths().get(1), "the registry names the kept worktree");
    assertEquals(repo.head("main") + "\n", Files.readString(adminOf(spare).resolve("HEAD")),
        "detached at the landed commit, as git writes it");
    assertFalse(Files.exists(adminOf(spare).resolve("HEAD.lock")));

    Path b = w.prepare("B", repo.dir).workspace();
    repo.git("worktree", "prune"); // a registry entry pointing nowhere would go here
    assertEquals(List.of(repo.dir.toRealPath().toString(), b.toRealPath().toString()), registeredPaths());
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
    repo.git("worktree", "remove", b.toString()); // git itself finds and removes it where it is
    assertFalse(Files.exists(b));
  }

  @Test
  void a_kept_worktree_whose_registry_entry_is_under_gits_lock_is_not_moved_and_is_deleted() throws Exception {
    WorktreeSite w = site(true);
    Path spare = landedAndMarked(w);
    Files.writeString(adminOf(spare).resolve("gitdir.lock"), "someone's\n"); // git writing it, or planted

    Path b = w.prepare("B", repo.dir).workspace();

    assertFalse(Files.exists(spare), "deleted, never tried again");
    assertEquals(List.of(), kept());
    assertFalse(Files.exists(adminOf(b).resolve(MARKER)), "a new worktree, not A's");
    assertEquals(List.of("project", "B"), registered());
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
    assertEquals("A\n", GitRepo.read(b.resolve("a.txt")));
  }

  @Test
  void a_nested_repository_at_a_gitlink_never_reaches_the_next_item() throws Exception {
    // the base records a gitlink with no .gitmodules (an embedded repository someone committed)
    repo.git("update-index", "--add", "--cacheinfo", "160000," + repo.head("main") + ",vendor/lib");
    repo.git("-c", "diff.ignoreSubmodules=none", "commit", "--quiet", "-m", "an embedded repository");
    WorktreeSite w = site(true);
    Path a = w.prepare("A", repo.dir).workspace();
    Path nested = a.resolve("vendor/lib");
    GitRepo.init(nested); // the agent clones into it: neither clean nor a checkout touches a gitlink's directory
    GitRepo.write(nested, "edited.txt", "the agent's edit inside it\n");
    GitRepo.write(a, "a.txt", "a\n");
    w.succeed("A", "build", 1, "built a");
    IntegrationResult landed = w.integrate("A", "Item A");
    assertEquals("integrated", landed.kind(), landed.message());
    Path spare = root.resolve(kept().get(0));
    assertTrue(Files.exists(spare.resolve("vendor/lib/edited.txt")));
    Files.writeString(adminOf(spare).resolve(MARKER), "A's");

    Path b = w.prepare("B", repo.dir).workspace();

    assertFalse(Files.exists(b.resolve("vendor/lib/edited.txt")), "the nested repository stays behind");
    assertFalse(Files.exists(adminOf(b).resolve(MARKER)), "a new worktree, not A's");
    assertEquals(List.of(), kept());
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
  }

  @Test
  void a_kept_worktrees_git_file_pointed_at_another_items_entry_is_put_back_and_that_item_is_untouched()
      throws Exception {
    WorktreeSite w = site(true);
    Path c = w.prepare("C", repo.dir).workspace(); // at work: its index holds a staged change
    GitRepo.write(c, "staged.txt", "C's\n");
    repo.git(c, "add", "staged.txt");
    Path cAdmin = adminOf(c);
    land(w, "A", "a.txt");
    Path spare = root.resolve(kept().get(0));
    Path admin = adminOf(spare);
    Files.writeString(spare.resolve(".git"), "gitdir: " + cAdmin + "\n"); // a leftover process of A's agent

    Path b = w.prepare("B", repo.dir).workspace();

    assertEquals("gitdir: " + admin + "\n", Files.readString(b.resolve(".git")), "the kept one's own entry");
    assertEquals(b.toRealPath().resolve(".git") + "\n", Files.readString(admin.resolve("gitdir")));
    assertEquals(c.toRealPath().resolve(".git") + "\n", Files.readString(cAdmin.resolve("gitdir")),
        "C's entry as it was");
    assertEquals("A  staged.txt", repo.git(c, "status", "--porcelain"), "C's staged change kept");
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
    assertEquals("", repo.git(b, "status", "--porcelain", "--ignored"));
  }

  @Test
  void a_kept_worktree_whose_registry_entry_names_another_place_is_not_taken() throws Exception {
    WorktreeSite w = site(true);
    Path spare = landedAndMarked(w);
    Files.writeString(adminOf(spare).resolve("gitdir"), tmp.resolve("elsewhere/.git") + "\n");

    Path b = w.prepare("B", repo.dir).workspace();

    assertFalse(Files.exists(spare), "deleted");
    assertFalse(Files.exists(adminOf(b).resolve(MARKER)), "a new worktree, not A's");
    assertEquals("orchestrate/B", repo.git(b, "symbolic-ref", "--short", "HEAD"));
  }

  /** The paths of the work trees git knows, the user's checkout first. */
  private List<String> registeredPaths() {
    return repo.git("worktree", "list", "--porcelain").lines().filter(l -> l.startsWith("worktree "))
        .map(l -> l.substring("worktree ".length())).toList();
  }

  /** A file of the test's own in a worktree's administrative directory, to tell that worktree from a new one. */
  private static final String MARKER = "orchestrate-test-marker";

  /** The administrative directory of the worktree at {@code worktree} (its {@code .git} file names it). */
  private Path adminOf(Path worktree) throws Exception {
    return Path.of(repo.git(worktree, "rev-parse", "--absolute-git-dir"));
  }

}
