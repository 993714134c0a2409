package dev.orchestrate.workspace;

import dev.orchestrate.config.RetentionConfig;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;

/**
 * Retention of worktrees ({@code retention.worktrees}): the worktrees of items that are done or
 * blocked are removed once older than {@code max_age} (counted from when the item finished), and
 * the oldest finished ones while more than the target share of {@code max_rows} are on disk. A
 * worktree of an item still at work is never removed; neither is one with uncommitted changes
 * (a person's fix of a conflict, say) unless {@code discard_uncommitted} is set. Branches stay:
 * a removed worktree comes back from its branch if the item runs again.
 *
 * <p>Needs no repository discovery: every record knows its worktree and administrative
 * directory, so {@code compact} can run it from the state alone.
 */
public final class WorktreeRetention {
  private final Git git;
  private final WorkspaceStore store;
  private final RetentionConfig.Worktrees policy;
  private final Clock clock;

  public WorktreeRetention(Git git, WorkspaceStore store, RetentionConfig.Worktrees policy, Clock clock) {
    this.git = git;
    this.store = store;
    this.policy = policy;
    this.clock = clock;
  }

  /** What one sweep did. */
  public record Sweep(int removed, int keptUncommitted) {
  }

  public Sweep sweep(Instant now) {
    List<WorkspaceRecord> live = store.onDisk();
    OptionalInt target = policy.policy().targetRows();
    int over = target.isPresent() ? Math.max(0, live.size() - target.getAsInt()) : 0;
    int removed = 0;
    int kept = 0;
    for (WorkspaceRecord ws : live) {
      if (ws.finishedAt() == null) {
        continue; // at work: never removed (and listed last)
      }
      boolean old = policy.policy().age().map(age -> ws.finishedAt().plus(age).isBefore(now)).orElse(false);
      if (!old && removed >= over) {
        continue;
      }
      if (remove(ws)) {
        removed++;
      } else {
        kept++;
      }
    }
    return new Sweep(removed, kept);
  }

  private boolean remove(WorkspaceRecord ws) {
    if (!removeFromDisk(git, ws, policy.discardUncommitted())) {
      return false;
    }
    store.removed(ws.itemId(), clock.instant());
    return true;
  }

  /**
   * Removes a worktree's directory and its registration (never its branch). Unless
   * {@code discardUncommitted}, one with uncommitted changes stays — and so does one where git does
   * not see the worktree's own repository (its {@code .git} file damaged): its status cannot be
   * trusted. Returns whether it is gone.
   */
  static boolean removeFromDisk(Git git, WorkspaceRecord ws, boolean discardUncommitted) {
    if (!Files.isDirectory(ws.path())) {
      git.run(Worktrees.commonDir(ws), "worktree", "prune");
      return true;
    }
    if (!discardUncommitted) {
      Git.Result gitDir = git.run(ws.path(), "rev-parse", "--absolute-git-dir");
      Git.Result status = git.run(ws.path(), "status", "--porcelain");
      if (!gitDir.ok() || !java.nio.file.Path.of(gitDir.line()).equals(ws.gitDir())
          || !status.ok() || !status.out().isBlank()) {
        return false;
      }
    }
    Git.Result removed = git.run(Worktrees.commonDir(ws), "worktree", "remove", "--force", "--force",
        ws.path().toString());
    if (!removed.ok()) {
      try {
        DiskUsage.delete(ws.path());
      } catch (java.io.IOException e) {
        return false;
      }
      git.run(Worktrees.commonDir(ws), "worktree", "prune");
    }
    return true;
  }
}
