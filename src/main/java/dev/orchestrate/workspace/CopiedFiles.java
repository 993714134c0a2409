package dev.orchestrate.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * {@code workspace.copy} (docs/workspaces.md): files git does not track (like {@code .env}) copied
 * from the user's checkout into each worktree where they are missing, and never committed.
 */
public final class CopiedFiles {
  private CopiedFiles() {
  }

  /**
   * The check of {@code workspace.copy} against the user's checkout, before a run takes its lock
   * (so a wrong path is a usage error that leaves nothing behind) and again when the worktrees open.
   *
   * @throws WorkspaceSetupException naming the path and what to do
   */
  public static void check(Git git, Repository repo, List<String> copy) {
    Git.Place checkout = repo.checkout();
    for (String path : copy) {
      Path source = repo.top().resolve(path);
      if (!Files.isRegularFile(source)) {
        throw new WorkspaceSetupException("workspace.copy: " + path + " is not a file in " + repo.top()
            + (Files.isDirectory(source) ? " (it is a directory: name the files in it)" : " (it does not exist)")
            + ": create it, or remove it from workspace.copy");
      }
      if (git.run(checkout, "ls-files", "--error-unmatch", "--", path).ok()) {
        throw new WorkspaceSetupException("workspace.copy: " + path + " is tracked by git, so every worktree has it "
            + "already; copy is for files git does not track (like .env): remove it from workspace.copy");
      }
    }
  }

  /**
   * Copies {@code workspace.copy} from the user's checkout into a worktree where it is missing. The
   * worktree is the agent's: no link in it is followed (a directory on the way that is a link, or a
   * link at the destination, is refused or replaced), so a copy never lands outside it.
   */
  static void into(Path workTree, Path checkout, List<String> copy) throws IOException {
    for (String path : copy) {
      Path target = workTree.resolve(path).normalize();
      if (!target.startsWith(workTree)) {
        throw new WorktreeGuard.Breach("workspace.copy path " + path + " leaves the worktree");
      }
      if (Files.isRegularFile(target, WorktreeGuard.NOFOLLOW)) {
        continue; // there already (copied before, or the agent's own version): never overwritten
      }
      Path dir = workTree;
      for (Path part : workTree.relativize(target.getParent() == null ? workTree : target.getParent())) {
        dir = dir.resolve(part);
        if (Files.isSymbolicLink(dir)) {
          throw new WorktreeGuard.Breach("workspace.copy: " + workTree.relativize(dir) + " in the worktree "
              + workTree + " is a link" + WorktreeGuard.describe(dir) + "; orchestrate copies nothing through it");
        }
        if (!Files.exists(dir, WorktreeGuard.NOFOLLOW)) {
          Files.createDirectory(dir);
        }
      }
      if (Files.exists(target, WorktreeGuard.NOFOLLOW)) {
        DiskUsage.delete(target); // a link or a directory in its place: removed itself, never followed
      }
      try (var in = Files.newInputStream(checkout.resolve(path));
          var out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        in.transferTo(out);
      }
    }
  }
}
