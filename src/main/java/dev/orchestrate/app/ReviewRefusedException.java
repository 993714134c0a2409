package dev.orchestrate.app;

/**
 * An approve or reject that cannot be done (an unknown id, an item not awaiting review, empty
 * notes, an unknown phase); nothing was changed.
 */
public final class ReviewRefusedException extends RuntimeException {
  public ReviewRefusedException(String message) {
    super(message);
  }
}
