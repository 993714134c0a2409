package dev.orchestrate.workspace;

import dev.orchestrate.error.OrchestrateException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks an item's worktree against what orchestrate created before any git command touches it,
 * and never follows a path an agent could have replaced (docs/security.md).
 *
 * <p>An agent works inside its worktree and can rewrite anything there and in the repository's git
 * directory: it can swap the worktree for a symbolic link to the user's checkout, point the
 * worktree's {@code .git} file anywhere, plant a link in {@code .git/worktrees/}, or leave lock
 * files. {@link #verify} refuses (with the reason for the operator) when the worktree or its
 * administrative directory is not the real directory orchestrate made, and otherwise repairs what
 * is orchestrate's to repair; every later command then runs with the returned {@link Git.Place},
 * which pins the git directory and the work tree, so nothing the agent wrote redirects it.
 */
public final class WorktreeGuard {
  private static final Logger log = LoggerFactory.getLogger(WorktreeGuard.class);
  /** What an agent may leave in a worktree's administrative directory that would make our commands fail. */
  private static final List<String> STALE_STATE = List.of("MERGE_HEAD", "MERGE_MSG", "MERGE_MODE",
      "CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG", "rebase-merge", "rebase-apply", "sequencer");
  static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

  private final Path root;
  private final Path commonDir;

  /**
   * @param root      the real path of the worktrees' directory ({@code <state>/worktrees}), taken
   *                  before any agent ran
   * @param commonDir the real path of the repository's git directory, likewise
   */
  WorktreeGuard(Path root, Path commonDir) {
    this.root = root;
    this.commonDir = commonDir;
  }

  /** The real path of the worktrees' directory. */
  Path root() {
    return root;
  }

  /** The worktree was replaced or damaged in a way orchestrate will not repair: its item is blocked. */
  public static final class Breach extends OrchestrateException {
    Breach(String message) {
      super(Kind.FAILED, message);
    }
  }

  /** Whether the worktree's directory is missing (to be re-created): never true for a link or a file there. */
  static boolean missing(Path path) {
    return !Files.exists(path, NOFOLLOW);
  }

  /**
   * The worktree of {@code ws}, verified and repaired: its directory is the real directory
   * {@code <root>/<name>}, its administrative directory the real {@code <common>/worktrees/<name>},
   * both as orchestrate made them; the {@code .git} pointer, the administrative {@code gitdir} and
   * {@code commondir} files are rewritten if an agent changed them; stale locks and half-done
   * rebases or merges of this worktree are removed.
   *
   * @throws Breach when a path was replaced by a link, a file or another directory
   */
  Git.Place verify(WorkspaceRecord ws) {
    Path path = ws.path();
    Path expected = root.resolve(path.getFileName().toString());
    if (!realDirectory(path, expected)) {
      throw new Breach("the worktree " + path + " was replaced" + describe(path) + ": orchestrate will not run git "
          + "there or delete through it; remove it (rm " + path + ") and unblock " + ws.itemId()
          + " to get the worktree back from branch " + ws.branch());
    }
    Path admin = ws.gitDir();
    Path expectedAdmin = commonDir.resolve("worktrees").resolve(admin.getFileName().toString());
    if (!realDirectory(admin, expectedAdmin)) {
      throw new Breach("the worktree's git directory " + admin + " was replaced" + describe(admin)
          + ": orchestrate will not run git on it; remove it, run 'git worktree prune' in your checkout, and unblock "
          + ws.itemId());
    }
    try {
      rewrite(path.resolve(".git"), "gitdir: " + admin + "\n");
      rewrite(admin.resolve("gitdir"), path.resolve(".git") + "\n");
      rewrite(admin.resolve("commondir"), "../..\n");
      clearStale(admin, ws.branch());
    } catch (IOException e) {
      throw new Breach("cannot repair the git files of the worktree " + path + ": " + e.getMessage());
    }
    return new Git.Place(path, admin, commonDir, path);
  }

  /**
   * Whether the worktree's HEAD, in its administrative directory {@code admin} (verified), is
   * exactly the symbolic ref {@code git symbolic-ref HEAD refs/heads/<branch>} writes: then that
   * command would rewrite the file with the same text, and is not run (as {@link #verify} rewrites
   * no file that already holds its text). A link, a detached HEAD, another branch, or a HEAD that
   * lives elsewhere (a reftable repository keeps a placeholder there) is not: the command runs.
   */
  static boolean headOn(Path admin, String branch) {
    Path head = admin.resolve("HEAD");
    String expected = "ref: refs/heads/" + branch + "\n";
    try {
      return Files.isRegularFile(head, NOFOLLOW) && Files.size(head) == expected.getBytes(StandardCharsets.UTF_8).length
          && new String(Files.readAllBytes(head), StandardCharsets.UTF_8).equals(expected);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Whether deleting {@code branch} needs nothing of {@code git branch -D} but the ref's deletion:
   * the repository keeps refs in files (no {@code reftable/}), its {@code config} does not name the
   * branch anywhere (backslashes, which git's section names may escape with, left out; any case),
   * and no work tree's {@code HEAD} is on it nor does its {@code rebase-merge/head-name},
   * {@code rebase-apply/head-name} or {@code BISECT_START} name it (git refuses to delete a branch
   * checked out, rebased or bisected anywhere). A file that cannot be read as a regular file answers
   * no: then {@code branch -D} decides, as it always did.
   */
  static boolean refOnlyDeletable(Path commonDir, String branch) {
    String ref = "refs/heads/" + branch;
    try {
      if (Files.exists(commonDir.resolve("reftable"), NOFOLLOW)) {
        return false;
      }
      String config = small(commonDir.resolve("config"));
      if (config == null || config.replace("\\", "").toLowerCase(java.util.Locale.ROOT)
          .contains(branch.replace("\\", "").toLowerCase(java.util.Locale.ROOT))) {
        return false;
      }
      List<Path> dirs = new java.util.ArrayList<>(List.of(commonDir));
      Path registry = commonDir.resolve("worktrees");
      if (Files.isDirectory(registry, NOFOLLOW)) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(registry)) {
          entries.forEach(dirs::add);
        }
      }
      for (Path dir : dirs) {
        if (!Files.isDirectory(dir, NOFOLLOW)) {
          return false;
        }
        String head = small(dir.resolve("HEAD"));
        if (head == null || head.startsWith("ref:") && head.substring(4).strip().equals(ref)) {
          return false;
        }
        for (String name : List.of("rebase-merge/head-name", "rebase-apply/head-name", "BISECT_START")) {
          Path file = dir.resolve(name);
          if (Files.exists(file, NOFOLLOW)) {
            String text = small(file);
            if (text == null || text.strip().equals(ref) || text.strip().equals(branch)) {
              return false;
            }
          }
        }
      }
      return true;
    } catch (IOException | RuntimeException e) {
      return false; // unreadable, or the registry changed while listed: branch -D decides
    }
  }

  /** A regular file's text, at most 1 MiB of it, or null (a link, a directory, missing, bigger). */
  private static String small(Path file) throws IOException {
    if (!Files.isRegularFile(file, NOFOLLOW) || Files.size(file) > 1024 * 1024) {
      return null;
    }
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  /**
   * The agent's working directory inside a verified worktree: every directory of
   * {@code subdirectory} is a real directory of the worktree (one the branch holds as a link would
   * start the agent outside it).
   */
  Path workDir(Path worktree, Path subdirectory) throws IOException {
    Path dir = worktree;
    for (Path part : subdirectory) {
      dir = dir.resolve(part.toString());
      if (Files.isSymbolicLink(dir) || Files.exists(dir, NOFOLLOW) && !Files.isDirectory(dir, NOFOLLOW)) {
        throw new Breach("the item's branch holds " + worktree.relativize(dir) + " as a " + kind(dir)
            + describe(dir) + ", not the directory the backlog is in: its agents would start outside the worktree");
      }
      if (!Files.exists(dir, NOFOLLOW)) {
        Files.createDirectory(dir);
      }
    }
    if (!dir.toRealPath().startsWith(worktree.toRealPath())) {
      throw new Breach("the agent's working directory " + dir + " is outside the worktree " + worktree);
    }
    return dir;
  }

  /** Why a subdirectory is unsafe to commit, or empty: the phase's work must not make the next phase's cwd a link. */
  Optional<String> subdirectoryProblem(Path worktree, Path subdirectory) {
    Path dir = worktree;
    for (Path part : subdirectory) {
      dir = dir.resolve(part.toString());
      if (Files.isSymbolicLink(dir) || Files.exists(dir, NOFOLLOW) && !Files.isDirectory(dir, NOFOLLOW)) {
        return Optional.of("the agent replaced the backlog's directory " + worktree.relativize(dir) + " with a "
            + kind(dir) + describe(dir) + ": orchestrate does not commit it (the next phase's agent would start "
            + "outside its worktree)");
      }
    }
    return Optional.empty();
  }

  /**
   * Removes entries of {@code <common>/worktrees/} that are not real directories. {@code git worktree
   * prune} (and {@code remove}) delete an administrative directory recursively and follow a link
   * there: an agent's link to any directory would have git empty it.
   */
  static void disarmRegistry(Path commonDir) {
    Path registry = commonDir.resolve("worktrees");
    if (!Files.isDirectory(registry, NOFOLLOW)) {
      if (Files.isSymbolicLink(registry)) {
        deleteLink(registry);
      }
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(registry)) {
      for (Path entry : entries) {
        if (!Files.isDirectory(entry, NOFOLLOW)) {
          deleteLink(entry);
        }
      }
    } catch (IOException e) {
      log.warn("cannot list {}: {}", registry, e.getMessage());
    }
  }

  private static void deleteLink(Path entry) {
    try {
      Files.deleteIfExists(entry); // the link itself, never what it points at
      log.warn("removed {}: not a directory git created (a planted link would have git delete what it points at)",
          entry);
    } catch (IOException e) {
      log.warn("cannot remove {}: {}", entry, e.getMessage());
    }
  }

  /** {@code path} is a directory, no link, and its real path is {@code expected}. */
  private static boolean realDirectory(Path path, Path expected) {
    if (!Files.isDirectory(path, NOFOLLOW)) {
      return false;
    }
    try {
      return path.toRealPath().equals(expected) && path.getParent().toRealPath().equals(expected.getParent());
    } catch (IOException e) {
      return false;
    }
  }

  /** Writes {@code text} to {@code file} unless it already holds exactly that; a link or a directory there goes first. */
  static void rewrite(Path file, String text) throws IOException {
    if (Files.isRegularFile(file, NOFOLLOW) && Files.size(file) < 4096
        && Files.readString(file, StandardCharsets.UTF_8).equals(text)) {
      return;
    }
    if (Files.isDirectory(file, NOFOLLOW)) {
      DiskUsage.delete(file); // an agent's `git init` in its workspace root
    } else {
      Files.deleteIfExists(file);
    }
    Files.writeString(file, text, StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE_NEW,
        java.nio.file.StandardOpenOption.WRITE);
  }

  /**
   * Removes what an agent (or a killed git) left in this worktree's own git state: every lock file
   * of the administrative directory, a half-done rebase, merge or cherry-pick, and a lock on the
   * item's own branch. Locks in the shared repository (other branches, packed refs, the user's
   * index) are never removed: a git command of the user's may hold them.
   */
  private void clearStale(Path admin, String branch) throws IOException {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(admin, "*.lock")) {
      for (Path lock : entries) {
        DiskUsage.delete(lock);
      }
    }
    for (String name : STALE_STATE) {
      DiskUsage.delete(admin.resolve(name));
    }
    Path refLock = commonDir.resolve("refs/heads").resolve(branch + ".lock");
    if (refLock.normalize().startsWith(commonDir.resolve("refs/heads"))
        && Files.isDirectory(refLock.getParent(), NOFOLLOW) && refLock.getParent().toRealPath()
            .equals(commonDir.resolve("refs/heads").resolve(branch).getParent())) {
      DiskUsage.delete(refLock);
    }
  }

  private static String kind(Path path) {
    return Files.isSymbolicLink(path) ? "symbolic link" : Files.isDirectory(path, NOFOLLOW) ? "directory" : "file";
  }

  /** " (a symbolic link to X)", " (a file)", or "" for a directory. */
  static String describe(Path path) {
    if (Files.isSymbolicLink(path)) {
      try {
        return " (a symbolic link to " + Files.readSymbolicLink(path) + ")";
      } catch (IOException e) {
        return " (a symbolic link)";
      }
    }
    if (Files.exists(path, NOFOLLOW) && !Files.isDirectory(path, NOFOLLOW)) {
      return " (a file)";
    }
    return Files.isDirectory(path, NOFOLLOW) ? " (by another directory)" : " (it is gone)";
  }

  /**
   * The worktrees' directory {@code root} made (with a {@code .gitignore} of {@code *}, and one in the
   * state directory above it when it has none: inside the repository the state would otherwise show
   * up in the user's {@code git status}, worktrees and database included), and a guard on its real
   * path.
   *
   * @throws WorkspaceSetupException when it is a link or not a directory
   */
  static WorktreeGuard made(Path root, Path commonDir) {
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
      if (Files.isSymbolicLink(root) || !Files.isDirectory(root, NOFOLLOW)) {
        throw new WorkspaceSetupException(root + " is not a directory orchestrate made" + describe(root)
            + ": remove it, and orchestrate makes it again");
      }
      return new WorktreeGuard(root.toRealPath(), commonDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + root, e);
    }
  }
}
