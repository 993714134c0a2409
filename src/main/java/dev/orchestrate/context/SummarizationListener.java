package dev.orchestrate.context;

/** Told about each summarization; called on the scheduler thread. */
public interface SummarizationListener {
  SummarizationListener NONE = new SummarizationListener() {
  };

  /** Older turns were condensed ({@code degraded}: by the builtin fallback). */
  default void summarizationComplete(String itemId, int turnsCondensed, int summaryTokenEstimate,
      boolean degraded) {
  }

  /** The configured summarizer failed; {@code error} is one line. */
  default void summarizationFailed(String itemId, String error) {
  }
}
