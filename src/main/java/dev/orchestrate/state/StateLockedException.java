package dev.orchestrate.state;

/** Another {@code run} holds the state directory. */
public final class StateLockedException extends RuntimeException {
  public StateLockedException(String message) {
    super(message);
  }
}
