package dev.orchestrate.state.sql;

import dev.orchestrate.item.Event;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ReviewDecision;
import dev.orchestrate.item.ReviewQueue;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A person's decision on items as one claim (issue 43): what another decision took first, and the
 * conditional queueing of review decisions for a run. Each check runs in the state's write
 * transaction with the write it guards (SQLite's {@code BEGIN IMMEDIATE}, PostgreSQL's exclusive
 * write lock), so that no other decision, queued or written, comes between.
 */
final class DecisionClaims {
  private DecisionClaims() {
  }

  /** As {@link ReviewQueue#queueDecisions}: all or none, each only while its item awaits review with none queued. */
  static ReviewQueue.Claim queue(Jdbc jdbc, List<ReviewDecision> decisions, Instant now) {
    return jdbc.inTransaction(() -> {
      List<ReviewQueue.Taken> taken = taken(jdbc, decisions.stream().map(ReviewDecision::itemId).toList(),
          ItemStatus.AWAITING_REVIEW);
      if (!taken.isEmpty()) {
        return new ReviewQueue.Claim(List.of(), taken);
      }
      List<Long> ids = new ArrayList<>();
      for (ReviewDecision d : decisions) {
        ids.add(jdbc.insert("INSERT INTO review_decisions (item_id, decision, notes, phase, requested_at)"
            + " VALUES (?, ?, ?, ?, ?)", d.itemId(), d.kind(), d.notes(), d.phase(), now.toEpochMilli()));
      }
      return new ReviewQueue.Claim(ids, List.of());
    });
  }

  /** As {@link ReviewQueue#taken}: three indexed reads an item (the queue is empty but for pending decisions). */
  static List<ReviewQueue.Taken> taken(Jdbc jdbc, List<String> ids, ItemStatus expected) {
    List<ReviewQueue.Taken> out = new ArrayList<>();
    for (String id : ids) {
      Optional<String[]> row = jdbc.queryOne("SELECT status, phase FROM items WHERE id = ?",
          rs -> new String[] {rs.getString(1), rs.getString(2)}, id);
      if (row.isEmpty()) {
        continue;
      }
      String queued = jdbc.queryOne("SELECT decision FROM review_decisions WHERE item_id = ? ORDER BY id LIMIT 1",
          rs -> rs.getString(1), id).orElse(null);
      ItemStatus status = ItemStatus.fromKey(row.get()[0]);
      if (status == expected && queued == null) {
        continue;
      }
      String lastChange = jdbc.queryOne("SELECT payload FROM events WHERE item_id = ? AND kind = ?"
          + " ORDER BY id DESC LIMIT 1", rs -> rs.getString(1), id, Event.ITEM_STATUS)
          .map(payload -> JsonText.parseObject(payload).get("reason")).orElse(null);
      out.add(new ReviewQueue.Taken(id, status, row.get()[1], queued, lastChange));
    }
    return out;
  }
}
