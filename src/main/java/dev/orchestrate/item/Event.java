package dev.orchestrate.item;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One entry of the event log. {@code kind} is a stable dotted name such as {@code item.status};
 * {@code payload} holds small scalar values only (strings, numbers, booleans).
 */
public record Event(String itemId, String kind, Map<String, Object> payload) {
  public static final String ITEM_ADDED = "item.added";
  public static final String ITEM_VANISHED = "item.vanished";
  public static final String ITEM_RETURNED = "item.returned";
  public static final String ITEM_STATUS = "item.status";
  public static final String PHASE_RESULT = "phase.result";
  /** A turn summary was written (context/SlidingWindowSummarizer). */
  public static final String SUMMARY_COMPLETE = "summarization:complete";
  /** A turn summary could not be written (context/SlidingWindowSummarizer). */
  public static final String SUMMARY_FAILED = "summarization:failed";

  public Event {
    Objects.requireNonNull(kind, "kind");
    payload = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(payload));
  }

  public static Event statusChange(String itemId, ItemStatus from, ItemStatus to, String phase, String reason) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("from", from.key());
    p.put("to", to.key());
    if (phase != null) {
      p.put("phase", phase);
    }
    if (reason != null) {
      p.put("reason", reason);
    }
    return new Event(itemId, ITEM_STATUS, p);
  }
}
