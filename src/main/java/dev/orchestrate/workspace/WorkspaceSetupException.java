package dev.orchestrate.workspace;

import dev.orchestrate.error.OrchestrateException;

/**
 * The run cannot use worktrees as configured (no git repository, a detached HEAD without
 * {@code execution.base_branch}, an unknown base branch): a usage error, reported before the lock.
 */
public final class WorkspaceSetupException extends OrchestrateException {
  public WorkspaceSetupException(String message) {
    super(Kind.USAGE, message);
  }
}
