package dev.orchestrate.retention;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.limits.StructureName;
import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * Retention over the state (docs/how-it-works.md): budgeted passes that delete, per structure,
 * what is beyond its policy, from a saved cursor, so a pass costs what its budget allows and not
 * what the tables hold. Running jobs, load-bearing events, the newest event and turns no summary
 * covers are never deleted; finished items' uncovered turns are condensed first (summarize, then
 * prune, in one transaction).
 */
public interface RetentionStore {
  /** Records the policies (and memory's keep_recent) without deleting anything, for {@code stats}. */
  void recordPolicies(RetentionConfig config, int memoryKeepRecent);

  /** Records that {@code structure} was pruned at {@code now} (by memory or event-log compaction). */
  void markPruned(StructureName structure, Instant now);

  /** One budgeted pass over every structure, to its end. */
  default RetentionPass pass(RetentionConfig config, int memoryKeepRecent, Instant now, Condenser condenser) {
    return pass(config, memoryKeepRecent, now, condenser, () -> false);
  }

  /**
   * One budgeted pass that steps aside, between two units of work, when {@code waiting} says the
   * scheduler has work; continue one that {@link RetentionPass#stepped()} with {@link #resume}.
   */
  RetentionPass pass(RetentionConfig config, int memoryKeepRecent, Instant now, Condenser condenser,
      BooleanSupplier waiting);

  /** Continues a pass that stepped aside, with what is left of each budget; the result counts the whole pass. */
  RetentionPass resume(RetentionPass stepped, RetentionConfig config, Instant now, Condenser condenser,
      BooleanSupplier waiting);

  /** Passes until every structure is within its policy, calling {@code progress} with the rows deleted so far. */
  RetentionPass full(RetentionConfig config, int memoryKeepRecent, Instant now, Condenser condenser,
      LongConsumer progress);

  /**
   * Finds the job log directories no job refers to (left by a crash or a failed delete) and,
   * unless {@code dryRun}, deletes them.
   */
  OrphanSweep sweepOrphanJobDirectories(boolean dryRun);

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
