package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.BacklogItem;
import java.util.Objects;

/**
 * An item as the scheduler knows it: its definition (from the backlog), its position in backlog
 * order, whether the backlog file still lists it, and its progress.
 */
public record ItemState(BacklogItem definition, long seq, boolean inBacklog, Progress progress) {
  public ItemState {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(progress, "progress");
  }

  public String id() {
    return definition.id();
  }

  public ItemStatus status() {
    return progress.status();
  }

  public ItemState with(Progress next) {
    return new ItemState(definition, seq, inBacklog, next);
  }
}
