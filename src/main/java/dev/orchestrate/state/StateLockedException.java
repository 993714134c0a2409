package dev.orchestrate.state;

import dev.orchestrate.error.OrchestrateException;

/** Another {@code run} holds the state directory. */
public final class StateLockedException extends OrchestrateException {
  public StateLockedException(String message) {
    super(Kind.LOCKED, message);
  }
}
