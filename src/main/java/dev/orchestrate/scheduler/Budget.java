package dev.orchestrate.scheduler;

import dev.orchestrate.jobs.Usage;

/**
 * A run's spending limit ({@code execution.max_cost_usd}, {@code execution.max_tokens}, or
 * {@code run --max-cost/--max-tokens}); null: no limit. Pure, so the halt is tested without agents.
 */
public record Budget(Double maxCostUsd, Long maxTokens) {
  public static final Budget NONE = new Budget(null, null);

  public Budget {
    if (maxCostUsd != null && !(maxCostUsd > 0)) {
      throw new IllegalArgumentException("maxCostUsd must be more than 0, got " + maxCostUsd);
    }
    if (maxTokens != null && maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens must be at least 1, got " + maxTokens);
    }
  }

  public boolean isLimited() {
    return maxCostUsd != null || maxTokens != null;
  }

  /**
   * Whether {@code spend} has reached either limit. Unknown figures count as nothing spent: an
   * agent that reports no cost cannot be held to a cost budget (docs/agents.md says which do).
   */
  public boolean reachedBy(Usage spend) {
    if (maxCostUsd != null && spend.costUsd() != null && spend.costUsd() >= maxCostUsd) {
      return true;
    }
    Long tokens = spend.totalTokens();
    return maxTokens != null && tokens != null && tokens >= maxTokens;
  }
}
