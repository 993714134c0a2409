package dev.orchestrate.config;

/**
 * The project's budget over windows of time ({@code budget:} in orchestrate.yaml), shared by every
 * run and every runner: US dollars and tokens per UTC day and per ISO week (Monday 00:00 UTC);
 * null: no limit.
 */
public record BudgetConfig(Double perDayUsd, Double perWeekUsd, Long tokensPerDay, Long tokensPerWeek) {
  public static final BudgetConfig NONE = new BudgetConfig(null, null, null, null);

  public boolean isLimited() {
    return perDayUsd != null || perWeekUsd != null || tokensPerDay != null || tokensPerWeek != null;
  }

  /** Whether it limits cost, which needs an agent that reports cost. */
  public boolean limitsCost() {
    return perDayUsd != null || perWeekUsd != null;
  }
}
