package dev.orchestrate.workspace;

import dev.orchestrate.config.WorkspaceConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code unblock --rebase} (docs/workspaces.md), for {@link Worktrees}: a blocked item's branch
 * brought onto the current tip of its base branch, through the worktrees' guard and base watch.
 */
final class Rebaser {
  private static final Logger log = LoggerFactory.getLogger(Worktrees.class);

  private final Worktrees worktrees;
  private final Git git;
  private final Repository repo;
  private final WorkspaceStore store;
  private final Clock clock;
  private final WorkspaceConfig.Author author;
  private final Path root;

  Rebaser(Worktrees worktrees, Git git, Repository repo, WorkspaceStore store, Clock clock,
      WorkspaceConfig.Author author, Path root) {
    this.worktrees = worktrees;
    this.git = git;
    this.repo = repo;
    this.store = store;
    this.clock = clock;
    this.author = author;
    this.root = root;
  }

  /**
   * Brings a blocked item's branch onto the current tip of its base branch before its next attempt
   * ({@code unblock --rebase}, docs/workspaces.md), with no run and no agent at work on the item. The
   * branch is taken as it is now: when a person moved it since orchestrate recorded its last phase
   * commit (committed a fix on it, rebased it by hand), that tip is kept and rebased, not the
   * recorded one. The worktree (verified first, re-created if retention removed it) is reset to that
   * tip, as the next attempt would; its uncommitted files are discarded. On success the rebased tip is
   * recorded as the item's last phase commit and the base's tip as its base; a conflict aborts the
   * rebase, records nothing, and names the files. The base branch is only read, never moved.
   */
  Rebase onto(String itemId, boolean guarded) {
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null) {
      return new Rebase("no_worktree", Worktrees.BRANCH_PREFIX + itemId, repo.baseBranch(), null, null, null, false,
          null);
    }
    try {
      if (!guarded) {
        return refused(ws, "the worktrees' directory " + root + " is missing");
      }
      SharedRemote remote = worktrees.remote();
      if (remote == null && !Worktrees.commonDir(ws).equals(repo.commonDir())) {
        return refused(ws, "its worktree belongs to the repository " + Worktrees.commonDir(ws) + ", not to "
            + repo.commonDir()
            + ": run unblock from a checkout of that repository");
      }
      if (!ws.onDisk() || !worktrees.mine(ws) || WorktreeGuard.missing(ws.path())
          || WorktreeGuard.missing(ws.gitDir())) {
        ws = worktrees.recreated(ws); // from the shared remote when another clone made it
        store.setUp(itemId, null);
      } else if (remote != null) {
        ws = worktrees.restored(ws);
        store.setUp(itemId, null);
      }
      Git.Place place = worktrees.guardedPlace(ws);
      BaseRefs bases = worktrees.bases();
      bases.watch(ws.baseBranch());
      String base = remote == null ? bases.expected(ws.baseBranch()) : remote.fetchBase(ws.baseBranch());
      if (base == null) {
        return refused(ws, "the base branch " + ws.baseBranch() + " has no commit");
      }
      String from = git.commit(repo.checkout(), "refs/heads/" + ws.branch());
      if (from == null) {
        return refused(ws, "its branch " + ws.branch() + " is gone");
      }
      boolean moved = !from.equals(ws.headCommit());
      git.ok(place, "reset", "--quiet", "--hard", from);
      git.ok(place, "clean", "-ffdq");
      String head = from;
      if (!git.run(place, "merge-base", "--is-ancestor", base, "HEAD").ok()) {
        Git.Result rebase = git.run(place, author.environment(),
            List.of("rebase", "--quiet", "--no-autostash", base));
        if (!rebase.ok()) {
          List<String> files = git.conflicts(place);
          git.run(place, "rebase", "--abort");
          git.ok(place, "reset", "--quiet", "--hard", from);
          String why = files.isEmpty()
              ? "rebasing " + ws.branch() + " onto " + ws.baseBranch() + " failed: " + rebase.lockHeld()
                  .orElse("git failed: " + rebase.reason())
              : "rebasing " + ws.branch() + " onto " + ws.baseBranch() + " conflicts in " + String.join(", ", files)
                  + ": resolve it on branch " + ws.branch() + " in " + ws.path() + " (git rebase " + ws.baseBranch()
                  + ", fix the files, git add them, git rebase --continue), then unblock " + itemId + " --rebase";
          return new Rebase(files.isEmpty() ? "refused" : "conflict", ws.branch(), ws.baseBranch(), from,
              ws.headCommit(),
              base, moved, why);
        }
        head = git.ok(place, "rev-parse", "HEAD").line();
      }
      boolean rebased = !head.equals(from);
      if (!head.equals(ws.headCommit()) || !base.equals(ws.baseCommit()) || ws.pendingCommit() != null) {
        store.save(new WorkspaceRecord(ws.itemId(), ws.path(), ws.branch(), ws.baseBranch(), ws.gitDir(), base, head,
            null, null, ws.integration(), ws.note(), DiskUsage.of(ws.path()), ws.createdAt(), ws.finishedAt(),
            ws.removedAt()), clock.instant());
        if (remote != null && !head.equals(ws.headCommit())) {
          remote.publish(itemId, head, ws.headCommit().equals(ws.baseCommit()) ? null : ws.headCommit());
        }
      }
      log.debug("{}: {} {} onto {} at {}", itemId, ws.branch(), rebased ? "rebased" : "already", ws.baseBranch(), base);
      return new Rebase(rebased ? "rebased" : "up_to_date", ws.branch(), ws.baseBranch(), from, head, base, moved,
          null);
    } catch (GitException | IOException | UncheckedIOException | WorktreeGuard.Breach e) {
      return refused(ws, e.getMessage());
    }
  }

  static Rebase refused(WorkspaceRecord ws, String why) {
    return new Rebase("refused", ws.branch(), ws.baseBranch(), null, ws.headCommit(), null, false,
        "cannot rebase " + ws.branch() + " onto " + ws.baseBranch() + ": " + why);
  }
}
