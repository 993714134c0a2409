package dev.orchestrate.item;

import dev.orchestrate.backlog.BacklogItem;
import java.util.Objects;

/**
 * An item as the scheduler knows it: its definition (from the backlog), its position in backlog
 * order, whether the backlog file still lists it, its progress, and where it came from.
 *
 * @param origin {@code ITEM/phase} for an item created from an agent's follow-up; null for an
 *               item from the backlog file
 */
public record ItemState(BacklogItem definition, long seq, boolean inBacklog, Progress progress, String origin) {
  public ItemState {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(progress, "progress");
  }

  /** An item from the backlog file. */
  public ItemState(BacklogItem definition, long seq, boolean inBacklog, Progress progress) {
    this(definition, seq, inBacklog, progress, null);
  }

  public String id() {
    return definition.id();
  }

  public ItemStatus status() {
    return progress.status();
  }

  public ItemState with(Progress next) {
    return new ItemState(definition, seq, inBacklog, next, origin);
  }
}
