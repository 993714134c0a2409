package dev.orchestrate.item;

import dev.orchestrate.backlog.BacklogItem;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The items of the state: the backlog's sync, reads, and each change of an item with its events. Part of the run's port, {@link StateRepository}: each method is one transaction.
 */
public interface ItemRepository {

  /**
   * Brings the stored items in line with the backlog file: new ids are added (with their initial
   * status hint), known ids keep their progress but take the file's definition, ids missing from
   * the file are marked as not in the backlog (never deleted). Follow-up items (those with an
   * origin) are never in the file, so they stay in the backlog; if the file lists one, its
   * definition wins and the origin stays.
   */
  default SyncResult sync(List<BacklogItem> backlog, Instant now) {
    return syncAndRead(backlog, now).changes();
  }

  /**
   * {@link #sync}, and every stored item as it is after the sync, in backlog order: what {@link
   * #items} would read right after it, without reading it again (on a first run over a million
   * items that read took longer than the sync). An item the backlog lists holds the backlog's own
   * {@link BacklogItem}, so a run keeps one copy of each. A known item whose definition and listing
   * are unchanged is not written.
   */
  Synced syncAndRead(List<BacklogItem> backlog, Instant now);

  /** What a sync changed, and the items after it in backlog order. */
  record Synced(SyncResult changes, List<ItemState> items) {}

  /**
   * Appends an item that lives only in the state, as a follow-up does ({@code item.origin()} says
   * where it came from), unless an item with its id already exists: then nothing is written and the
   * result is empty. Its {@code item.added} event is written with it, in one transaction.
   */
  Optional<ItemState> add(FollowUpItem item, Instant now);

  /** All items, in backlog order (the order in which they were first seen). */
  List<ItemState> items();

  /** The item with this id, if the state knows it. */
  Optional<ItemState> item(String id);

  /** Persists an item's new state and the events that describe the change. */
  void apply(Step step, Instant now);

  /**
   * Persists {@code step} only if the item's stored status is still {@code expected}, so a change
   * computed from a read is never written over a concurrent one. Returns false (and writes
   * nothing) when the status has changed since.
   */
  boolean applyIf(Step step, ItemStatus expected, Instant now);

  /**
   * Applies every step in one transaction if every item is still {@code expected}; nothing is
   * applied (false) when one is not, so that a command's all-or-nothing promise holds beside a run.
   */
  boolean applyAllIf(List<Step> steps, ItemStatus expected, Instant now);
}
