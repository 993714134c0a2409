package dev.orchestrate.state.sql;

import dev.orchestrate.context.ContextSummary;
import dev.orchestrate.context.Tokens;
import dev.orchestrate.context.Turn;
import dev.orchestrate.context.TurnRepository;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The {@link TurnRepository} of the SQL backends, sharing the state repository's connection. */
final class SqlTurnRepository implements TurnRepository {
  private final Jdbc jdbc;

  SqlTurnRepository(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public Turn appendTurn(String itemId, String phase, int attempt, Turn.Role role, String text, boolean truncated,
      Instant at) {
    return jdbc.inTransaction(() -> {
      long seq = lastTurnSeq(itemId) + 1;
      int tokens = Tokens.estimate(text);
      jdbc.execute("""
          INSERT INTO turns (item_id, seq, phase, attempt, role, text, token_estimate, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
          itemId, seq, phase, attempt, role.key(), text, tokens, at.toEpochMilli());
      TruncatedWrites.countIf(jdbc, "turns", truncated);
      return new Turn(itemId, seq, phase, attempt, role, text, tokens, Instant.ofEpochMilli(at.toEpochMilli()));
    });
  }

  @Override
  public long lastTurnSeq(String itemId) {
    // Turns covered by the summary may have been pruned: numbering goes on after them.
    return jdbc.queryOne("""
        SELECT COALESCE((SELECT MAX(seq) FROM turns WHERE item_id = ?), 0),
               COALESCE((SELECT to_seq FROM context_summaries WHERE item_id = ?), 0)""",
        rs -> Math.max(rs.getLong(1), rs.getLong(2)), itemId, itemId).orElse(0L);
  }

  @Override
  public List<Turn> turns(String itemId, long afterSeq, long upToSeq) {
    return jdbc.query("SELECT * FROM turns WHERE item_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
        SqlTurnRepository::turn, itemId, afterSeq, upToSeq);
  }

  private static Turn turn(ResultSet rs) throws SQLException {
    return new Turn(rs.getString("item_id"), rs.getLong("seq"), rs.getString("phase"), rs.getInt("attempt"),
        Turn.Role.fromKey(rs.getString("role")), rs.getString("text"), rs.getInt("token_estimate"),
        Instant.ofEpochMilli(rs.getLong("created_at")));
  }

  @Override
  public Optional<ContextSummary> summary(String itemId) {
    return jdbc.queryOne("SELECT * FROM context_summaries WHERE item_id = ?", rs -> new ContextSummary(
        rs.getString("item_id"), rs.getString("text"), rs.getLong("from_seq"), rs.getLong("to_seq"),
        rs.getInt("source_count"), rs.getString("generator"), Instant.ofEpochMilli(rs.getLong("created_at")),
        rs.getInt("degraded") == 1, rs.getInt("token_estimate")), itemId);
  }

  @Override
  public void saveSummary(ContextSummary s, boolean truncated, String eventKind, Map<String, Object> eventPayload) {
    jdbc.inTransaction(() -> upsert(s, truncated, eventKind, eventPayload));
  }

  @Override
  public int saveSummaryAndPrune(ContextSummary s, boolean truncated, String eventKind,
      Map<String, Object> eventPayload) {
    return jdbc.inTransaction(() -> {
      upsert(s, truncated, eventKind, eventPayload);
      return jdbc.execute("DELETE FROM turns WHERE item_id = ? AND seq <= ?", s.itemId(), s.toSeq());
    });
  }

  private void upsert(ContextSummary s, boolean truncated, String eventKind, Map<String, Object> eventPayload) {
    {
      jdbc.execute("""
          INSERT INTO context_summaries (item_id, text, from_seq, to_seq, source_count, generator, degraded,
                                         token_estimate, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (item_id) DO UPDATE SET text = excluded.text, from_seq = excluded.from_seq,
            to_seq = excluded.to_seq, source_count = excluded.source_count, generator = excluded.generator,
            degraded = excluded.degraded, token_estimate = excluded.token_estimate,
            created_at = excluded.created_at""",
          s.itemId(), s.text(), s.fromSeq(), s.toSeq(), s.sourceCount(), s.generator(), s.degraded() ? 1 : 0,
          s.tokenEstimate(), s.createdAt().toEpochMilli());
      TruncatedWrites.countIf(jdbc, "summaries", truncated);
      event(s.itemId(), eventKind, eventPayload, s.createdAt());
    }
  }

  @Override
  public void recordEvent(String itemId, String kind, Map<String, Object> payload, Instant at) {
    event(itemId, kind, payload, at);
  }

  private void event(String itemId, String kind, Map<String, Object> payload, Instant at) {
    Events.insert(jdbc, at.toEpochMilli(), itemId, kind, payload);
  }
}
