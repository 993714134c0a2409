package dev.orchestrate.workspace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The git repository the backlog lives in, as a run with {@code execution.workspace: worktree}
 * sees it when it starts.
 *
 * @param top          the root of the working tree that holds the backlog's directory
 * @param subdirectory the backlog's directory relative to {@code top} (empty when it is the root):
 *                     agents run in the same subdirectory of their worktree
 * @param baseBranch   the branch items start from and are integrated into
 */
public record Repository(Path top, Path subdirectory, String baseBranch) {
  public Repository {
    Objects.requireNonNull(top, "top");
    Objects.requireNonNull(subdirectory, "subdirectory");
    Objects.requireNonNull(baseBranch, "baseBranch");
  }

  /**
   * Finds the repository of {@code backlogDir} and the base branch: {@code configuredBase} if set
   * (it must exist), else the branch checked out there now.
   *
   * @throws WorkspaceSetupException when there is no repository, no commit, or no branch to use
   */
  public static Repository discover(Git git, Path backlogDir, String configuredBase) {
    Path dir = real(backlogDir);
    Git.Result top = git.run(dir, "rev-parse", "--show-toplevel");
    if (!top.ok()) {
      throw new WorkspaceSetupException("execution.workspace is worktree but the backlog's directory " + dir
          + " is not inside a git repository (" + top.reason() + "): run 'git init' there and commit, "
          + "or set execution.workspace: shared");
    }
    Path root = real(Path.of(top.line()));
    String base = configuredBase;
    if (base == null) {
      Git.Result head = git.run(root, "symbolic-ref", "--quiet", "--short", "HEAD");
      if (!head.ok()) {
        throw new WorkspaceSetupException("execution.workspace is worktree but " + root + " has a detached HEAD: "
            + "set execution.base_branch to the branch items start from and are merged into, or check out a "
            + "branch");
      }
      base = head.line();
    }
    if (!git.run(root, "rev-parse", "--verify", "--quiet", "refs/heads/" + base + "^{commit}").ok()) {
      throw new WorkspaceSetupException("execution.workspace is worktree but the base branch '" + base
          + "' has no commit in " + root + (configuredBase == null
              ? ": make a first commit (git commit --allow-empty -m init)"
              : ": create it, or set execution.base_branch to an existing branch"));
    }
    return new Repository(root, root.relativize(dir), base);
  }

  private static Path real(Path path) {
    try {
      return path.toAbsolutePath().toRealPath();
    } catch (IOException e) {
      return path.toAbsolutePath().normalize();
    }
  }
}
