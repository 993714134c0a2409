package dev.orchestrate.item;

import dev.orchestrate.outcome.Usage;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What agents reported they spent: per job, per item, per agent session and per budget window. Part of the run's port, {@link StateRepository}: each method is one transaction.
 */
public interface UsageRepository {

  /** Reported usage per job, for the given jobs (unknown usage is {@link Usage#UNKNOWN}). */
  Map<Long, Usage> jobUsage(List<Long> jobIds);

  /**
   * The usage of the {@code jobs} most recently started jobs that have ended and reported any figure,
   * every runner's, newest first: what a budget expects the next job to spend (the scheduler's {@code Budget}).
   */
  List<Usage> recentUsage(int jobs);

  /**
   * The usage of every job (every runner's) that ended at or after {@code since}, summed; unknown
   * figures stay null. The spend of a budget window; jobs retention pruned are not counted.
   */
  Usage usageSince(Instant since);

  /**
   * The usage recorded on the ended jobs of the agent session {@code sessionId}, summed: what a CLI
   * that reports a resumed session's running totals had already reported (docs/verification.md).
   */
  default Usage sessionUsage(String sessionId) {
    return Usage.UNKNOWN;
  }

  /** Reported usage per item id, summed over the item's jobs. */
  Map<String, Usage> itemUsage();
}
