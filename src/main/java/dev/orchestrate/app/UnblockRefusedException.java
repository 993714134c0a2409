package dev.orchestrate.app;

import dev.orchestrate.error.OrchestrateException;

/** An unblock that cannot be done (an unknown id, an item that is not blocked); nothing was changed. */
public final class UnblockRefusedException extends OrchestrateException {
  public UnblockRefusedException(String message) {
    super(Kind.USAGE, message);
  }
}
