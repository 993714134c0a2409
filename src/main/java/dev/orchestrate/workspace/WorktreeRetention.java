package dev.orchestrate.workspace;

import dev.orchestrate.config.RetentionConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
  private static final Logger log = LoggerFactory.getLogger(WorktreeRetention.class);
  private final Supplier<Git> gitFactory;
  private Git git;
  private final WorkspaceStore store;
  private final RetentionConfig.WorktreePolicy policy;
  private final Clock clock;

  /**
   * @param git makes the git the sweep removes worktrees with, at the first one it removes (finding
   *            the executable costs a short {@code compact} with none to remove)
   */
  public WorktreeRetention(Supplier<Git> git, WorkspaceStore store, RetentionConfig.WorktreePolicy policy,
      Clock clock) {
    this.gitFactory = git;
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
    if (git == null) {
      git = gitFactory.get();
    }
    if (!removeFromDisk(git, ws, policy.discardUncommitted())) {
      return false;
    }
    store.removed(ws.itemId(), clock.instant());
    return true;
  }

  /**
   * Removes a worktree's directory and its registration (never its branch). Unless
   * {@code discardUncommitted}, one with uncommitted changes stays. A worktree that is not the
   * directory orchestrate made (a link an agent put in its place, a replaced administrative
   * directory) stays too: nothing is deleted through it. Returns whether it is gone.
   */
  static boolean removeFromDisk(Git git, WorkspaceRecord ws, boolean discardUncommitted) {
    return removeFromDisk(git, ws, discardUncommitted, null);
  }

  /**
   * {@link #removeFromDisk(Git, WorkspaceRecord, boolean)}, the registry's entry removed under
   * {@code registry} (null: the caller holds what it needs) and the work tree's files deleted
   * before it is taken: on a large repository that deletion takes seconds, and another item's
   * {@code worktree add} waits only for the entry.
   */
  static boolean removeFromDisk(Git git, WorkspaceRecord ws, boolean discardUncommitted,
      java.util.concurrent.locks.Lock registry) {
    Path common = Worktrees.commonDir(ws);
    Git.Place repository = Git.Place.repository(common);
    if (WorktreeGuard.missing(ws.path())) {
      locked(registry, () -> {
        WorktreeGuard.disarmRegistry(common);
        git.run(repository, "worktree", "prune");
      });
      return true;
    }
    Git.Place place;
    try {
      Path parent = ws.path().getParent();
      if (Files.isSymbolicLink(parent)) {
        throw new WorktreeGuard.Breach(parent + " is a symbolic link");
      }
      place = new WorktreeGuard(parent.toRealPath(), common.toRealPath()).verify(ws);
    } catch (IOException | WorktreeGuard.Breach e) {
      log.warn("{}: the worktree {} is kept: {}", ws.itemId(), ws.path(), e.getMessage());
      return false;
    }
    if (!discardUncommitted) {
      Git.Result status = git.run(place, "status", "--porcelain", "--untracked-files=all", "--ignore-submodules=all");
      if (!status.ok() || !status.out().isBlank()) {
        return false;
      }
    }
    // What `git worktree remove --force --force` does, without a git process (and its configuration
    // check): the work tree deleted, then its administrative directory, both just verified as the
    // real directories orchestrate made, no link followed. Whatever is left (a file that cannot be
    // deleted) is pruned by git, as when that command failed.
    try {
      DiskUsage.delete(ws.path());
    } catch (IOException e) {
      return false;
    }
    locked(registry, () -> {
      try {
        DiskUsage.delete(place.commonDir().resolve("worktrees").resolve(place.gitDir().getFileName().toString()));
      } catch (IOException e) {
        WorktreeGuard.disarmRegistry(common);
        git.run(repository, "worktree", "prune");
      }
    });
    return true;
  }

  private static void locked(java.util.concurrent.locks.Lock lock, Runnable work) {
    if (lock == null) {
      work.run();
      return;
    }
    lock.lock();
    try {
      work.run();
    } finally {
      lock.unlock();
    }
  }
}
