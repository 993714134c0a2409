package dev.orchestrate.app;

/**
 * {@code unblock --rebase} met a rebase that conflicted or could not be done: nothing was
 * unblocked; a conflicting item is blocked again with the conflict, naming the files, as its reason.
 */
public final class UnblockRebaseException extends RuntimeException {
  public UnblockRebaseException(String message) {
    super(message);
  }
}
