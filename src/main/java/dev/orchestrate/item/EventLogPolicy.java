package dev.orchestrate.item;

import java.util.Map;
import java.util.Set;

/**
 * Which events of the log compaction must keep (docs/how-it-works.md): terminal transitions (to done or
 * blocked), blocks and unblocks (any transition from or to blocked), every memory change
 * ({@code memory.*}), and any kind this version does not know, since its meaning may matter to
 * whoever wrote it. The other known kinds are routine and may be pruned beyond the retention.
 */
public final class EventLogPolicy {
  /**
   * Known kinds whose rows are routine (status changes only when not terminal and not a
   * block/unblock). Summarization events come once per phase beyond the context window; what
   * they describe is kept in the item's persisted summary (with its degraded flag), so they are
   * routine too, or the log would grow with every phase forever. The workspace events (a done
   * item's branch integrated, deferred, left for a pull request) are routine as well: the
   * {@code workspaces} table keeps each item's current integration and its note, and a deferred
   * integration is reported again by every run until it succeeds.
   */
  private static final Set<String> ROUTINE = Set.of(Event.ITEM_ADDED, Event.ITEM_VANISHED, Event.ITEM_RETURNED,
      Event.ITEM_STATUS, Event.PHASE_RESULT, Event.SUMMARY_COMPLETE,
      Event.SUMMARY_FAILED, "workspace.integrated", "workspace.deferred", "workspace.skipped");
  public static final String MEMORY_PREFIX = "memory.";

  private EventLogPolicy() {
  }

  public static boolean isLoadBearing(String kind, Map<String, String> payload) {
    if (kind.startsWith(MEMORY_PREFIX) || !ROUTINE.contains(kind)) {
      return true;
    }
    if (kind.equals(Event.ITEM_STATUS)) {
      String to = payload.get("to");
      String from = payload.get("from");
      return "done".equals(to) || "blocked".equals(to) || "blocked".equals(from);
    }
    return false;
  }
}
