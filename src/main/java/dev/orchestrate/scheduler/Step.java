package dev.orchestrate.scheduler;

import java.util.List;

/** The result of a pure transition: the item's next state and the events that record the change. */
public record Step(ItemState next, List<Event> events) {
  public Step {
    events = List.copyOf(events);
  }
}
