package dev.orchestrate.item;

import java.util.List;

/**
 * The result of a pure transition: the item's next state and the events that record the change.
 *
 * @param truncatedValues how many of the item's texts this step cut to their size cap (notes,
 *                        blocked reason, summary, failure); the store counts the step as one
 *                        truncated write of {@code items} when it is not 0
 */
public record Step(ItemState next, List<Event> events, int truncatedValues) {
  public Step {
    events = List.copyOf(events);
    if (truncatedValues < 0) {
      throw new IllegalArgumentException("truncatedValues must not be negative, got " + truncatedValues);
    }
  }

  /** A step that cut nothing. */
  public Step(ItemState next, List<Event> events) {
    this(next, events, 0);
  }
}
