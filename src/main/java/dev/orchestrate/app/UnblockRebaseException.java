package dev.orchestrate.app;

import dev.orchestrate.error.OrchestrateException;

/**
 * {@code unblock --rebase} met a rebase that conflicted or could not be done: nothing was
 * unblocked; a conflicting item is blocked again with the conflict, naming the files, as its reason.
 */
public final class UnblockRebaseException extends OrchestrateException {
  public UnblockRebaseException(String message) {
    super(Kind.FAILED, message);
  }
}
