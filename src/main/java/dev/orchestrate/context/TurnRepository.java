package dev.orchestrate.context;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Storage of turn history and rolling summaries; implemented in {@code state/sql} ({@code SqlTurnRepository}). The only way to
 * delete turns here is {@link #saveSummaryAndPrune}: together with the summary that covers them,
 * in one transaction (summarize-then-prune), so history is condensed, never lost.
 */
public interface TurnRepository {

  /**
   * Appends a turn with the item's next sequence number and returns it as stored.
   * {@code truncated}: the text was cut to {@code context.turn_max_chars}, counted for {@code stats}.
   */
  Turn appendTurn(String itemId, String phase, int attempt, Turn.Role role, String text, boolean truncated,
      Instant at);

  /** Appends a turn whose text was not cut. */
  default Turn appendTurn(String itemId, String phase, int attempt, Turn.Role role, String text, Instant at) {
    return appendTurn(itemId, phase, attempt, role, text, false, at);
  }

  /** The item's highest turn sequence number, 0 when it has none. */
  long lastTurnSeq(String itemId);

  /** Turns with {@code afterSeq < seq <= upToSeq}, oldest first. */
  List<Turn> turns(String itemId, long afterSeq, long upToSeq);

  Optional<ContextSummary> summary(String itemId);

  /**
   * Replaces the item's summary and records {@code event} in the event log, in one transaction.
   * {@code truncated}: the text was cut to {@code context.summary_max_chars}, counted for {@code stats}.
   */
  void saveSummary(ContextSummary summary, boolean truncated, String eventKind, Map<String, Object> eventPayload);

  /**
   * Like {@link #saveSummary}, and in the same transaction deletes the item's turns the summary
   * covers ({@code seq <= summary.toSeq()}); returns how many were deleted.
   */
  int saveSummaryAndPrune(ContextSummary summary, boolean truncated, String eventKind,
      Map<String, Object> eventPayload);

  /** Saves a summary whose text was not cut. */
  default void saveSummary(ContextSummary summary, String eventKind, Map<String, Object> eventPayload) {
    saveSummary(summary, false, eventKind, eventPayload);
  }

  /** Records one event in the event log. */
  void recordEvent(String itemId, String kind, Map<String, Object> payload, Instant at);
}
