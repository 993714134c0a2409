package dev.orchestrate.state.sql;

import dev.orchestrate.item.EventLogPolicy;
import java.util.LinkedHashMap;
import java.util.Map;

/** The one way rows get into the event log: with their load-bearing flag decided by {@link EventLogPolicy}. */
final class Events {
  private Events() {
  }

  static final String INSERT_HEAD = "INSERT INTO events (at, item_id, kind, payload, load_bearing) VALUES";
  static final String INSERT_ROW = "(?, ?, ?, ?, ?)";
  static final String INSERT = INSERT_HEAD + " " + INSERT_ROW;

  static void insert(Jdbc jdbc, long at, String itemId, String kind, Map<String, Object> payload) {
    jdbc.execute(INSERT, row(at, itemId, kind, payload));
  }

  /** The parameters of {@link #INSERT} for one event, for {@link Jdbc#inserts} of them. */
  static Object[] row(long at, String itemId, String kind, Map<String, Object> payload) {
    Map<String, String> text = new LinkedHashMap<>();
    payload.forEach((k, v) -> text.put(k, v == null ? null : String.valueOf(v)));
    return new Object[] {at, itemId, kind, JsonText.object(payload), EventLogPolicy.isLoadBearing(kind, text) ? 1 : 0};
  }
}
