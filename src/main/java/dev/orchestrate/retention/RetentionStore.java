package dev.orchestrate.retention;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.limits.StructureName;
import java.time.Instant;
import java.util.List;

/**
 * What retention needs from storage: rows to look at, oldest first from a saved cursor, and
 * deletes of exactly the rows it names. Which rows are beyond a policy, how far a pass walks and
 * when turns are condensed first is decided in {@link Retention}, never here.
 */
public interface RetentionStore {
  /** Records the policies (and memory's keep_recent) without deleting anything, for {@code stats}. */
  void recordPolicies(RetentionConfig config, int memoryKeepRecent);

  /** Records that {@code structure} was pruned at {@code now} (memory and event-log compaction, condensed turns). */
  void markPruned(StructureName structure, Instant now);

  /** The rows of {@code structure} its row limit is about: rows now, less those retention never deletes. */
  long prunableRows(StructureName structure);

  /** Where the last pass of {@code structure} stopped (0: from the oldest row). */
  long cursor(StructureName structure);

  /** Sets every retained structure's cursor back to 0, so the next pass starts from the oldest rows. */
  void resetCursors();

  /**
   * Up to {@code limit} rows of {@code structure} with an id above {@code afterId}, oldest first.
   * Events never include a load-bearing event nor the newest one.
   */
  List<Row> scan(StructureName structure, long afterId, int limit);

  /**
   * Deletes the rows {@code ids} of {@code structure} and saves {@code nextCursor}, in one
   * transaction, recording the prune when a row went; a deleted job's log directory goes with it
   * (after the rows, so a crash leaves a directory no row names, never a row without its log).
   *
   * @return the rows deleted
   */
  int delete(StructureName structure, List<Long> ids, long nextCursor, Instant now);

  /**
   * Finds the job log directories no job refers to (left by a crash or a failed delete) and,
   * unless {@code dryRun}, deletes them.
   */
  OrphanSweep sweepOrphanJobDirectories(boolean dryRun);

  /**
   * One row as retention sees it.
   *
   * @param at          when it was written (a job: when it ended, or started while running), epoch ms
   * @param prunable    whether it may be deleted at all: not a running job, a turn its item's summary covers
   * @param condensable for a turn not covered yet of an item that is done or blocked (or gone): the
   *                    item id, whose turns are summarized first; null otherwise
   */
  record Row(long id, long at, boolean prunable, String condensable) {
  }

  /** Summarize-then-prune of one finished item's turns; returns the turns deleted (0: failed or nothing). */
  @FunctionalInterface
  interface Condenser {
    Condenser NONE = itemId -> 0;

    int condense(String itemId);
  }

  /**
   * @param found   orphaned directories found (what a dry run would delete)
   * @param deleted of them, deleted (0 in a dry run); the others could not be, and are logged
   */
  record OrphanSweep(int found, int deleted) {
    public static final OrphanSweep NONE = new OrphanSweep(0, 0);
  }
}
