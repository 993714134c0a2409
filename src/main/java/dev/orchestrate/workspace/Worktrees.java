package dev.orchestrate.workspace;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.scheduler.ItemWorkspaces;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A git worktree and branch per item (docs/workspaces.md): {@code <state>/worktrees/<ID>} on
 * {@code orchestrate/<ID>}, created from the base branch when the item first runs a phase.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>Every attempt starts from the item's last phase commit: tracked files are reset to it and
 *   untracked files removed ({@code git clean -ffd}: ignored files — build outputs, installed
 *   dependencies — survive, so a retry does not rebuild the world; they are derived from tracked
 *   files and never committed).</li>
 *   <li>A successful phase becomes exactly one commit on the branch, made by orchestrate with
 *   {@code git add -A}. An agent that committed itself, moved HEAD or left a rebase half-done has
 *   its branch put back: HEAD is pointed at {@code orchestrate/<ID>}, the branch reset (soft) to
 *   the last phase commit, so whatever the agent committed is squashed into the phase commit.</li>
 *   <li>The database is the truth: the phase commit is recorded pending, and becomes the item's
 *   start only when its job is recorded as completed (see {@link WorkspaceStore}).</li>
 *   <li>Integration at Done, one item at a time (the scheduler thread): the branch is rebased onto
 *   the base branch (or merged into it), and the base branch moves forward only by a fast-forward
 *   git itself checks: {@code update-ref} with the old value when no work tree has it checked out,
 *   {@code merge --ff-only} in the work tree that has it, which refuses rather than overwrite a
 *   local change.</li>
 * </ul>
 * Every git command runs with hooks off (see {@link Git}) and against the worktree's own
 * administrative directory, checked before anything destructive: an agent that deleted or
 * replaced the worktree's {@code .git} file cannot make orchestrate reset the user's checkout.
 */
public final class Worktrees implements ItemWorkspaces {
  private static final Logger log = LoggerFactory.getLogger(Worktrees.class);
  public static final String BRANCH_PREFIX = "orchestrate/";
  /** State an agent may leave in a worktree's git directory that would make our commands fail. */
  private static final List<String> STALE_STATE = List.of("index.lock", "HEAD.lock", "MERGE_HEAD", "MERGE_MSG",
      "MERGE_MODE", "CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG", "rebase-merge", "rebase-apply", "sequencer");
  /** Attempts to move the base branch when it moves under us (a commit by the user meanwhile). */
  private static final int INTEGRATION_ATTEMPTS = 3;

  private final Git git;
  private final Repository repo;
  private final WorkspaceConfig config;
  private final RetentionConfig.Worktrees retention;
  private final WorkspaceStore store;
  private final Path root;
  private final Clock clock;

  /**
   * @param root where the worktrees go ({@code <state>/worktrees}); created, with a
   *             {@code .gitignore} of {@code *} so that the user's {@code git add -A} in the main
   *             checkout never picks the nested worktrees up
   */
  public Worktrees(Git git, Repository repo, WorkspaceConfig config, RetentionConfig.Worktrees retention,
      WorkspaceStore store, Path root, Clock clock) {
    this.git = Objects.requireNonNull(git, "git");
    this.repo = Objects.requireNonNull(repo, "repo");
    this.config = Objects.requireNonNull(config, "config");
    this.retention = Objects.requireNonNull(retention, "retention");
    this.store = Objects.requireNonNull(store, "store");
    this.root = root.toAbsolutePath().normalize();
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Prepares the worktrees directory and settles what a crashed run left pending. The state
   * directory gets a {@code .gitignore} of {@code *} when it has none: inside the repository it
   * would otherwise show up in the user's {@code git status}, worktrees and database included.
   */
  public Worktrees open() {
    try {
      Files.createDirectories(root);
      Path stateIgnore = root.getParent().resolve(".gitignore");
      if (!Files.exists(stateIgnore)) {
        Files.writeString(stateIgnore, "# orchestrate's state: never part of the repository\n*\n",
            StandardCharsets.UTF_8);
      }
      Path ignore = root.resolve(".gitignore");
      if (!Files.isRegularFile(ignore)) {
        Files.writeString(ignore, "# orchestrate's worktrees: never part of the repository\n*\n",
            StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + root, e);
    }
    int dropped = store.settlePending(clock.instant());
    if (dropped > 0) {
      log.info("{} phase commit(s) of jobs that did not complete were dropped", dropped);
    }
    git.run(repo.top(), "worktree", "prune");
    return this;
  }

  public Repository repository() {
    return repo;
  }

  @Override
  public boolean destructiveRunsAlone() {
    return config.destructiveRunsAlone();
  }

  @Override
  public Placement prepare(String itemId, Path backlogDir) {
    try {
      WorkspaceRecord ws = store.workspace(itemId).orElse(null);
      if (ws != null && ws.finishedAt() != null) {
        store.finished(itemId, null, clock.instant()); // at work again: retention leaves it alone
        ws = store.workspace(itemId).orElseThrow();
      }
      if (ws == null) {
        ws = create(itemId);
      } else if (!ws.onDisk() || !Files.isDirectory(ws.path()) || !Files.exists(ws.gitDir())) {
        ws = recreate(ws);
      }
      reset(ws);
      Path workDir = ws.path().resolve(repo.subdirectory().toString());
      Files.createDirectories(workDir);
      return new Placement(workDir, ws.path(), ws.branch());
    } catch (GitException | IOException | UncheckedIOException e) {
      throw new Unavailable("could not prepare the worktree of " + itemId + ": " + e.getMessage());
    }
  }

  private WorkspaceRecord create(String itemId) throws IOException {
    String branch = BRANCH_PREFIX + itemId;
    Path path = root.resolve(itemId).normalize();
    // Item ids allow '.' and '..', and dots where git refuses them ("a..b", "x.lock"): such an id
    // names neither a worktree under <state>/worktrees nor a branch.
    if (!root.equals(path.getParent()) || !git.run(repo.top(), "check-ref-format", "refs/heads/" + branch).ok()) {
      throw new Unavailable("item id '" + itemId + "' cannot name a git branch (" + branch + ") or a worktree "
          + "directory: give the item an id without '..', a leading or trailing '.', or a '.lock' ending");
    }
    String baseCommit = git.ok(repo.top(), "rev-parse", "--verify", "refs/heads/" + repo.baseBranch() + "^{commit}")
        .line();
    String existing = revParse(repo.top(), "refs/heads/" + branch);
    if (existing != null) {
      // Left by a run that crashed between `worktree add` and recording it, or by another state
      // directory. Adopted only when it holds no work of its own; anything else is someone's.
      if (!git.run(repo.top(), "merge-base", "--is-ancestor", existing, baseCommit).ok()) {
        throw new Unavailable("branch " + branch + " already exists with commits the state does not know: "
            + "delete it (git branch -D " + branch + ") or rename it, then unblock " + itemId);
      }
      forget(path);
      git.ok(repo.top(), "worktree", "add", "--quiet", "--force", path.toString(), branch);
    } else {
      forget(path);
      git.ok(repo.top(), "worktree", "add", "--quiet", "-b", branch, path.toString(), baseCommit);
    }
    Path gitDir = Path.of(git.ok(path, "rev-parse", "--absolute-git-dir").line());
    WorkspaceRecord ws = new WorkspaceRecord(itemId, path, branch, repo.baseBranch(), gitDir, baseCommit,
        baseCommit, null, null, null, null, DiskUsage.of(path), clock.instant(), null, null);
    store.save(ws, clock.instant());
    log.debug("created worktree {} on {} from {}", path, branch, baseCommit);
    return ws;
  }

  /** The worktree was removed (retention) or lost: back on disk at its branch's last phase commit. */
  private WorkspaceRecord recreate(WorkspaceRecord ws) throws IOException {
    forget(ws.path());
    if (revParse(repo.top(), "refs/heads/" + ws.branch()) != null) {
      git.ok(repo.top(), "worktree", "add", "--quiet", "--force", ws.path().toString(), ws.branch());
    } else {
      git.ok(repo.top(), "worktree", "add", "--quiet", "-b", ws.branch(), ws.path().toString(), ws.headCommit());
    }
    Path gitDir = Path.of(git.ok(ws.path(), "rev-parse", "--absolute-git-dir").line());
    WorkspaceRecord again = new WorkspaceRecord(ws.itemId(), ws.path(), ws.branch(), ws.baseBranch(), gitDir,
        ws.baseCommit(), ws.headCommit(), null, null, ws.integration(), ws.note(), DiskUsage.of(ws.path()),
        ws.createdAt(), ws.finishedAt(), null);
    store.save(again, clock.instant());
    return again;
  }

  /** A directory at {@code path} that git no longer knows as a worktree is ours to delete. */
  private void forget(Path path) throws IOException {
    if (Files.exists(path)) {
      git.run(repo.top(), "worktree", "remove", "--force", "--force", path.toString());
      DiskUsage.delete(path);
      git.run(repo.top(), "worktree", "prune");
    } else if (store.onDisk().stream().noneMatch(ws -> ws.path().equals(path))) {
      return; // never registered, or removed through git: open() pruned what a crash left
    } else {
      git.run(repo.top(), "worktree", "prune");
    }
  }

  /** Tracked files back at the last phase commit, untracked ones gone, HEAD on the item's branch. */
  private void reset(WorkspaceRecord ws) {
    guard(ws);
    git.ok(ws.path(), "reset", "--quiet", "--hard", ws.headCommit());
    git.ok(ws.path(), "clean", "-ffdq");
  }

  /**
   * Makes the worktree's git state ours again before we act on it: the {@code .git} file points at
   * its administrative directory, no lock or half-done rebase or merge is left there, and HEAD is
   * the item's branch. Then checks that git really sees this worktree, never the repository it is
   * nested in.
   */
  private void guard(WorkspaceRecord ws) {
    Path dotGit = ws.path().resolve(".git");
    String pointer = "gitdir: " + ws.gitDir() + "\n";
    try {
      if (Files.isDirectory(dotGit, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        DiskUsage.delete(dotGit); // an agent's `git init` in its workspace root
      }
      if (!Files.isRegularFile(dotGit, java.nio.file.LinkOption.NOFOLLOW_LINKS)
          || !Files.readString(dotGit, StandardCharsets.UTF_8).equals(pointer)) {
        Files.deleteIfExists(dotGit);
        Files.writeString(dotGit, pointer, StandardCharsets.UTF_8);
      }
      for (String name : STALE_STATE) {
        DiskUsage.delete(ws.gitDir().resolve(name));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot repair " + dotGit, e);
    }
    String seen = git.ok(ws.path(), "rev-parse", "--absolute-git-dir").line();
    if (!Path.of(seen).equals(ws.gitDir())) {
      throw new GitException("git sees " + seen + " in " + ws.path() + ", not the worktree's " + ws.gitDir());
    }
    git.ok(ws.path(), "symbolic-ref", "HEAD", "refs/heads/" + ws.branch());
  }

  @Override
  public String commit(String itemId, String phase, int attempt, long jobId, String summary) {
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null || !ws.onDisk()) {
      return null;
    }
    guard(ws);
    // Whatever the agent committed itself is folded into the one phase commit.
    git.ok(ws.path(), "reset", "--quiet", "--soft", ws.headCommit());
    git.ok(ws.path(), "add", "--all");
    if (git.run(ws.path(), "diff", "--cached", "--quiet").ok()) {
      return null;
    }
    List<String> args = new ArrayList<>(List.of("commit", "--quiet", "--no-verify", "--no-edit",
        "-m", itemId + " " + phase + ": " + firstLine(summary),
        "-m", "Orchestrate-Job: " + jobId + "\nOrchestrate-Attempt: " + attempt));
    git.ok(ws.path(), author(), args).line();
    String commit = git.ok(ws.path(), "rev-parse", "HEAD").line();
    store.commitPending(itemId, commit, jobId, DiskUsage.of(ws.path()), clock.instant());
    return commit;
  }

  @Override
  public void committed(String itemId) {
    store.commitConfirmed(itemId, clock.instant());
  }

  @Override
  public void blocked(String itemId) {
    store.workspace(itemId).ifPresent(ws -> store.finished(itemId, clock.instant(), clock.instant()));
  }

  @Override
  public List<String> integrationPending() {
    List<String> ids = new ArrayList<>();
    for (WorkspaceRecord ws : store.onDisk()) {
      if (ws.finishedAt() != null
          && (ws.integration() == null || ws.integration() == WorkspaceRecord.Integration.DEFERRED
              || ws.integration() == WorkspaceRecord.Integration.CONFLICT)) {
        ids.add(ws.itemId());
      }
    }
    return ids;
  }

  @Override
  public Integration integrate(String itemId, String title) {
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null) {
      return Integration.NONE; // never ran a phase here (done in the backlog, say)
    }
    Instant now = clock.instant();
    if (ws.finishedAt() == null) {
      store.finished(itemId, now, now);
    }
    if (config.merge() == WorkspaceConfig.Merge.NONE) {
      store.integration(itemId, WorkspaceRecord.Integration.SKIPPED, null, now);
      return new Integration("skipped", "branch " + ws.branch() + " left for a pull request (execution.merge: none)");
    }
    try {
      if (!ws.onDisk() || !Files.isDirectory(ws.path())) {
        ws = recreate(ws);
      }
      guard(ws);
      String dirty = git.ok(ws.path(), "status", "--porcelain").out();
      if (!dirty.isBlank()) {
        return deferred(ws, "the worktree " + ws.path() + " has uncommitted changes: commit them on "
            + ws.branch() + " (or discard them); the next run integrates");
      }
      for (int attempt = 1; attempt <= INTEGRATION_ATTEMPTS; attempt++) {
        String base = git.ok(repo.top(), "rev-parse", "--verify", "refs/heads/" + ws.baseBranch() + "^{commit}").line();
        Integrated result = config.merge() == WorkspaceConfig.Merge.MERGE
            ? merge(ws, base, title)
            : rebase(ws, base);
        if (result.conflicts() != null) {
          String reason = "integration into " + ws.baseBranch() + " conflicts in "
              + String.join(", ", result.conflicts())
              + ": resolve it on branch " + ws.branch() + " in " + ws.path() + " (e.g. git rebase " + ws.baseBranch()
              + "), commit, then unblock " + itemId;
          store.integration(itemId, WorkspaceRecord.Integration.CONFLICT, reason, now);
          return new Integration("conflict", reason);
        }
        Advance advance = advanceBase(ws, base, result.tip());
        if (advance == Advance.DONE) {
          return integrated(ws, result.tip());
        }
        if (advance instanceof Advance.Refused refused) {
          return deferred(ws, refused.reason());
        }
        // the base branch moved meanwhile: rebase again onto its new tip
      }
      return deferred(ws,
          "the base branch " + ws.baseBranch() + " kept moving during integration; the next run tries again");
    } catch (GitException | IOException | UncheckedIOException e) {
      return deferred(ws, "integration failed: " + e.getMessage());
    }
  }

  private Integration deferred(WorkspaceRecord ws, String reason) {
    store.integration(ws.itemId(), WorkspaceRecord.Integration.DEFERRED, reason, clock.instant());
    log.warn("{}: not integrated: {}", ws.itemId(), reason);
    return new Integration("deferred", reason);
  }

  private Integration integrated(WorkspaceRecord ws, String tip) {
    Instant now = clock.instant();
    store.headMoved(ws.itemId(), tip, now);
    store.integration(ws.itemId(), WorkspaceRecord.Integration.INTEGRATED, null, now);
    remove(ws);
    if (config.deleteMergedBranches()) {
      git.run(repo.top(), "branch", "--quiet", "-D", ws.branch());
    }
    return new Integration("integrated", ws.branch() + " integrated into " + ws.baseBranch() + " at "
        + tip.substring(0, Math.min(12, tip.length())));
  }

  /** The tip to fast-forward the base branch to, or the files that conflict. */
  private record Integrated(String tip, List<String> conflicts) {
  }

  private Integrated rebase(WorkspaceRecord ws, String base) {
    if (git.run(ws.path(), "merge-base", "--is-ancestor", base, "HEAD").ok()) {
      // already on top of the base (nothing new there, or a person merged it in to resolve a conflict)
      return new Integrated(git.ok(ws.path(), "rev-parse", "HEAD").line(), null);
    }
    Git.Result rebase = git.run(ws.path(), author(), List.of("rebase", "--quiet", "--no-autostash", base));
    if (!rebase.ok()) {
      List<String> files = conflicts(ws);
      git.run(ws.path(), "rebase", "--abort");
      return new Integrated(null, files.isEmpty() ? List.of("(git: " + rebase.reason() + ")") : files);
    }
    return new Integrated(git.ok(ws.path(), "rev-parse", "HEAD").line(), null);
  }

  /** A merge commit of the branch on top of the base, made on a detached HEAD in the item's worktree. */
  private Integrated merge(WorkspaceRecord ws, String base, String title) {
    git.ok(ws.path(), "checkout", "--quiet", "--detach", base);
    Git.Result merge = git.run(ws.path(), author(), List.of("merge", "--quiet", "--no-ff", "--no-edit",
        "-m", "Merge " + ws.branch() + ": " + firstLine(title), ws.branch()));
    if (!merge.ok()) {
      List<String> files = conflicts(ws);
      git.run(ws.path(), "merge", "--abort");
      git.run(ws.path(), "reset", "--quiet", "--hard");
      git.ok(ws.path(), "checkout", "--quiet", ws.branch());
      return new Integrated(null, files.isEmpty() ? List.of("(git: " + merge.reason() + ")") : files);
    }
    String tip = git.ok(ws.path(), "rev-parse", "HEAD").line();
    git.ok(ws.path(), "checkout", "--quiet", ws.branch());
    return new Integrated(tip, null);
  }

  private List<String> conflicts(WorkspaceRecord ws) {
    return git.run(ws.path(), "diff", "--name-only", "--diff-filter=U").out().lines()
        .filter(l -> !l.isBlank()).distinct().limit(50).toList();
  }

  private sealed interface Advance {
    Advance DONE = new Done();
    Advance MOVED = new Moved();

    record Done() implements Advance {
    }

    record Moved() implements Advance {
    }

    record Refused(String reason) implements Advance {
    }
  }

  /**
   * Moves the base branch from {@code base} to {@code tip} (a descendant). Where a work tree has
   * the base branch checked out, git's own fast-forward merge does it there, and refuses when a
   * local change would be overwritten: the user's uncommitted work is never touched.
   */
  private Advance advanceBase(WorkspaceRecord ws, String base, String tip) {
    Path checkout = checkedOut(ws.baseBranch());
    if (checkout == null) {
      Git.Result update = git.run(repo.top(), "update-ref", "-m", "orchestrate: integrate " + ws.branch(),
          "refs/heads/" + ws.baseBranch(), tip, base);
      return update.ok() ? Advance.DONE : Advance.MOVED;
    }
    String now = revParse(checkout, "HEAD");
    if (!base.equals(now)) {
      return Advance.MOVED;
    }
    Git.Result merge = git.run(checkout, "merge", "--quiet", "--ff-only", tip);
    if (merge.ok()) {
      return Advance.DONE;
    }
    if (!base.equals(revParse(checkout, "HEAD"))) {
      return Advance.MOVED;
    }
    return new Advance.Refused("the base branch " + ws.baseBranch() + " is checked out in " + checkout
        + " with local changes the fast-forward would overwrite (" + merge.reason() + "): commit or stash them; "
        + "the next run integrates " + ws.branch());
  }

  /** The work tree that has {@code branch} checked out, or null. */
  private Path checkedOut(String branch) {
    String list = git.ok(repo.top(), "worktree", "list", "--porcelain").out();
    Path current = null;
    for (String line : list.lines().toList()) {
      if (line.startsWith("worktree ")) {
        current = Path.of(line.substring("worktree ".length()));
      } else if (line.equals("branch refs/heads/" + branch)) {
        return current;
      }
    }
    return null;
  }

  /** Removes an integrated worktree from disk (its work is on the base branch; the branch stays or goes by config). */
  private void remove(WorkspaceRecord ws) {
    if (WorktreeRetention.removeFromDisk(git, ws, true)) {
      store.removed(ws.itemId(), clock.instant());
    } else {
      log.warn("{}: could not remove the worktree {}", ws.itemId(), ws.path());
    }
  }

  @Override
  public void maintain() {
    new WorktreeRetention(git, store, retention, clock).sweep(clock.instant());
  }

  /** The repository's git directory, from the worktree's administrative one (…/.git/worktrees/X). */
  static Path commonDir(WorkspaceRecord ws) {
    Path parent = ws.gitDir().getParent();
    return parent != null && parent.getParent() != null ? parent.getParent() : ws.gitDir();
  }

  private String revParse(Path dir, String ref) {
    Git.Result r = git.run(dir, "rev-parse", "--verify", "--quiet", ref + "^{commit}");
    return r.ok() ? r.line() : null;
  }

  private Map<String, String> author() {
    WorkspaceConfig.Author a = config.commitAuthor();
    return Map.of("GIT_AUTHOR_NAME", a.name(), "GIT_AUTHOR_EMAIL", a.email(),
        "GIT_COMMITTER_NAME", a.name(), "GIT_COMMITTER_EMAIL", a.email());
  }

  static String firstLine(String text) {
    if (text == null || text.isBlank()) {
      return "phase complete";
    }
    String line = text.strip().lines().findFirst().orElse("").strip();
    return line.length() > 72 ? line.substring(0, 69) + "..." : line;
  }
}
