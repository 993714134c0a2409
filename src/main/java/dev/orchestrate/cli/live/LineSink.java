package dev.orchestrate.cli.live;

/**
 * A progress display that owns part of the terminal (the live status area) and so must print
 * every other line itself, above its area, or the two would garble each other.
 */
public interface LineSink {
  /** Prints one complete line above the display. */
  void printLine(String line);
}
