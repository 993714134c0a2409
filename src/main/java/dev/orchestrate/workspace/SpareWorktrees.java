package dev.orchestrate.workspace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Landed items' worktrees kept as the next items' (issue 46): a new worktree writes every file of
 * the checkout and a landed one's removal deletes them all, seconds of CPU an item on 10,000 files
 * and, on 200 files, up to 40 % of a worktree phase's CPU on a file system that scans past recently
 * deleted inodes for each new one (ext4 without a journal), where moving a kept one into place and
 * checking out what differs writes only those files (docs/benchmarks.md).
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>At most {@value #MAX} are kept, each a registered worktree with a detached HEAD (the
 *   landed branch free to be deleted) at {@code <state>/worktrees/+spare-<token>-<n>}: never an
 *   item's directory (ids cannot hold a {@code +}). The token is this object's; it holds a lock on
 *   {@code +spare-<token>.lock} while it keeps any, so that runners of one checkout (other
 *   processes, other containers) never take or delete each other's.</li>
 *   <li>Kept and taken, one is moved as {@code git worktree move} moves it, without the process
 *   ({@link #move}), and its HEAD detached by writing the file ({@link #detach}). Taken, what the
 *   last agent may have hidden in it goes first: its per-worktree configuration and sparse-checkout
 *   files, and its index, deleted and read again from HEAD with every file's content compared
 *   ({@code reset}: no entry, stat data, skip-worktree or assume-unchanged bit survives); then
 *   everything untracked is deleted, ignored files included ({@code clean -ffdx}), and the files
 *   are checked out at the item's start on its new branch ({@code checkout --force -B}): nothing
 *   the last item's agent left, build outputs neither, reaches the next item. Three git processes
 *   where a new worktree takes one, and only the files that differ written.</li>
 *   <li>Whatever fails (a worktree git would not move: a submodule, a lock an agent planted) is
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
  private final Deque<Kept> kept = new ConcurrentLinkedDeque<>();

  /** A kept worktree and its administrative directory, as the keep verified it: the take trusts no file in the worktree to name it. */
  private record Kept(Path dir, Path admin) {
  }
  private final AtomicInteger names = new AtomicInteger();
  private final String token = ProcessHandle.current().pid() + "x"
      + Integer.toHexString(ThreadLocalRandom.current().nextInt());
  private final String prefix = PREFIX + token + "-";
  /** Held while this object keeps worktrees ({@link #own}); null otherwise. */
  private FileChannel owned;

  SpareWorktrees(Git git, Git.Place checkout, Path root, Path commonDir) {
    this.git = git;
    this.checkout = checkout;
    this.root = root;
    this.commonDir = commonDir;
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
      own();
      detach(place);
      layout.lock();
      try {
        delete(spare);
        move(place.workTree(), place.gitDir(), spare);
      } finally {
        layout.unlock();
      }
    } catch (GitException | IOException | UncheckedIOException e) {
      log.debug("the worktree {} is not kept for the next item: {}", place.workTree(), e.getMessage());
      return false;
    }
    kept.push(new Kept(spare, place.gitDir()));
    return true;
  }

  /**
   * Moves a kept worktree to {@code path} (nothing there) and checks out {@code start} on the new
   * branch {@code branch} there, nothing untracked left; false when none is kept or git refused,
   * and the caller makes a new worktree (which first removes whatever a failed take left at
   * {@code path}).
   */
  boolean take(Path path, String branch, String start, Lock layout) {
    Kept taken;
    while ((taken = kept.poll()) != null) {
      Path spare = taken.dir();
      Path admin = taken.admin();
      try {
        layout.lock();
        try {
          if (!Files.isDirectory(spare, WorktreeGuard.NOFOLLOW)) {
            delete(spare); // gone, or replaced: not one to use
            continue;
          }
          if (Files.exists(path, WorktreeGuard.NOFOLLOW)) {
            kept.push(taken); // something at the item's path: the caller's new worktree removes it first
            return false;
          }
          try {
            move(spare, admin, path);
          } catch (IOException | UncheckedIOException | GitException e) {
            log.debug("the kept worktree {} could not be moved: {}", spare, e.getMessage());
            delete(spare); // not one to move: never tried again
            continue;
          }
        } finally {
          layout.unlock();
        }
        Files.deleteIfExists(admin.resolve("config.worktree"));
        DiskUsage.delete(admin.resolve("info"));
        // the index goes whole (an entry's id, stat data or skip-worktree bit can hide a change); a
        // mixed reset reads HEAD's tree into a new one and refreshes it, comparing the files'
        // contents and writing none, so that the checkout writes only the files that differ
        Files.deleteIfExists(admin.resolve("index"));
        Git.Place place = new Git.Place(path, admin, commonDir, path);
        git.ok(place, "reset", "--quiet");
        if (!IndexFile.filesAndLinksOnly(admin.resolve("index"), start.length() / 2)) {
          // a gitlink's directory (a nested repository the landed commit records, into which an
          // agent may have cloned) is neither cleaned nor replaced by the checkout: its contents
          // would reach the next item
          throw new IOException("its last commit records a gitlink (a nested repository), or its index is not one "
              + "orchestrate reads");
        }
        git.ok(place, "clean", "-ffdxq");
        git.ok(place, "checkout", "--quiet", "--force", "-B", branch, start);
        log.debug("{} made from a kept worktree", path);
        return true;
      } catch (GitException | IOException | UncheckedIOException e) {
        log.debug("a kept worktree could not become {}: {}", path, e.getMessage());
        // a branch the checkout made before it failed would stop the new worktree's `add -b`
        git.run(checkout, "update-ref", "-d", "refs/heads/" + branch, start);
        return false;
      }
    }
    return false;
  }

  /**
   * HEAD off the landed branch, at its commit, so that the branch can be deleted: written as git
   * writes it ({@code HEAD.lock}, then renamed over {@code HEAD}) when the ref files name the
   * commit; otherwise {@code git update-ref --no-deref HEAD HEAD}.
   */
  private void detach(Git.Place place) throws IOException {
    String ref = RefFiles.headRef(place.gitDir());
    String commit = ref == null ? null : RefFiles.commit(commonDir, ref);
    if (commit == null) {
      git.ok(place, "update-ref", "--no-deref", "HEAD", "HEAD");
      return;
    }
    replace(place.gitDir().resolve("HEAD"), commit + "\n");
  }

  /**
   * Moves the worktree at {@code from}, whose administrative directory is {@code admin}, to
   * {@code to}, as {@code git worktree move} does (the directory renamed, the registry's
   * {@code gitdir} pointed at it) without a process: refused, as git refuses, for a locked worktree
   * or one with submodules, whose own git directories would name the old place.
   */
  private void move(Path from, Path admin, Path to) throws IOException {
    if (Files.exists(admin.resolve("locked"), WorktreeGuard.NOFOLLOW)
        || Files.exists(admin.resolve("modules"), WorktreeGuard.NOFOLLOW)
        || Files.exists(from.resolve(".gitmodules"), WorktreeGuard.NOFOLLOW)) {
      throw new IOException("a locked worktree, or one with submodules: " + from);
    }
    // the registry's entry must be this worktree's (git finds a worktree by it, never by the
    // worktree's own .git file, which its last agent could have pointed at another entry)
    Path registry = commonDir.resolve("worktrees");
    byte[] named = Files.isDirectory(admin, WorktreeGuard.NOFOLLOW) && registry.toRealPath().equals(
        admin.toRealPath().getParent()) ? ReadsOffThread.upTo(admin.resolve("gitdir"), 4096) : null;
    if (named == null || !new String(named, StandardCharsets.UTF_8).strip()
        .equals(from.toRealPath().resolve(".git").toString())) {
      throw new IOException("the registry entry " + admin + " does not name " + from);
    }
    // the registry's new entry written first, under its lock (one git holds fails the move before it starts)
    Path gitdir = admin.resolve("gitdir");
    Path lock = lock(gitdir, to.getParent().toRealPath().resolve(to.getFileName()) + "/.git\n");
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | UncheckedIOException e) {
      Files.deleteIfExists(lock);
      throw e;
    }
    into(lock, gitdir);
    WorktreeGuard.rewrite(to.resolve(".git"), "gitdir: " + admin + "\n"); // as git wrote it, as the guard repairs it
  }

  /**
   * {@code file} replaced by {@code text} under git's lock protocol: {@code <file>.lock} created
   * (failing when it exists: git is writing it), written, renamed over the file (a link there is
   * replaced, never followed).
   */
  private static void replace(Path file, String text) throws IOException {
    into(lock(file, text), file);
  }

  /** {@code <file>.lock} created with {@code text}; fails when it exists (git is writing the file). */
  private static Path lock(Path file, String text) throws IOException {
    Path lock = file.resolveSibling(file.getFileName() + ".lock");
    Files.writeString(lock, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE);
    return lock;
  }

  /** The {@link #lock} renamed over {@code file}; deleted when that fails. */
  private static void into(Path lock, Path file) throws IOException {
    try {
      Files.move(lock, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | UncheckedIOException e) {
      Files.deleteIfExists(lock);
      throw e;
    }
  }

  /** Deletes every kept worktree (the run ends): their files first, then the registry's entries under {@code layout}, in one prune. */
  void dropAll(Lock layout) {
    boolean any = false;
    Kept spare;
    while ((spare = kept.poll()) != null) {
      try {
        DiskUsage.delete(spare.dir());
        any = true;
      } catch (IOException | UncheckedIOException e) {
        log.warn("could not delete the kept worktree {}: {}", spare.dir(), e.getMessage());
      }
    }
    if (any) {
      layout.lock();
      try {
        prune(); // one prune for them all
      } catch (GitException e) {
        log.warn("could not prune the kept worktrees' registry entries: {}", e.getMessage());
      } finally {
        layout.unlock();
      }
    }
    disown();
  }

  /**
   * Deletes {@code spare}: its files (outside {@code layout}: seconds on a large repository), then,
   * under it, git's prune of the registry entry whose work tree is gone. Never the entry its
   * {@code .git} file names: a leftover found on disk may have been planted, and that file with it.
   */
  private void drop(Path spare, Lock layout) {
    try {
      DiskUsage.delete(spare);
      layout.lock();
      try {
        prune();
      } finally {
        layout.unlock();
      }
    } catch (IOException | UncheckedIOException | GitException e) {
      log.warn("could not delete the kept worktree {}: {}", spare, e.getMessage());
    }
  }

  /** This object's lock file taken, once, before it keeps its first worktree. */
  private synchronized void own() throws IOException {
    if (owned != null) {
      return;
    }
    FileChannel channel = FileChannel.open(lockFile(token),
        StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS);
    try {
      if (channel.tryLock() == null) {
        throw new IOException("its lock " + lockFile(token) + " is held");
      }
    } catch (IOException | OverlappingFileLockException e) {
      channel.close();
      throw e instanceof IOException io ? io : new IOException(e);
    }
    owned = channel;
  }

  /** The lock given up and its file deleted: nothing is kept any more. */
  private synchronized void disown() {
    if (owned == null) {
      return;
    }
    try {
      Files.deleteIfExists(lockFile(token));
      owned.close();
    } catch (IOException e) {
      log.debug("could not give up {}: {}", lockFile(token), e.getMessage());
    }
    owned = null;
  }

  private Path lockFile(String of) {
    return root.resolve(PREFIX + of + ".lock");
  }

  /**
   * Deletes what runs that ended without {@link #dropAll} (killed, Ctrl-C) kept in {@code root}: the
   * worktrees and lock files of tokens whose lock nobody holds. Returns how many worktrees.
   */
  int dropLeftovers(Lock layout) {
    Map<String, List<Path>> byToken = new TreeMap<>();
    try (var entries = Files.list(root)) {
      entries.forEach(entry -> {
        String name = entry.getFileName().toString();
        if (!name.startsWith(PREFIX)) {
          return;
        }
        String rest = name.substring(PREFIX.length());
        String owner = rest.endsWith(".lock") ? rest.substring(0, rest.length() - ".lock".length())
            : rest.lastIndexOf('-') > 0 ? rest.substring(0, rest.lastIndexOf('-')) : rest;
        byToken.computeIfAbsent(owner, t -> new ArrayList<>()).add(entry);
      });
    } catch (IOException | UncheckedIOException e) {
      return 0;
    }
    int dropped = 0;
    for (var owner : byToken.entrySet()) {
      if (owner.getKey().equals(token) || !ownerGone(owner.getKey())) {
        continue;
      }
      for (Path entry : owner.getValue()) {
        if (entry.equals(lockFile(owner.getKey()))) {
          continue;
        }
        drop(entry, layout);
        dropped++;
      }
      try {
        Files.deleteIfExists(lockFile(owner.getKey()));
      } catch (IOException e) {
        log.debug("could not delete {}: {}", lockFile(owner.getKey()), e.getMessage());
      }
    }
    return dropped;
  }

  /** Whether nobody holds the lock of {@code owner}'s token (no lock file: a run killed before it kept any, or none). */
  private boolean ownerGone(String owner) {
    Path lock = lockFile(owner);
    if (!Files.isRegularFile(lock, WorktreeGuard.NOFOLLOW)) {
      return !Files.exists(lock, WorktreeGuard.NOFOLLOW);
    }
    try (FileChannel channel = FileChannel.open(lock,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
      FileLock held = channel.tryLock();
      if (held == null) {
        return false;
      }
      held.release();
      return true;
    } catch (IOException | OverlappingFileLockException e) {
      return false; // held in this JVM, or unreadable: never someone's to delete
    }
  }

  private void delete(Path spare) throws IOException {
    if (Files.exists(spare, WorktreeGuard.NOFOLLOW)) {
      DiskUsage.delete(spare); // a link is deleted itself, never followed
      prune();
    }
  }

  private void prune() {
    WorktreeGuard.disarmRegistry(commonDir);
    git.run(checkout, "worktree", "prune");
  }
}
