package dev.orchestrate.scheduler;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.Progress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The phase-summary map of a run session (docs/architecture.md): item id → the latest
 * successful phase summary, read when the item's next phase is spawned. Owned by the scheduler
 * thread; not thread-safe, on purpose.
 *
 * <p>Its bound: entries exist only for active items (not done, not blocked). Every transition to
 * Done or Blocked goes through {@link #finished}, called after the state change is committed, and
 * each tick {@link #sweep} drops entries of items that are no longer active (an item the backlog
 * no longer lists, say). So after N items finish it holds at most the number of active items,
 * which action selection keeps at or below {@code max_wip + max_concurrent}.
 *
 * <p>The summary is also persisted with the item ({@link Progress#phaseSummary()}), so a new
 * session {@link #restore}s the map and a crash or Ctrl-C never loses an item's context.
 */
final class PhaseSummaryMap {
  private static final Logger log = LoggerFactory.getLogger(PhaseSummaryMap.class);
  /** Above this many entries a DEBUG line says so: far more than any sane max_wip + max_concurrent. */
  static final int DEBUG_THRESHOLD = 100;

  private final Map<String, String> summaries = new HashMap<>();
  private int peak;

  /** Inserted on phase and subphase success of an item that stays active. */
  public void put(String itemId, String summary) {
    if (summary == null) {
      return;
    }
    summaries.put(itemId, summary);
    peak = Math.max(peak, summaries.size());
    if (summaries.size() > DEBUG_THRESHOLD) {
      log.debug("phase-summary map holds {} entries (more than {})", summaries.size(), DEBUG_THRESHOLD);
    }
  }

  /** The summary an item's next phase is given, copied into its job at spawn. */
  public Optional<String> get(String itemId) {
    return Optional.ofNullable(summaries.get(itemId));
  }

  /**
   * The summary an item's next phase is given: the map's entry or, when the map has none, the
   * summary persisted with the item, put back into the map as {@link #restore} does at the start
   * of a session. An item removed from the backlog and listed again during a run was swept from
   * the map meanwhile; its context is not lost with the entry.
   */
  public Optional<String> forSpawn(ItemState item) {
    if (!summaries.containsKey(item.id())) {
      restore(java.util.List.of(item));
    }
    return get(item.id());
  }

  /**
   * The one way out for an item that reached Done or Blocked: called as the last step, after the
   * status change is committed.
   */
  public void finished(String itemId) {
    summaries.remove(itemId);
  }

  /** Drops the entries of items that are no longer active; returns how many it dropped. */
  public int sweep(Predicate<String> active) {
    int dropped = 0;
    for (Iterator<String> it = summaries.keySet().iterator(); it.hasNext();) {
      if (!active.test(it.next())) {
        it.remove();
        dropped++;
      }
    }
    return dropped;
  }

  /** Loads the persisted summaries of the active items at the start of a session. */
  public void restore(Iterable<ItemState> items) {
    for (ItemState item : items) {
      if (item.inBacklog() && !item.status().isTerminal() && item.progress().phaseSummary() != null) {
        put(item.id(), item.progress().phaseSummary());
      }
    }
  }

  public int size() {
    return summaries.size();
  }

  /** The most entries it held at once during this session. */
  public int peak() {
    return peak;
  }
}
