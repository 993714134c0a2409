package dev.orchestrate.workspace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The git repository the backlog lives in, as a run with {@code execution.workspace: worktree}
 * sees it when it starts, before any agent of the run has worked: from then on orchestrate's git
 * commands on the user's checkout and on the repository run with these locations pinned, never
 * with what git would discover there later.
 *
 * @param top          the root of the working tree that holds the backlog's directory (the user's checkout)
 * @param subdirectory the backlog's directory relative to {@code top} (empty when it is the root):
 *                     agents run in the same subdirectory of their worktree
 * @param baseBranch   the branch items start from and are integrated into
 * @param gitDir       the checkout's own git directory (its {@code .git})
 * @param commonDir    the repository's git directory shared by every worktree (refs, objects, config)
 */
public record Repository(Path top, Path subdirectory, String baseBranch, Path gitDir, Path commonDir) {
  public Repository {
    Objects.requireNonNull(top, "top");
    Objects.requireNonNull(subdirectory, "subdirectory");
    Objects.requireNonNull(baseBranch, "baseBranch");
    Objects.requireNonNull(gitDir, "gitDir");
    Objects.requireNonNull(commonDir, "commonDir");
  }

  /** The user's checkout, the repository pinned: where repository-wide commands run too. */
  public Git.Place checkout() {
    return new Git.Place(top, gitDir, commonDir, top);
  }

  /**
   * Finds the repository of {@code backlogDir} and the base branch: {@code configuredBase} if set
   * (it must exist), else the branch checked out there now.
   *
   * @throws WorkspaceSetupException when there is no repository, no commit, or no branch to use
   */
  public static Repository discover(Git git, Path backlogDir, String configuredBase) {
    Path dir = real(backlogDir);
    Git.Result top = git.run(dir, "rev-parse", "--path-format=absolute", "--show-toplevel", "--absolute-git-dir",
        "--git-common-dir");
    java.util.List<String> lines = top.out().lines().toList();
    if (!top.ok() || lines.size() < 3) {
      throw new WorkspaceSetupException("execution.workspace is worktree but the backlog's directory " + dir
          + " is not inside a git repository (" + top.reason() + "): run 'git init' there and commit, "
          + "or set execution.workspace: shared");
    }
    Path root = real(Path.of(lines.get(0)));
    Repository found = new Repository(root, root.relativize(dir), "HEAD", real(Path.of(lines.get(1))),
        real(Path.of(lines.get(2))));
    Git.Place checkout = found.checkout();
    String base = configuredBase;
    if (base == null) {
      Git.Result head = git.run(checkout, "symbolic-ref", "--quiet", "--short", "HEAD");
      if (!head.ok()) {
        throw new WorkspaceSetupException("execution.workspace is worktree but " + root + " has a detached HEAD: "
            + "set execution.base_branch to the branch items start from and are merged into, or check out a "
            + "branch");
      }
      base = head.line();
    }
    if (!git.run(checkout, "rev-parse", "--verify", "--quiet", "refs/heads/" + base + "^{commit}").ok()) {
      throw new WorkspaceSetupException("execution.workspace is worktree but the base branch '" + base
          + "' has no commit in " + root + (configuredBase == null
              ? ": make a first commit (git commit --allow-empty -m init)"
              : ": create it, or set execution.base_branch to an existing branch"));
    }
    return new Repository(root, found.subdirectory(), base, found.gitDir(), found.commonDir());
  }

  private static Path real(Path path) {
    try {
      return path.toAbsolutePath().toRealPath();
    } catch (IOException e) {
      return path.toAbsolutePath().normalize();
    }
  }
}
