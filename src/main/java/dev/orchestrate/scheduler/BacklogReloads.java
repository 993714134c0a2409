package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogSource;
import dev.orchestrate.item.ItemRepository;
import dev.orchestrate.item.SyncResult;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;

/**
 * The backlog file into the state, at the run's start and whenever the file was edited during the
 * run: the state, not the scheduler's map, is the truth between decisions.
 */
final class BacklogReloads {
  private final ItemRepository store;
  private final BacklogSource backlogs;
  private final RunListener listener;
  private final Clock clock;

  BacklogReloads(ItemRepository store, BacklogSource backlogs, RunListener listener, Clock clock) {
    this.store = store;
    this.backlogs = backlogs;
    this.listener = listener;
    this.clock = clock;
  }

  /** Syncs an edited backlog file into the state and takes the items from there again. */
  SyncResult reload(SelectionIndex items) {
    Optional<Backlog> edited = backlogs.changed(listener::backlogRejected);
    if (edited.isEmpty()) {
      return SyncResult.NONE;
    }
    SyncResult changes = sync(edited.get(), items, clock.instant());
    listener.backlogReloaded(changes);
    return changes;
  }

  /** Syncs the backlog as it is now: at the run's start. */
  SyncResult sync(SelectionIndex items, Instant now) {
    return sync(backlogs.current(), items, now);
  }

  /**
   * Syncs {@code backlog} into the state and puts the stored items, as the sync left them, in
   * {@code items}. The backlog's items are the state's then: one copy of each
   * (docs/architecture.md, "Memory per item").
   */
  private SyncResult sync(Backlog backlog, SelectionIndex items, Instant now) {
    ItemRepository.Synced synced = store.syncAndRead(backlog.items(), now);
    backlogs.synced();
    items.load(synced.items());
    return synced.changes();
  }
}
