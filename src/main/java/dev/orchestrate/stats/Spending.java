package dev.orchestrate.stats;

import dev.orchestrate.outcome.Usage;

/**
 * What agents reported spending: over the state's lifetime (counters that pruning never lowers)
 * and in the last run, against the budget that run had. The budget is bounded like the other
 * structures: {@link #costPressure} and {@link #tokenPressure} are the share of it spent.
 *
 * @param jobsReported jobs whose agent reported any usage
 * @param lastRunId    null before the first run
 */
public record Spending(Usage lifetime, long jobsReported, Long lastRunId, Usage lastRun, Double maxCostUsd,
    Long maxTokens) {
  public static final Spending NONE = new Spending(Usage.UNKNOWN, 0, null, Usage.UNKNOWN, null, null);

  /** Spent / max_cost_usd of the last run; null without a cost budget or a reported cost. */
  public Double costPressure() {
    return maxCostUsd == null || lastRun.costUsd() == null ? null : lastRun.costUsd() / maxCostUsd;
  }

  /** Tokens / max_tokens of the last run; null without a token budget or reported tokens. */
  public Double tokenPressure() {
    Long tokens = lastRun.totalTokens();
    return maxTokens == null || tokens == null ? null : (double) tokens / maxTokens;
  }
}
