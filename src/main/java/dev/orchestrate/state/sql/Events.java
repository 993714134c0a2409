package dev.orchestrate.state.sql;

import dev.orchestrate.item.EventLogPolicy;
import java.util.LinkedHashMap;
import java.util.Map;

/** The one way rows get into the event log: with their load-bearing flag decided by {@link EventLogPolicy}. */
final class Events {
  private Events() {
  }

  static void insert(Jdbc jdbc, long at, String itemId, String kind, Map<String, Object> payload) {
    Map<String, String> text = new LinkedHashMap<>();
    payload.forEach((k, v) -> text.put(k, v == null ? null : String.valueOf(v)));
    jdbc.execute("INSERT INTO events (at, item_id, kind, payload, load_bearing) VALUES (?, ?, ?, ?, ?)",
        at, itemId, kind, JsonText.object(payload), EventLogPolicy.isLoadBearing(kind, text) ? 1 : 0);
  }
}
