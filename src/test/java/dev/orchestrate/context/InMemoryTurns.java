package dev.orchestrate.context;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A {@link TurnRepository} in memory, for pure tests of the sliding window. */
final class InMemoryTurns implements TurnRepository {
  record RecordedEvent(String itemId, String kind, Map<String, Object> payload) {
  }

  final List<Turn> turns = new ArrayList<>();
  final Map<String, ContextSummary> summaries = new HashMap<>();
  final List<RecordedEvent> events = new ArrayList<>();
  /** How many turns and summaries were saved with their truncated flag set. */
  int truncatedTurns;
  int truncatedSummaries;

  /** Appends {@code n} alternating user/assistant turns, one phase per pair. */
  void add(String itemId, int n) {
    for (int i = 0; i < n; i++) {
      long seq = lastTurnSeq(itemId) + 1;
      boolean user = seq % 2 == 1;
      String phase = "p" + ((seq + 1) / 2);
      appendTurn(itemId, phase, 1, user ? Turn.Role.USER : Turn.Role.ASSISTANT,
          user ? "Do " + phase + "." : "result: phase_complete\nsummary: decided to edit src/T" + seq + ".java",
          Instant.EPOCH);
    }
  }

  @Override
  public Turn appendTurn(String itemId, String phase, int attempt, Turn.Role role, String text, boolean truncated,
      Instant at) {
    truncatedTurns += truncated ? 1 : 0;
    Turn turn = new Turn(itemId, lastTurnSeq(itemId) + 1, phase, attempt, role, text, Tokens.estimate(text), at);
    turns.add(turn);
    return turn;
  }

  @Override
  public long lastTurnSeq(String itemId) {
    return Math.max(turns.stream().filter(t -> t.itemId().equals(itemId)).mapToLong(Turn::seq).max().orElse(0),
        summaries.containsKey(itemId) ? summaries.get(itemId).toSeq() : 0);
  }

  @Override
  public List<Turn> turns(String itemId, long afterSeq, long upToSeq) {
    return turns.stream().filter(t -> t.itemId().equals(itemId) && t.seq() > afterSeq && t.seq() <= upToSeq)
        .toList();
  }

  @Override
  public Optional<ContextSummary> summary(String itemId) {
    return Optional.ofNullable(summaries.get(itemId));
  }

  @Override
  public void saveSummary(ContextSummary summary, boolean truncated, String eventKind,
      Map<String, Object> eventPayload) {
    truncatedSummaries += truncated ? 1 : 0;
    summaries.put(summary.itemId(), summary);
    events.add(new RecordedEvent(summary.itemId(), eventKind, eventPayload));
  }

  @Override
  public int saveSummaryAndPrune(ContextSummary summary, boolean truncated, String eventKind,
      Map<String, Object> eventPayload) {
    saveSummary(summary, truncated, eventKind, eventPayload);
    int before = turns.size();
    turns.removeIf(t -> t.itemId().equals(summary.itemId()) && t.seq() <= summary.toSeq());
    return before - turns.size();
  }

  @Override
  public void recordEvent(String itemId, String kind, Map<String, Object> payload, Instant at) {
    events.add(new RecordedEvent(itemId, kind, payload));
  }
}
