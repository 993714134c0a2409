package dev.orchestrate.config;

import java.util.Objects;

/**
 * The {@code context:} section: how much agent history each prompt carries.
 *
 * @param windowSize      recent turns kept verbatim in prompts (older ones are summarized)
 * @param turnMaxChars    cap of each recorded turn's text
 * @param summaryMaxChars cap of a stored summary
 */
public record ContextConfig(int windowSize, int turnMaxChars, int summaryMaxChars, SummarizerConfig summarizer) {
  public static final int DEFAULT_WINDOW_SIZE = 5;
  public static final int DEFAULT_TURN_MAX_CHARS = 8_000;
  public static final int DEFAULT_SUMMARY_MAX_CHARS = 8_000;
  /** Below this a capped text would be mostly truncation marker. */
  public static final int MIN_MAX_CHARS = 200;

  public ContextConfig {
    Objects.requireNonNull(summarizer, "summarizer");
    if (windowSize < 1) {
      throw new IllegalArgumentException("context.window_size must be at least 1, got " + windowSize);
    }
    if (turnMaxChars < MIN_MAX_CHARS || summaryMaxChars < MIN_MAX_CHARS) {
      throw new IllegalArgumentException("context size caps must be at least " + MIN_MAX_CHARS);
    }
  }

  public static ContextConfig defaults() {
    return new ContextConfig(DEFAULT_WINDOW_SIZE, DEFAULT_TURN_MAX_CHARS, DEFAULT_SUMMARY_MAX_CHARS,
        SummarizerConfig.defaults());
  }

}
