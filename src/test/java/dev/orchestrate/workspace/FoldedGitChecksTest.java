package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checks a worktree phase folds into fewer git processes (issue 46, item 2) keep their meaning:
 * several tips read at once, HEAD left as it is only when it is already on the branch, the landing
 * that reads the base, HEAD and its parents in one process, a landed branch deleted without
 * rewriting {@code .git/config} only when {@code git branch -D} would have had nothing else to do,
 * and a worktree removed as {@code git worktree remove} removes it.
 */
class FoldedGitChecksTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(Worktrees.class, dev.orchestrate.landing.Landing.class, BaseRefs.class,
      WorktreeGuard.class, WorktreeRetention.class);

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

  /** What landing recorded: which commit of the base carries each job's phase commit. */
  private final Map<Long, String> landed = new java.util.HashMap<>();

  private WorktreeSite site() {
    return site(new Git());
  }

  private WorktreeSite site(Git git) {
    // the jobs table has no rows here: what is recorded is caught on its way in
    WorkspaceStore recording = (WorkspaceStore) java.lang.reflect.Proxy.newProxyInstance(
        WorkspaceStore.class.getClassLoader(), new Class<?>[] {WorkspaceStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("landed") && args.length == 2 && args[0] instanceof Map<?, ?> commits) {
            commits.forEach((job, commit) -> landed.put((Long) job, (String) commit));
          }
          try {
            return method.invoke(store, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    return WorktreeSite.open(repo.dir, repo.dir.resolve(".orchestrate"),
        ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE),
        RetentionConfig.WorktreePolicy.DEFAULT, recording, Clock.fixed(Instant.parse("2026-11-01T00:00:00Z"),
            ZoneOffset.UTC),
        git);
  }

  private Path calls() {
    return tmp.resolve("calls.log");
  }

  /** A git that writes each command it runs to {@link #calls}, then runs the real one. */
  private Git recordingGit() throws java.io.IOException {
    Path recorder = tmp.resolve("git");
    Files.writeString(recorder, "#!/bin/sh\necho \"$*\" >> '" + calls() + "'\nexec '"
        + Git.resolve("git", System.getenv("PATH")) + "' \"$@\"\n");
    assertTrue(recorder.toFile().setExecutable(true));
    return new Git(recorder.toString(), Git.DEFAULT_TIMEOUT);
  }

  /** The subcommands {@link #recordingGit} ran since {@link #calls} was last deleted. */
  private List<String> recorded() throws java.io.IOException {
    return Files.readAllLines(calls()).stream().map(c -> c.replaceAll("^-C \\S+ (-c \\S+ )*", ""))
        .toList();
  }

  private static Git.Place checkout(GitRepo repo) {
    return new Git.Place(repo.dir, repo.dir.resolve(".git"), repo.dir.resolve(".git"), repo.dir);
  }

  private Object configFile() throws Exception {
    return List.of(Files.getAttribute(repo.dir.resolve(".git/config"), "unix:ino"),
        Files.getLastModifiedTime(repo.dir.resolve(".git/config")));
  }

  @Test
  void tips_reads_several_refs_at_once_missing_ones_null_exact_names_and_tags_peeled() {
    repo.git("branch", "x/y");
    repo.git("tag", "-a", "-m", "annotated", "t");
    Map<String, String> tips = repo.git.tips(checkout(repo), List.of("refs/heads/main", "refs/heads/x",
        "refs/heads/none", "refs/tags/t"));
    String main = repo.head("main");
    assertEquals(main, tips.get("refs/heads/main"));
    assertNull(tips.get("refs/heads/x"), "refs/heads/x/y is not refs/heads/x");
    assertNull(tips.get("refs/heads/none"));
    assertEquals(main, tips.get("refs/tags/t"), "a tag object is peeled to its commit, as rev-parse ^{commit}");
    assertEquals(4, tips.size());
  }

  @Test
  void head_on_holds_only_for_the_exact_symbolic_ref_git_writes() throws Exception {
    Path admin = tmp.resolve("admin");
    Files.createDirectories(admin);
    Files.writeString(admin.resolve("HEAD"), "ref: refs/heads/orchestrate/A\n");
    assertTrue(WorktreeGuard.headOn(admin, "orchestrate/A"));
    assertFalse(WorktreeGuard.headOn(admin, "orchestrate/A2"));
    Files.writeString(admin.resolve("HEAD"), "ref: refs/heads/orchestrate/A2\n");
    assertFalse(WorktreeGuard.headOn(admin, "orchestrate/A"));
    Files.writeString(admin.resolve("HEAD"), repo.head("main") + "\n");
    assertFalse(WorktreeGuard.headOn(admin, "orchestrate/A"), "detached");
    Files.delete(admin.resolve("HEAD"));
    Files.createSymbolicLink(admin.resolve("HEAD"), repo.dir.resolve(".git/HEAD"));
    assertFalse(WorktreeGuard.headOn(admin, "main"), "a link is never read through");
  }

  @Test
  void an_agent_that_left_head_detached_on_its_commit_has_it_taken_off_and_head_put_back() {
    WorktreeSite w = site();
    Path ws = w.prepare("A", repo.dir).workspace();
    String start = repo.git(ws, "rev-parse", "HEAD");
    GitRepo.write(ws, "a.txt", "a\n");
    repo.git(ws, "add", "a.txt");
    repo.git(ws, "commit", "-qm", "agent's own");
    repo.git(ws, "checkout", "-q", "--detach");
    assertNull(w.inspect("A"));
    assertEquals("orchestrate/A", repo.git(ws, "symbolic-ref", "--short", "HEAD"));
    assertEquals(start, repo.head("orchestrate/A"), "the agent's commit is off the branch");
    assertEquals("a\n", GitRepo.read(ws.resolve("a.txt")), "its file stays for the phase commit");
  }

  @Test
  void a_fast_forward_landing_records_its_job_and_deletes_the_branch_without_rewriting_the_config()
      throws Exception {
    WorktreeSite w = site();
    Path ws = w.prepare("A", repo.dir).workspace();
    GitRepo.write(ws, "a.txt", "a\n");
    String commit = w.commit("A", "build", 1, 7, "built a");
    w.committed("A");
    Object config = configFile();
    IntegrationResult result = w.integrate("A", "Item A");
    assertEquals("integrated", result.kind(), result.message());
    assertEquals(commit, repo.head("main"), "fast-forwarded: the phase commit itself landed");
    assertEquals(Map.of(7L, commit), landed, "read with HEAD, without a log of its own");
    assertEquals("", repo.git("branch", "--list", "orchestrate/A"));
    assertEquals(config, configFile(), ".git/config untouched: the branch had no section there");
    assertFalse(Files.exists(ws));
    assertFalse(Files.exists(repo.dir.resolve(".git/worktrees/A")), "unregistered as git worktree remove does");
    assertEquals(1, repo.git("worktree", "list", "--porcelain").lines().filter(l -> l.startsWith("worktree "))
        .count());
  }

  @Test
  void a_phase_commit_after_an_inspection_folds_the_agents_commit_and_records_the_commit_the_branch_names() {
    WorktreeSite w = site();
    Path ws = w.prepare("A", repo.dir).workspace();
    String start = repo.git(ws, "rev-parse", "HEAD").strip();
    GitRepo.write(ws, "a.txt", "a\n");
    repo.git(ws, "add", "a.txt");
    repo.git(ws, "commit", "-qm", "agent's own");
    GitRepo.write(ws, "b.txt", "b\n");
    assertNull(w.inspect("A"));
    String commit = w.commit("A", "build", 1, 7, "built");
    assertEquals(repo.head("orchestrate/A"), commit, "the id the loose ref holds is the commit made");
    assertEquals(start, repo.git(ws, "rev-parse", commit + "^").strip(), "one phase commit on the last head");
    assertEquals("a.txt\nb.txt", repo.git(ws, "diff-tree", "--no-commit-id", "--name-only", "-r", commit).strip());
    w.committed("A");
    // the next phase without an inspection first: reset and rev-parse as before
    GitRepo.write(ws, "c.txt", "c\n");
    String next = w.commit("A", "review", 1, 8, "reviewed");
    assertEquals(repo.head("orchestrate/A"), next);
    assertEquals(commit, repo.git(ws, "rev-parse", next + "^").strip());
  }

  @Test
  void a_rebased_landing_records_each_job_at_the_commit_that_landed() {
    WorktreeSite w = site();
    Path a = w.prepare("A", repo.dir).workspace();
    Path b = w.prepare("B", repo.dir).workspace();
    GitRepo.write(a, "a.txt", "a\n");
    w.succeed("A", "build", 1, "built a");
    GitRepo.write(b, "b.txt", "b\n");
    String before = w.commit("B", "build", 1, 9, "built b");
    w.committed("B");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    landed.clear();
    assertEquals("integrated", w.integrate("B", "Item B").kind());
    String main = repo.head("main");
    assertFalse(main.equals(before), "B was rebased onto A");
    assertEquals(Map.of(9L, main), landed, "read with the rebased tip, one log for both");
  }

  /**
   * B started from the base A then moved on from: its landing rebases at once, with no merge-base
   * to ask whether the base is already one of HEAD's ancestors (the walk from the base reaches
   * HEAD's only parent, so it is not); the work lands exactly as before.
   */
  @Test
  void a_landing_after_the_base_moved_on_rebases_without_asking_merge_base() throws Exception {
    WorktreeSite w = site(recordingGit());
    Path a = w.prepare("A", repo.dir).workspace();
    Path b = w.prepare("B", repo.dir).workspace();
    GitRepo.write(a, "a.txt", "a\n");
    w.succeed("A", "build", 1, "built a");
    GitRepo.write(b, "b.txt", "b\n");
    w.succeed("B", "build", 1, "built b");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    Files.deleteIfExists(calls());
    assertEquals("integrated", w.integrate("B", "Item B").kind());
    List<String> commands = recorded();
    assertTrue(commands.stream().anyMatch(c -> c.startsWith("rebase ")), commands.toString());
    assertFalse(commands.stream().anyMatch(c -> c.startsWith("merge-base")), commands.toString());
    assertEquals("a\n", Files.readString(repo.dir.resolve("a.txt")));
    assertEquals("b\n", Files.readString(repo.dir.resolve("b.txt")));
    assertEquals(List.of("B build: built b", "A build: built a"),
        List.of(repo.git("log", "--format=%s", "-n", "2", "main").split("\n")),
        "both phase commits on main, B rebased");
  }

  /**
   * The same for an item of two phases, whose HEAD's parent is its own first phase commit: the walk
   * goes down the item's commits to the one the base moved on from; and what the landing reads of
   * the base and HEAD before it comes from git's files, not a log. The jobs land as before.
   */
  @Test
  void a_landing_of_two_phases_after_the_base_moved_on_asks_neither_merge_base_nor_a_log_first()
      throws Exception {
    WorktreeSite w = site(recordingGit());
    Path a = w.prepare("A", repo.dir).workspace();
    Path b = w.prepare("B", repo.dir).workspace();
    GitRepo.write(a, "a.txt", "a\n");
    w.succeed("A", "build", 1, "built a");
    GitRepo.write(b, "b1.txt", "b1\n");
    String first = w.commit("B", "design", 1, 21, "designed b");
    w.committed("B");
    GitRepo.write(b, "b2.txt", "b2\n");
    w.commit("B", "build", 1, 22, "built b");
    w.committed("B");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    Files.deleteIfExists(calls());
    landed.clear();
    assertEquals("integrated", w.integrate("B", "Item B").kind());
    List<String> commands = recorded();
    assertTrue(commands.stream().anyMatch(c -> c.startsWith("rebase ")), commands.toString());
    assertFalse(commands.stream().anyMatch(c -> c.startsWith("merge-base")), commands.toString());
    assertFalse(commands.stream().anyMatch(c -> c.startsWith("log --no-walk")), commands.toString());
    List<String> main = List.of(repo.git("log", "--format=%H %s", "-n", "3", "main").split("\n"));
    assertEquals(List.of("B build: built b", "B design: designed b", "A build: built a"),
        main.stream().map(l -> l.substring(l.indexOf(' ') + 1)).toList(), "B's two commits rebased onto A's");
    assertFalse(main.get(1).startsWith(first), "rebased: a new id");
    assertEquals(Map.of(21L, main.get(1).split(" ")[0], 22L, main.get(0).split(" ")[0]), landed);
  }

  /** A base B's branch already holds (a person merged it in, resolving a conflict): nothing is rebased. */
  @Test
  void a_base_the_items_branch_already_holds_lands_the_branch_as_it_is() {
    WorktreeSite w = site();
    Path a = w.prepare("A", repo.dir).workspace();
    Path b = w.prepare("B", repo.dir).workspace();
    GitRepo.write(a, "a.txt", "a\n");
    w.succeed("A", "build", 1, "built a");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    GitRepo.write(b, "b.txt", "b\n");
    w.succeed("B", "build", 1, "built b");
    repo.git(b, "merge", "--quiet", "--no-edit", "main"); // as a person resolving a conflict would
    String merged = repo.git(b, "rev-parse", "HEAD");
    store.headMoved("B", merged, Instant.parse("2026-11-01T00:00:00Z"));
    assertEquals("integrated", w.integrate("B", "Item B").kind());
    assertEquals(merged, repo.head("main"), "the merge landed as it is");
  }

  @Test
  void a_branch_with_a_config_section_is_deleted_by_branch_d_with_its_section() {
    WorktreeSite w = site();
    Path ws = w.prepare("A", repo.dir).workspace();
    repo.git("config", "branch.orchestrate/A.description", "the user's note");
    GitRepo.write(ws, "a.txt", "a\n");
    w.succeed("A", "build", 1, "built a");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    assertEquals("", repo.git("branch", "--list", "orchestrate/A"));
    assertFalse(GitRepo.read(repo.dir.resolve(".git/config")).contains("orchestrate/A"), "its section went with it");
  }

  @Test
  void a_branch_checked_out_in_another_work_tree_is_left_as_branch_d_leaves_it() {
    WorktreeSite w = site();
    Path ws = w.prepare("A", repo.dir).workspace();
    GitRepo.write(ws, "a.txt", "a\n");
    w.succeed("A", "build", 1, "built a");
    Path look = tmp.resolve("look");
    repo.git("worktree", "add", "--quiet", "--force", look.toString(), "orchestrate/A");
    assertFalse(WorktreeGuard.refOnlyDeletable(repo.dir.resolve(".git"), "orchestrate/A"));
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    assertEquals(repo.head("main"), repo.head("orchestrate/A"), "kept: the user's work tree has it checked out");
    assertEquals("orchestrate/A", repo.git(look, "symbolic-ref", "--short", "HEAD"));
  }

  @Test
  void ref_only_deletion_is_refused_for_a_branch_being_rebased_or_bisected_or_named_in_the_config()
      throws Exception {
    Path common = repo.dir.resolve(".git");
    repo.git("branch", "orchestrate/B");
    assertTrue(WorktreeGuard.refOnlyDeletable(common, "orchestrate/B"));
    Files.createDirectories(common.resolve("rebase-merge"));
    Files.writeString(common.resolve("rebase-merge/head-name"), "refs/heads/orchestrate/B\n");
    assertFalse(WorktreeGuard.refOnlyDeletable(common, "orchestrate/B"));
    Files.writeString(common.resolve("rebase-merge/head-name"), "refs/heads/orchestrate/B2\n");
    assertTrue(WorktreeGuard.refOnlyDeletable(common, "orchestrate/B"));
    Files.writeString(common.resolve("BISECT_START"), "orchestrate/B\n");
    assertFalse(WorktreeGuard.refOnlyDeletable(common, "orchestrate/B"));
    Files.delete(common.resolve("BISECT_START"));
    repo.git("config", "branch.Orchestrate/B.x", "y"); // any mention, whatever its case: branch -D decides
    assertFalse(WorktreeGuard.refOnlyDeletable(common, "orchestrate/B"));
  }

  /**
   * A phase whose agent staged nothing (the index as the preparation checked it out) commits
   * without listing the ignored files in the index: `git add --all` adds none. One that staged an
   * ignored file, or rewrote the index in any way, is listed as before and the file left out.
   */
  @Test
  void the_ignored_files_are_listed_only_when_the_index_changed_since_the_preparation() throws Exception {
    WorktreeSite w = site(recordingGit()); // the project's .gitignore has build/
    Path ws = w.prepare("A", repo.dir).workspace();
    GitRepo.write(ws, "build/out.bin", "derived\n");
    GitRepo.write(ws, "a.txt", "a\n");
    Files.deleteIfExists(calls());
    String first = w.succeed("A", "design", 1, "designed");
    assertFalse(recorded().stream().anyMatch(c -> c.startsWith("ls-files")), recorded().toString());
    assertEquals("a.txt", repo.git(ws, "diff-tree", "--no-commit-id", "--name-only", "-r", first));

    w.prepare("A", repo.dir);
    GitRepo.write(ws, "b.txt", "b\n");
    repo.git(ws, "add", "-f", "build/out.bin");
    Files.deleteIfExists(calls());
    String second = w.succeed("A", "build", 1, "built");
    assertTrue(recorded().stream().anyMatch(c -> c.startsWith("ls-files")), recorded().toString());
    assertEquals("b.txt", repo.git(ws, "diff-tree", "--no-commit-id", "--name-only", "-r", second));

    // git reads an index without checking its trailing checksum: one staged by hand, then given
    // the old trailer back, is still a changed index
    w.prepare("A", repo.dir);
    Path index = Path.of(repo.git(ws, "rev-parse", "--git-path", "index"));
    index = index.isAbsolute() ? index : ws.resolve(index);
    byte[] before = Files.readAllBytes(index);
    GitRepo.write(ws, "c.txt", "c\n");
    repo.git(ws, "add", "-f", "build/out.bin");
    byte[] staged = Files.readAllBytes(index);
    System.arraycopy(before, before.length - 20, staged, staged.length - 20, 20);
    Files.write(index, staged);
    assertTrue(repo.git(ws, "ls-files").contains("build/out.bin"), "git takes the index as it is");
    Files.deleteIfExists(calls());
    String third = w.succeed("A", "review", 1, "reviewed");
    assertTrue(recorded().stream().anyMatch(c -> c.startsWith("ls-files")), recorded().toString());
    assertEquals("c.txt", repo.git(ws, "diff-tree", "--no-commit-id", "--name-only", "-r", third));
  }

  @Test
  void a_phase_that_changed_nothing_commits_nothing_and_an_ignored_file_the_agent_forced_in_is_left_out() {
    WorktreeSite w = site();
    Path ws = w.prepare("A", repo.dir).workspace();
    assertNull(w.commit("A", "build", 1, 1, "nothing"));
    GitRepo.write(ws, "build/out.bin", "derived\n");
    GitRepo.write(ws, "a.txt", "a\n");
    repo.git(ws, "add", "-f", "build/out.bin");
    String commit = w.commit("A", "build", 1, 2, "built");
    assertEquals("a.txt", repo.git(ws, "diff-tree", "--no-commit-id", "--name-only", "-r", commit));
  }
}
