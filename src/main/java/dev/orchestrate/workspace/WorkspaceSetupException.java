package dev.orchestrate.workspace;

/**
 * The run cannot use worktrees as configured (no git repository, a detached HEAD without
 * {@code execution.base_branch}, an unknown base branch): a usage error, reported before the lock.
 */
public final class WorkspaceSetupException extends RuntimeException {
  WorkspaceSetupException(String message) {
    super(message);
  }
}
