package dev.orchestrate.workspace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Landed items' worktrees kept, on a large repository, as the next items' (issue 46): a new
 * worktree there writes every file of the checkout and a landed one's removal deletes them all,
 * seconds of CPU an item on 10,000 files, where moving a kept one into place and checking out what
 * differs costs a fraction of a second (docs/benchmarks.md).
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>At most {@value #MAX} are kept, each a registered worktree with a detached HEAD (the
 *   landed branch free to be deleted) at {@code <state>/worktrees/+spare-<pid>-<n>}: never an
 *   item's directory (ids cannot hold a {@code +}), and named by this process, so that runners of
 *   one checkout never take each other's.</li>
 *   <li>Taken, one is moved to the new item's directory ({@code git worktree move}), its files
 *   checked out at the item's start on the item's new branch ({@code checkout --force -B}) and
 *   everything untracked deleted, ignored files included ({@code clean -ffdx}): nothing the last
 *   item's agent left, build outputs neither, reaches the next item.</li>
 *   <li>Whatever fails (a worktree git will not move: a submodule, a lock an agent planted) is
 *   given up: the item gets a new worktree as before, the landed one is deleted as before.</li>
 *   <li>The run's end deletes them ({@link #dropAll}); what a killed run left is deleted when the
 *   next one opens ({@link #dropLeftovers}), unless its process still runs.</li>
 * </ul>
 * Moves and deletions of the registry run under the worktrees' layout lock, as every
 * {@code worktree add} does; the checkouts run beside other items' work.
 */
final class SpareWorktrees {
  private static final Logger log = LoggerFactory.getLogger(SpareWorktrees.class);
  static final int MAX = 4;
  static final String PREFIX = "+spare-";

  private final Git git;
  private final Git.Place checkout;
  private final Path root;
  private final Path commonDir;
  private final Deque<Path> kept = new ConcurrentLinkedDeque<>();
  private final AtomicInteger names = new AtomicInteger();
  private final String prefix = PREFIX + ProcessHandle.current().pid() + "-";

  SpareWorktrees(Git git, Git.Place checkout, Path root, Path commonDir) {
    this.git = git;
    this.checkout = checkout;
    this.root = root;
    this.commonDir = commonDir;
  }

  /** How many are kept now. */
  int size() {
    return kept.size();
  }

  /**
   * Keeps the landed worktree at {@code place} (verified by the caller) for a later item; false when
   * there are {@value #MAX} already or git would not have it, and the caller deletes it as before.
   */
  boolean keep(Git.Place place, Lock layout) {
    if (kept.size() >= MAX) {
      return false;
    }
    Path spare = root.resolve(prefix + names.incrementAndGet());
    try {
      // HEAD off the branch, at its commit, so that the branch can be deleted: the file alone (a
      // checkout --detach would read every file's status)
      git.ok(place, "update-ref", "--no-deref", "HEAD", "HEAD");
      layout.lock();
      try {
        delete(spare);
        git.ok(checkout, "worktree", "move", place.workTree().toString(), spare.toString());
      } finally {
        layout.unlock();
      }
    } catch (GitException | IOException | UncheckedIOException e) {
      log.debug("the worktree {} is not kept for the next item: {}", place.workTree(), e.getMessage());
      return false;
    }
    kept.push(spare);
    return true;
  }

  /**
   * Moves a kept worktree to {@code path} (nothing there) and checks out {@code start} on the new
   * branch {@code branch} there, nothing untracked left; false when none is kept or git refused,
   * and the caller makes a new worktree (which first removes whatever a failed take left at
   * {@code path}).
   */
  boolean take(Path path, String branch, String start, Lock layout) {
    Path spare;
    while ((spare = kept.poll()) != null) {
      try {
        layout.lock();
        try {
          if (!Files.isDirectory(spare, WorktreeGuard.NOFOLLOW)) {
            delete(spare); // gone, or replaced: not one to use
            continue;
          }
          if (Files.exists(path, WorktreeGuard.NOFOLLOW)) {
            kept.push(spare); // something at the item's path: the caller's new worktree removes it first
            return false;
          }
          if (!git.run(checkout, "worktree", "move", spare.toString(), path.toString()).ok()) {
            delete(spare); // git would not move it: never tried again
            continue;
          }
        } finally {
          layout.unlock();
        }
        Git.Place place = new Git.Place(path, adminDir(path), commonDir, path);
        git.ok(place, "checkout", "--quiet", "--force", "-B", branch, start);
        git.ok(place, "clean", "-ffdxq");
        log.debug("{} made from a kept worktree", path);
        return true;
      } catch (GitException | IOException | UncheckedIOException e) {
        log.debug("a kept worktree could not become {}: {}", path, e.getMessage());
        return false;
      }
    }
    return false;
  }

  /** Deletes every kept worktree (the run ends): files first, the registry's entry under {@code layout}. */
  void dropAll(Lock layout) {
    Path spare;
    while ((spare = kept.poll()) != null) {
      try {
        Path admin = Files.isDirectory(spare, WorktreeGuard.NOFOLLOW) ? adminDir(spare) : null;
        DiskUsage.delete(spare);
        layout.lock();
        try {
          if (admin != null) {
            DiskUsage.delete(admin);
          } else {
            prune();
          }
        } finally {
          layout.unlock();
        }
      } catch (IOException | UncheckedIOException | GitException e) {
        log.warn("could not delete the kept worktree {}: {}", spare, e.getMessage());
      }
    }
  }

  /**
   * Deletes what a run that ended without {@link #dropAll} (killed, Ctrl-C) kept in {@code root}:
   * the spares of processes that no longer run. Returns how many.
   */
  int dropLeftovers(Lock layout) {
    List<Path> left = new ArrayList<>();
    try (var entries = Files.list(root)) {
      entries.filter(p -> p.getFileName().toString().startsWith(PREFIX)).filter(SpareWorktrees::ownerGone)
          .forEach(left::add);
    } catch (IOException | UncheckedIOException e) {
      return 0;
    }
    left.forEach(kept::push);
    dropAll(layout);
    return left.size();
  }

  /** Whether the process that named {@code spare} ({@code +spare-<pid>-<n>}) has ended; unreadable names count as ended. */
  private static boolean ownerGone(Path spare) {
    String name = spare.getFileName().toString().substring(PREFIX.length());
    int dash = name.indexOf('-');
    try {
      long pid = Long.parseLong(dash < 0 ? name : name.substring(0, dash));
      // this process's own are kept until its run ends; a live process's are its to use
      return pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
    } catch (NumberFormatException e) {
      return true;
    }
  }

  private void delete(Path spare) throws IOException {
    if (Files.isSymbolicLink(spare)) {
      Files.delete(spare); // the link itself, never what it names
      prune();
    } else if (Files.exists(spare, WorktreeGuard.NOFOLLOW)) {
      DiskUsage.delete(spare);
      prune();
    }
  }

  private void prune() {
    WorktreeGuard.disarmRegistry(commonDir);
    git.run(checkout, "worktree", "prune");
  }

  private Path adminDir(Path path) throws IOException {
    return Worktrees.adminDir(path, commonDir);
  }
}
