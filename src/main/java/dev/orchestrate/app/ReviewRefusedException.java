package dev.orchestrate.app;

import dev.orchestrate.error.OrchestrateException;

/**
 * An approve or reject that cannot be done (an unknown id, an item not awaiting review, empty
 * notes, an unknown phase); nothing was changed.
 */
public final class ReviewRefusedException extends OrchestrateException {
  public ReviewRefusedException(String message) {
    super(Kind.USAGE, message);
  }
}
