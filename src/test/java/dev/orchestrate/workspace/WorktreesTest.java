package dev.orchestrate.workspace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.item.Placement;
import dev.orchestrate.item.WorkspaceUnavailableException;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Worktrees on real git repositories in temporary directories, with a real state database. */
class WorktreesTest {
  /** Expected warnings (a job directory that already exists, a deferred integration) are asserted, not printed. */
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(Worktrees.class, dev.orchestrate.landing.Landing.class, BaseRefs.class,
      WorktreeGuard.class,
      WorktreeRetention.class);

  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private WorkspaceStore store;
  private Path backlogDir;
  private Clock clock = Clock.fixed(T0, ZoneOffset.UTC);

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    backlogDir = repo.dir;
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    store = state.workspaces();
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  private WorktreeSite worktrees(WorkspaceConfig config) {
    return worktrees(config, RetentionConfig.WorktreePolicy.DEFAULT);
  }

  private WorktreeSite worktrees(WorkspaceConfig config, RetentionConfig.WorktreePolicy retention) {
    return WorktreeSite.open(backlogDir, repo.dir.resolve(".orchestrate"), config, retention, store, clock);
  }

  private static WorkspaceConfig worktree() {
    return ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE);
  }

  /** What the scheduler does after a successful attempt: commit, then confirm once the job is recorded. */
  private static String succeed(WorktreeSite w, String id, String phase, int attempt, String summary) {
    String commit = w.commit(id, phase, attempt, 1, summary);
    w.committed(id);
    return commit;
  }

  @Test
  void an_item_gets_its_own_worktree_on_its_own_branch_from_the_base_branch() {
    WorktreeSite w = worktrees(worktree());
    Placement placement = w.prepare("WRK-1", backlogDir);
    Path expected = repo.dir.resolve(".orchestrate/worktrees/WRK-1");
    assertEquals(expected, placement.workspace());
    assertEquals(expected, placement.workDir());
    assertEquals("orchestrate/WRK-1", repo.git(expected, "symbolic-ref", "--short", "HEAD"));
    assertEquals(repo.head("main"), repo.git(expected, "rev-parse", "HEAD"));
    assertEquals("hello\n", GitRepo.read(expected.resolve("README.md")));
    // the user's checkout does not see the nested worktrees
    assertEquals("", repo.git("status", "--porcelain"));
  }

  @Test
  void an_agent_of_a_backlog_in_a_subdirectory_works_in_the_same_subdirectory_of_its_worktree() {
    repo.write("tools/backlog.yaml", "items: []\n");
    repo.commitAll("backlog");
    backlogDir = repo.dir.resolve("tools");
    WorktreeSite w = worktrees(worktree());
    Placement placement = w.prepare("A", backlogDir);
    assertEquals(placement.workspace().resolve("tools"), placement.workDir());
    assertTrue(Files.isRegularFile(placement.workDir().resolve("backlog.yaml")));
  }

  @Test
  void a_successful_phase_is_one_commit_with_the_summary_the_author_and_the_job_trailers() {
    WorktreeSite w = worktrees(ConfigWithers.withDeleteMergedBranches(worktree(), false));
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "src/a.txt", "a\n");
    String commit = w.commit("A", "build", 2, 41, "Added a.txt\nand more detail");
    w.committed("A");
    assertNotNull(commit);
    assertEquals("A build: Added a.txt", repo.git(ws, "log", "-1", "--format=%s", commit));
    assertEquals("orchestrate <orchestrate@localhost>", repo.git(ws, "log", "-1", "--format=%an <%ae>", commit));
    String body = repo.git(ws, "log", "-1", "--format=%b", commit);
    assertTrue(body.contains("Orchestrate-Job: 41"), body);
    assertTrue(body.contains("Orchestrate-Attempt: 2"), body);
    assertEquals(commit, store.workspace("A").orElseThrow().headCommit());
  }

  @Test
  void a_phase_that_changed_nothing_makes_no_commit() {
    WorktreeSite w = worktrees(worktree());
    w.prepare("A", backlogDir);
    assertNull(w.commit("A", "review", 1, 1, "looks good"));
    assertEquals(repo.head("main"), store.workspace("A").orElseThrow().headCommit());
  }

  @Test
  void the_next_attempt_starts_from_the_last_phase_commit_without_the_failed_attempts_files() {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "design.md", "the design\n");
    succeed(w, "A", "design", 1, "designed");
    w.prepare("A", backlogDir); // the next phase's first attempt
    // which fails: edits a tracked file, adds files (one in a new directory), builds
    GitRepo.write(ws, "design.md", "half-edited\n");
    GitRepo.write(ws, "half/done.txt", "x\n");
    GitRepo.write(ws, "stray.txt", "x\n");
    GitRepo.write(ws, "build/cache.bin", "derived\n");
    w.prepare("A", backlogDir);
    assertEquals("the design\n", GitRepo.read(ws.resolve("design.md")));
    assertFalse(Files.exists(ws.resolve("half")));
    assertFalse(Files.exists(ws.resolve("stray.txt")));
    assertTrue(Files.exists(ws.resolve("build/cache.bin")), "ignored build outputs survive a reset");
  }

  @Test
  void what_an_agent_committed_itself_on_another_branch_is_folded_into_the_one_phase_commit() {
    WorktreeSite w = worktrees(ConfigWithers.withDeleteMergedBranches(worktree(), false));
    Path ws = w.prepare("A", backlogDir).workspace();
    String base = repo.head("main");
    repo.git(ws, "checkout", "--quiet", "-b", "agent-branch");
    GitRepo.write(ws, "one.txt", "1\n");
    repo.git(ws, "add", "one.txt");
    repo.git(ws, "commit", "--quiet", "-m", "agent commit 1");
    GitRepo.write(ws, "two.txt", "2\n");
    String commit = succeed(w, "A", "build", 1, "built");
    assertEquals("orchestrate/A", repo.git(ws, "symbolic-ref", "--short", "HEAD"));
    assertEquals(java.util.List.of("A build: built"), repo.subjects(base + "..orchestrate/A"));
    assertEquals(commit, repo.head("orchestrate/A"));
    assertEquals("1\n2\n", repo.git(ws, "show", "HEAD:one.txt") + "\n" + repo.git(ws, "show", "HEAD:two.txt") + "\n");
  }

  @Test
  void an_agent_that_deleted_the_worktrees_git_file_cannot_make_a_reset_reach_the_users_checkout() throws Exception {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    repo.write("mine.txt", "the user's uncommitted work\n");
    Files.delete(ws.resolve(".git"));
    GitRepo.write(ws, "junk.txt", "x\n");
    w.prepare("A", backlogDir);
    assertEquals("the user's uncommitted work\n", GitRepo.read(repo.dir.resolve("mine.txt")));
    assertFalse(Files.exists(ws.resolve("junk.txt")));
    assertEquals("orchestrate/A", repo.git(ws, "symbolic-ref", "--short", "HEAD"));
  }

  @Test
  void a_rebase_the_agent_left_half_done_does_not_stop_the_phase_commit() {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    Path gitDir = Path.of(repo.git(ws, "rev-parse", "--absolute-git-dir"));
    GitRepo.write(gitDir, "rebase-merge/head-name", "refs/heads/orchestrate/A\n");
    GitRepo.write(gitDir, "index.lock", "");
    GitRepo.write(ws, "a.txt", "a\n");
    assertNotNull(succeed(w, "A", "build", 1, "built"));
  }

  @Test
  void a_phase_commit_whose_job_never_completed_is_dropped_when_the_next_run_opens() {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "first.txt", "1\n");
    String first = succeed(w, "A", "design", 1, "designed");
    GitRepo.write(ws, "second.txt", "2\n");
    w.commit("A", "build", 1, 99, "built"); // the run is killed before job 99 is recorded
    WorktreeSite next = worktrees(worktree());
    next.prepare("A", backlogDir);
    assertEquals(first, repo.git(ws, "rev-parse", "HEAD"));
    assertFalse(Files.exists(ws.resolve("second.txt")));
  }

  @Test
  void a_done_item_is_rebased_onto_the_moved_base_and_fast_forwarded_into_the_users_clean_checkout() {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "a.txt", "a\n");
    succeed(w, "A", "build", 1, "built a");
    repo.write("other.txt", "meanwhile\n");
    repo.commitAll("user commit meanwhile");
    IntegrationResult result = w.integrate("A", "Item A");
    assertEquals("integrated", result.kind(), result.message());
    assertEquals(java.util.List.of("A build: built a", "user commit meanwhile", "init"), repo.subjects("main"));
    assertEquals("a\n", GitRepo.read(repo.dir.resolve("a.txt")), "the checkout of main moved with its branch");
    assertFalse(Files.exists(ws), "an integrated worktree is removed");
    assertEquals("", repo.git("branch", "--list", "orchestrate/A"), "merged branches are deleted by default");
    assertEquals(WorkspaceRecord.Integration.INTEGRATED, store.workspace("A").orElseThrow().integration());
  }

  @Test
  void integration_keeps_the_users_uncommitted_edit_of_an_unrelated_file() {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "a.txt", "a\n");
    succeed(w, "A", "build", 1, "built a");
    repo.write("README.md", "hello, edited by the user\n");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    assertEquals("hello, edited by the user\n", GitRepo.read(repo.dir.resolve("README.md")));
    assertEquals("a\n", GitRepo.read(repo.dir.resolve("a.txt")));
  }

  @Test
  void integration_is_deferred_when_the_fast_forward_would_overwrite_the_users_local_change() {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "README.md", "changed by the item\n");
    succeed(w, "A", "build", 1, "edited readme");
    String before = repo.head("main");
    repo.write("README.md", "the user's unsaved work\n");
    IntegrationResult result = w.integrate("A", "Item A");
    assertEquals("deferred", result.kind());
    assertTrue(result.message().contains("local changes"), result.message());
    assertEquals("the user's unsaved work\n", GitRepo.read(repo.dir.resolve("README.md")));
    assertEquals(before, repo.head("main"));
    assertTrue(Files.isDirectory(ws));
    assertEquals(java.util.List.of("A"), w.integrationPending());
  }

  @Test
  void a_base_branch_nobody_has_checked_out_moves_by_its_ref_alone() {
    repo.git("checkout", "--quiet", "-b", "develop");
    WorktreeSite w = worktrees(ConfigWithers.withBaseBranch(worktree(), "main"));
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "a.txt", "a\n");
    succeed(w, "A", "build", 1, "built a");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    assertEquals("A build: built a", repo.subjects("main").get(0));
    assertFalse(Files.exists(repo.dir.resolve("a.txt")), "the checkout of develop is not touched");
  }

  @Test
  void a_conflict_names_the_file_aborts_the_rebase_and_keeps_the_worktree() {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "shared.txt", "from A\n");
    succeed(w, "A", "build", 1, "A wrote shared");
    repo.write("shared.txt", "from main\n");
    repo.commitAll("main wrote shared");
    String base = repo.head("main");
    IntegrationResult result = w.integrate("A", "Item A");
    assertTrue(result.blocks());
    assertTrue(result.message().contains("shared.txt"), result.message());
    assertEquals(base, repo.head("main"));
    assertEquals("from A\n", GitRepo.read(ws.resolve("shared.txt")));
    assertEquals("orchestrate/A", repo.git(ws, "symbolic-ref", "--short", "HEAD"), "no rebase left in progress");
    // the user resolves it on the branch; integration then succeeds
    repo.git(ws, "rebase", "--quiet", "-X", "theirs", "main");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    assertEquals("from A\n", GitRepo.read(repo.dir.resolve("shared.txt")));
  }

  /**
   * A landing on another thread moves the base while an inspection's tips are being read (the race
   * MergeQueueCrashIT met: a landing taken for its item's agent's move, and undone): tips read before
   * a move of orchestrate's own are read again, and the landing's item is never blamed.
   */
  @Test
  void tips_read_before_a_landing_moved_the_base_are_read_again_and_the_landing_stands() {
    WorktreeSite w = worktrees(worktree());
    Path a = w.prepare("A", backlogDir).workspace();
    w.prepare("B", backlogDir);
    String main = repo.head("main");
    GitRepo.write(a, "a.txt", "a\n");
    String landed = w.succeed("A", "build", 1, "built a");
    BaseRefs bases = w.worktrees.bases();
    bases.watch("main");
    long moves = bases.moves();
    java.util.Map<String, String> stale = java.util.Map.of("refs/heads/main", main); // read before the landing
    // the landing: main fast-forwarded to A's commit and recorded as one, on its own thread
    assertEquals(Boolean.TRUE, bases.ownMove("main", landed,
        () -> repo.git("update-ref", "refs/heads/main", landed, main) != null, done -> done));
    w.worktrees.checkBases(stale, moves); // B's inspection, with its stale read
    assertEquals(landed, repo.head("main"), "the landing stands");
    w.worktrees.checkBases();
    assertEquals(landed, repo.head("main"), "and stays");
    assertNull(w.inspect("A"), "A's agent moved nothing");
    assertNull(w.inspect("B"));
  }

  @Test
  void a_base_move_is_pinned_on_the_agent_whose_worktree_holds_it_even_when_another_items_attempt_ends_first() {
    WorktreeSite w = worktrees(worktree());
    Path a = w.prepare("A", backlogDir).workspace();
    Path b = w.prepare("B", backlogDir).workspace();
    String main = repo.head("main");
    // B's agent commits on its branch and moves main there, while A's agent is still at work
    GitRepo.write(b, "b.txt", "b\n");
    repo.git(b, "add", "-A");
    repo.git(b, "commit", "--quiet", "-m", "B's agent");
    repo.git(b, "update-ref", "refs/heads/main", "HEAD");
    GitRepo.write(a, "a.txt", "a\n");

    assertNull(w.inspect("A"), "A's agent did nothing wrong");
    assertEquals(main, repo.head("main"), "put back at A's attempt's end already");
    String reason = w.inspect("B");
    assertNotNull(reason);
    assertTrue(reason.contains("moved the base branch main"), reason);
    assertTrue(reason.contains("put it back"), reason);
    assertNull(w.inspect("B"), "told once");
    assertTrue(logs.warnings().stream().anyMatch(m -> m.contains("moved the base branch main")), logs.warnings()
        .toString());
  }

  @Test
  void a_worktree_made_from_a_base_another_runner_moved_is_not_blamed_for_the_move() {
    // Two runners in one checkout: the other one lands an item (main moves) after this one last
    // looked at main; this one then makes K's worktree from the new tip. K's branch and HEAD log
    // hold that tip because K started there, not because its agent moved main (SharedRemoteSafetyIT
    // once saw K blocked and the other runner's landing undone).
    WorktreeSite w = worktrees(worktree());
    w.prepare("A", backlogDir);
    repo.write("landed.txt", "the other runner's landing\n");
    repo.commitAll("landed by the other runner");
    String landed = repo.head("main");
    w.prepare("K", backlogDir);
    assertNull(w.inspect("K"), "K's agent did nothing");
    assertNull(w.inspect("A"));
    assertEquals(landed, repo.head("main"), "the landing stays");
  }

  @Test
  void an_agent_that_rewinds_the_base_to_where_its_worktree_started_is_blamed_and_put_back() {
    WorktreeSite w = worktrees(worktree());
    Path a = w.prepare("A", backlogDir).workspace();
    String start = repo.head("main");
    repo.write("user.txt", "mine\n");
    repo.commitAll("the user's commit during the run");
    String users = repo.head("main");
    assertNull(w.inspect("A"), "the user's commit is the user's");
    repo.git(a, "update-ref", "refs/heads/main", start); // the agent drops the user's commit from main
    String reason = w.inspect("A");
    assertNotNull(reason, "a rewind to the worktree's start is the agent's move");
    assertTrue(reason.contains("moved the base branch main"), reason);
    assertEquals(users, repo.head("main"), "put back");
  }

  @Test
  void a_base_move_no_worktree_explains_is_the_users_and_is_kept() {
    WorktreeSite w = worktrees(worktree());
    Path a = w.prepare("A", backlogDir).workspace();
    repo.write("user.txt", "mine\n");
    repo.commitAll("the user's commit");
    String main = repo.head("main");
    assertNull(w.inspect("A"));
    assertEquals(main, repo.head("main"));
    GitRepo.write(a, "a.txt", "a\n");
    succeed(w, "A", "build", 1, "built a");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    assertEquals(main, repo.head("main~1"), "A lands on top of the user's commit");
  }

  @Test
  void a_worktree_replaced_by_a_link_to_the_checkout_is_refused_and_the_checkout_keeps_its_git_directory()
      throws Exception {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    Files.move(ws, ws.resolveSibling("A.moved"));
    Files.createSymbolicLink(ws, repo.dir);
    assertTrue(w.inspect("A").contains("was replaced (a symbolic link to " + repo.dir + ")"));
    WorkspaceUnavailableException e = assertThrows(WorkspaceUnavailableException.class,
        () -> w.prepare("A", backlogDir));
    assertTrue(e.getMessage().contains("was replaced"), e.getMessage());
    assertTrue(Files.isDirectory(repo.dir.resolve(".git"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
    assertEquals("", repo.git("status", "--porcelain"));
    assertThrows(RuntimeException.class, () -> w.commit("A", "build", 1, 1, "x"));
    assertTrue(Files.isDirectory(repo.dir.resolve(".git"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void merge_mode_integrates_with_a_merge_commit_whose_first_parent_is_the_base() {
    WorktreeSite w = worktrees(ConfigWithers.withMerge(worktree(), WorkspaceConfig.Merge.MERGE));
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "a.txt", "a\n");
    succeed(w, "A", "build", 1, "built a");
    repo.write("b.txt", "b\n");
    repo.commitAll("meanwhile");
    String base = repo.head("main");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    assertEquals(base, repo.head("main^1"));
    assertEquals("Merge orchestrate/A: Item A", repo.subjects("main").get(0));
  }

  @Test
  void a_conflict_resolved_by_merging_the_base_into_the_branch_integrates_as_it_stands() {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "shared.txt", "from A\n");
    succeed(w, "A", "build", 1, "A wrote shared");
    repo.write("shared.txt", "from main\n");
    repo.commitAll("main wrote shared");
    assertTrue(w.integrate("A", "Item A").blocks());
    repo.git(ws, "merge", "--quiet", "-X", "ours", "main", "-m", "resolve");
    assertEquals("integrated", w.integrate("A", "Item A").kind());
    assertEquals("from A\n", GitRepo.read(repo.dir.resolve("shared.txt")));
  }

  @Test
  void merge_none_leaves_the_branch_and_the_worktree_for_a_pull_request() {
    WorktreeSite w = worktrees(ConfigWithers.withMerge(worktree(), WorkspaceConfig.Merge.NONE));
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "a.txt", "a\n");
    String commit = succeed(w, "A", "build", 1, "built a");
    String base = repo.head("main");
    assertEquals("skipped", w.integrate("A", "Item A").kind());
    assertEquals(base, repo.head("main"));
    assertEquals(commit, repo.head("orchestrate/A"));
    assertTrue(Files.isDirectory(ws));
  }

  @Test
  void retention_removes_finished_worktrees_past_max_age_but_keeps_one_with_uncommitted_work() {
    RetentionConfig.WorktreePolicy policy = new RetentionConfig.WorktreePolicy(
        RetentionConfig.Policy.of(null, Duration.ofDays(1)), false);
    WorktreeSite w = worktrees(ConfigWithers.withMerge(worktree(), WorkspaceConfig.Merge.NONE), policy);
    Path a = w.prepare("A", backlogDir).workspace();
    Path b = w.prepare("B", backlogDir).workspace();
    Path c = w.prepare("C", backlogDir).workspace();
    w.blocked("A");
    w.blocked("B");
    GitRepo.write(b, "fix.txt", "a person's fix in progress\n");
    clock = Clock.fixed(T0.plus(Duration.ofDays(2)), ZoneOffset.UTC);
    WorktreeRetention.Sweep sweep = new WorktreeRetention(Git::new, store, policy, clock).sweep(clock.instant());
    assertEquals(new WorktreeRetention.Sweep(1, 1), sweep);
    assertFalse(Files.exists(a));
    assertTrue(Files.exists(b.resolve("fix.txt")));
    assertTrue(Files.isDirectory(c), "an item at work keeps its worktree");
    assertTrue(repo.git("branch", "--list", "orchestrate/A").contains("orchestrate/A"), "the branch stays");
    // with discard_uncommitted the blocked one goes too
    RetentionConfig.WorktreePolicy discard = new RetentionConfig.WorktreePolicy(policy.policy(), true);
    assertEquals(1, new WorktreeRetention(Git::new, store, discard, clock).sweep(clock.instant()).removed());
    assertFalse(Files.exists(b));
  }

  @Test
  void a_removed_worktree_comes_back_from_its_branch_at_the_last_phase_commit() {
    RetentionConfig.WorktreePolicy policy = new RetentionConfig.WorktreePolicy(RetentionConfig.Policy.of(0, null),
        false);
    WorktreeSite w = worktrees(worktree(), policy);
    Path ws = w.prepare("A", backlogDir).workspace();
    GitRepo.write(ws, "a.txt", "a\n");
    String commit = succeed(w, "A", "design", 1, "designed");
    w.blocked("A");
    w.maintain();
    assertFalse(Files.exists(ws));
    w.prepare("A", backlogDir);
    assertEquals(commit, repo.git(ws, "rev-parse", "HEAD"));
    assertEquals("a\n", GitRepo.read(ws.resolve("a.txt")));
  }

  @Test
  void an_unblocked_item_at_work_again_keeps_its_worktree_through_retention() {
    RetentionConfig.WorktreePolicy policy = new RetentionConfig.WorktreePolicy(RetentionConfig.Policy.of(0, null),
        true);
    WorktreeSite w = worktrees(worktree(), policy);
    Path ws = w.prepare("A", backlogDir).workspace();
    w.blocked("A");
    w.prepare("A", backlogDir); // unblocked: the next attempt
    w.maintain();
    assertTrue(Files.isDirectory(ws));
  }

  @Test
  void hooks_an_agent_planted_never_run_during_orchestrates_commits() throws Exception {
    WorktreeSite w = worktrees(worktree());
    Path ws = w.prepare("A", backlogDir).workspace();
    Path marker = tmp.resolve("hook-ran");
    Path hooks = tmp.resolve("evil-hooks");
    for (String hook : java.util.List.of("pre-commit", "commit-msg", "post-commit", "post-checkout")) {
      GitRepo.write(hooks, hook, "#!/bin/sh\ntouch " + marker + "\nexit 1\n");
      hooks.resolve(hook).toFile().setExecutable(true);
      GitRepo.write(repo.dir.resolve(".git/hooks"), hook, "#!/bin/sh\ntouch " + marker + "\nexit 1\n");
      repo.dir.resolve(".git/hooks").resolve(hook).toFile().setExecutable(true);
    }
    repo.git("config", "core.hooksPath", hooks.toString());
    GitRepo.write(ws, "a.txt", "a\n");
    assertNotNull(succeed(w, "A", "build", 1, "built"));
    w.prepare("A", backlogDir);
    assertFalse(Files.exists(marker), "a hook ran");
  }

  @Test
  void an_item_id_git_cannot_take_as_a_branch_is_refused_without_touching_the_state_directory() {
    WorktreeSite w = worktrees(worktree());
    for (String id : java.util.List.of("..", ".", "a..b", "x.lock")) {
      WorkspaceUnavailableException e = assertThrows(WorkspaceUnavailableException.class,
          () -> w.prepare(id, backlogDir));
      assertTrue(e.getMessage().contains("cannot name a git branch"), e.getMessage());
    }
    assertTrue(Files.isRegularFile(repo.dir.resolve(".orchestrate/state.db")));
    assertTrue(Files.isDirectory(repo.dir.resolve(".orchestrate/worktrees")));
  }

  @Test
  void a_backlog_outside_any_repository_is_refused_with_how_to_fix_it() {
    Path plain = tmp.resolve("plain");
    GitRepo.write(plain, "backlog.yaml", "items: []\n");
    WorkspaceSetupException e = assertThrows(WorkspaceSetupException.class,
        () -> Repository.discover(new Git(), plain, null));
    assertTrue(e.getMessage().contains("not inside a git repository"), e.getMessage());
    assertTrue(e.getMessage().contains("git init"), e.getMessage());
  }

  @Test
  void a_detached_head_without_a_base_branch_is_refused() {
    repo.git("checkout", "--quiet", "--detach");
    WorkspaceSetupException e = assertThrows(WorkspaceSetupException.class,
        () -> Repository.discover(new Git(), repo.dir, null));
    assertTrue(e.getMessage().contains("execution.base_branch"), e.getMessage());
    assertEquals("main", Repository.discover(new Git(), repo.dir, "main").baseBranch());
  }

  @Test
  void an_unknown_base_branch_is_refused() {
    WorkspaceSetupException e = assertThrows(WorkspaceSetupException.class,
        () -> Repository.discover(new Git(), repo.dir, "trunk"));
    assertTrue(e.getMessage().contains("'trunk'"), e.getMessage());
  }
}
