package dev.orchestrate.app;

import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.workspace.Checkout;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.WorkspaceSetupException;
import java.nio.file.Path;
import java.util.List;

/**
 * Several checkouts on one shared state (docs/workspaces.md, "Several machines"): each runner
 * records the checkout it works in, and a runner whose work would stay in its own checkout is
 * refused at start while a runner of another checkout is live: {@code execution.workspace: shared}
 * (each agent edits whichever clone runs it) and worktrees with {@code execution.landing: local}
 * (each runner would integrate into its own clone's base branch). With {@code landing: remote}
 * work meets on the remote, and any number of clones may share the state.
 */
final class Checkouts {
  private Checkouts() {
  }

  /**
   * Records this runner's checkout under {@code lease} and refuses the run when it would split the
   * work; nothing when one run holds the state (SQLite).
   *
   * @param repository the worktrees' repository; null for the shared workspace
   * @param backlogDir the backlog's directory (the shared workspace's checkout)
   * @return this runner's checkout; null when one run holds the state
   * @throws WorkspaceSetupException naming the other runners and the fix (exit 2)
   */
  static Checkout check(RunLease lease, WorkspaceConfig workspace, Repository repository, Path backlogDir) {
    if (lease.runnerId() == null) {
      return null;
    }
    Checkout mine = repository != null ? Checkout.of(repository, lease.host()) : ofDirectory(backlogDir, lease.host());
    List<String> others = lease.checkout(mine.id(), mine.where());
    if (others.isEmpty() || workspace.landsOnRemote()) {
      return mine;
    }
    String why = workspace.worktrees()
        ? "with execution.landing: local each runner integrates into its own clone's " + repository.baseBranch()
            + ", and the work is split between clones. Set execution.landing: remote"
        : "with execution.workspace: shared each agent edits whichever clone runs it, and its work stays there. Set "
            + "execution.workspace: worktree with execution.landing: remote";
    throw new WorkspaceSetupException("another checkout shares this state: this runner works in " + mine.where()
        + ", " + String.join(", ", others) + "; " + why + " (every clone pushes its phase commits to "
        + "execution.remote and lands work on its base branch; docs/workspaces.md, \"Several machines\"), or run "
        + "every runner in the same checkout");
  }

  /** The checkout of the shared workspace: its repository's if it is in one, else the directory on this host. */
  private static Checkout ofDirectory(Path dir, String host) {
    Path real = dir.toAbsolutePath().normalize();
    try {
      Repository repo = Repository.discover(new Git(), real, null);
      return Checkout.of(repo, host);
    } catch (RuntimeException notInARepository) {
      return new Checkout("dir:" + host + ":" + real, host + ":" + real);
    }
  }
}
