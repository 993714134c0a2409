package dev.orchestrate.scheduler;

import java.util.Objects;

/**
 * What one {@code run} is asked to do, besides the config.
 *
 * @param phaseCap phase executions this run may start (at least 1)
 * @param filter   {@code --only} and {@code --target}; {@link ItemFilter#ALL} for everything. The
 *                 scheduler pins its statuses at the start of the run.
 * @param costKey  the flag or key that set the run's cost budget, for the halt to name
 *                 ({@code --max-cost} or {@code execution.max_cost_usd})
 * @param tokensKey likewise for its token budget ({@code --max-tokens} or {@code execution.max_tokens})
 */
public record RunOptions(int phaseCap, ItemFilter filter, String costKey, String tokensKey) {
  public RunOptions {
    Objects.requireNonNull(filter, "filter");
    costKey = costKey == null ? "execution.max_cost_usd" : costKey;
    tokensKey = tokensKey == null ? "execution.max_tokens" : tokensKey;
    if (phaseCap < 1) {
      throw new IllegalArgumentException("phaseCap must be >= 1, got " + phaseCap);
    }
  }

  public RunOptions(int phaseCap, ItemFilter filter) {
    this(phaseCap, filter, null, null);
  }

  public static RunOptions cap(int phaseCap) {
    return new RunOptions(phaseCap, ItemFilter.ALL);
  }
}
