package dev.orchestrate.cli.live;

/**
 * A progress display that owns part of the terminal (the live status area) and so must print
 * every other line itself, above its area, or the two would garble each other.
 */
public interface LineSink {
  /** Prints one complete line above the display. */
  void printLine(String line);

  /**
   * Prints one complete line above the display while it is open; false when it is closed (the
   * caller prints the line itself then).
   */
  default boolean offer(String line) {
    printLine(line);
    return true;
  }
}
