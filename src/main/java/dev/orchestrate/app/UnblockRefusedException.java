package dev.orchestrate.app;

/** An unblock that cannot be done (an unknown id, an item that is not blocked); nothing was changed. */
public final class UnblockRefusedException extends RuntimeException {
  public UnblockRefusedException(String message) {
    super(message);
  }
}
