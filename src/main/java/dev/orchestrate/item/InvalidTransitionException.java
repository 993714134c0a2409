package dev.orchestrate.item;

/**
 * A transition that the item's current state does not allow (docs/architecture.md: invalid transitions are
 * errors): asked for from outside the run loop (e.g. {@code unblock} of an item that is not
 * blocked), or a bug of the run loop itself. The message is one line for the user.
 */
public final class InvalidTransitionException extends RuntimeException {
  public InvalidTransitionException(String message) {
    super(message);
  }
}
