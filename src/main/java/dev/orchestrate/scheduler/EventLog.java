package dev.orchestrate.scheduler;

/** Compaction of the event log; implemented in {@code store/}. */
public interface EventLog {

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
