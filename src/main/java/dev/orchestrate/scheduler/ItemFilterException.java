package dev.orchestrate.scheduler;

/**
 * A {@code --only} or {@code --target} value that cannot be used. The message is one line, ready
 * for the CLI's error output, e.g. {@code --only: unknown key 'colour' (use status, priority, tag or pipeline)}.
 */
public final class ItemFilterException extends RuntimeException {
  public ItemFilterException(String message) {
    super(message);
  }
}
