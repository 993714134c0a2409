package dev.orchestrate.item;

import dev.orchestrate.error.OrchestrateException;

/**
 * A transition that the item's current state does not allow (docs/architecture.md: invalid transitions are
 * errors): asked for from outside the run loop (e.g. {@code unblock} of an item that is not
 * blocked), or a bug of the run loop itself. The message is one line for the user; a usage error
 * (exit 2) when it reaches the command line, as an unblock of an item that is not blocked is.
 */
public final class InvalidTransitionException extends OrchestrateException {
  public InvalidTransitionException(String message) {
    super(Kind.USAGE, message);
  }
}
