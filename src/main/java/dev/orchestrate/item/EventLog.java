package dev.orchestrate.item;

import java.time.Instant;
import java.util.List;

/** The event log as read back, and its compaction; implemented by the state backend. */
public interface EventLog {

  /**
   * One event as the log holds it: when it was recorded, and the event (its item null for an event
   * of no item, such as a memory change; payload numbers read back as {@code Long}).
   */
  record Entry(Instant at, Event event) {
  }

  /** The newest {@code limit} events of every item and of none, newest first. */
  List<Entry> recent(int limit);

  /**
   * Keeps every load-bearing event ({@link EventLogPolicy}), the newest event, and the
   * {@code keepRecent} newest of the others; deletes the rest in short transactions (a bounded
   * batch each), so a concurrent run never waits long. With {@code dryRun} nothing changes.
   */
  EventCompaction compact(int keepRecent, boolean dryRun);

  /** Counts of one pass; {@code deleted} is what the DELETEs reported (or would delete). */
  record EventCompaction(long deleted, long keptLoadBearing, long keptRecent) {
  }
}
