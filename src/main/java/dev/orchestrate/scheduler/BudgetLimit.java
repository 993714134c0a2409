package dev.orchestrate.scheduler;

import dev.orchestrate.item.Money;

import dev.orchestrate.outcome.Usage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One budget a launch must fit and what was spent against it, with where it comes from: the run's
 * ({@code window} null, set by {@code costKey}/{@code tokensKey}: a flag or an {@code execution}
 * key) or a window of the project's {@code budget:}. Says, as pure text, why a run halted and when
 * a warning threshold was crossed.
 *
 * @param now when the spend was read (a window's start and end are those holding it)
 */
record BudgetLimit(Budget budget, Usage spent, BudgetWindow window, Instant now, String costKey, String tokensKey) {

  /** The run's own budget. */
  static BudgetLimit ofRun(Budget budget, Usage spent, Instant now, String costKey, String tokensKey) {
    return new BudgetLimit(budget, spent, null, now, costKey, tokensKey);
  }

  /** A window of the project's budget. */
  static BudgetLimit ofWindow(BudgetWindow window, Budget budget, Usage spent, Instant now) {
    return new BudgetLimit(budget, spent, window, now, window.costKey(), window.tokensKey());
  }

  Budget.Limit limit() {
    return new Budget.Limit(budget, spent);
  }

  /**
   * Why no more jobs fit: {@code the per-day budget of $20.00 (budget.per_day) is spent ($20.13
   * since 2026-11-26 00:00 UTC); it reopens at 2026-11-27 00:00 UTC}. The figure named is the cost,
   * unless the budget has none or its cost alone would let the next job start.
   */
  String haltDetail(Budget.Reserve running, int runningJobs, Budget.Estimate estimate) {
    boolean cost = budget.maxCostUsd() != null && (budget.maxTokens() == null
        || new Budget(budget.maxCostUsd(), null).launch(spent, running, runningJobs, 1, estimate,
            false) instanceof Budget.Launch.Spent);
    String of = cost ? Money.usd(budget.maxCostUsd()) : budget.maxTokens() + " tokens";
    String used = cost ? Money.usd(spent.costUsd() == null ? 0 : spent.costUsd())
        : (spent.totalTokens() == null ? 0 : spent.totalTokens()) + " tokens";
    String key = cost ? costKey : tokensKey;
    if (window == null) {
      boolean reached = budget.reachedBy(spent);
      return "the run's budget of " + of + " (" + key + ") " + (reached ? "is spent (" + used + ")"
          : "has no room for another job (" + used + " spent)");
    }
    return "the " + window.label() + " budget of " + of + " (" + key + ") is spent (" + used + " since "
        + BudgetWindow.show(window.start(now)) + "); it reopens at " + BudgetWindow.show(window.end(now));
  }

  /** A threshold crossed: {@code id} tells one budget (and window) from another. */
  record Warning(String id, int percent, String message) {
  }

  /**
   * Every threshold of {@link Budget#WARN_AT} each figure of this budget reached, lowest first: a job
   * that takes the spend past 80 % and 95 % at once crosses both, and both are told, in order
   * (issue 44: only budget_95 was sent).
   */
  List<Warning> warnings() {
    List<Warning> out = new ArrayList<>();
    if (budget.maxCostUsd() != null && spent.costUsd() != null) {
      warning(costKey, spent.costUsd() / budget.maxCostUsd(), Money.usd(budget.maxCostUsd()),
          Money.usd(spent.costUsd()), out);
    }
    Long tokens = spent.totalTokens();
    if (budget.maxTokens() != null && tokens != null) {
      warning(tokensKey, (double) tokens / budget.maxTokens(), budget.maxTokens() + " tokens", tokens + " tokens",
          out);
    }
    return out;
  }

  private void warning(String key, double pressure, String of, String used, List<Warning> out) {
    String since = window == null ? "" : " since " + BudgetWindow.show(window.start(now));
    for (int percent : Budget.WARN_AT) {
      if (pressure * 100 >= percent) {
        out.add(new Warning(key + (window == null ? "" : "@" + window.start(now)), percent,
            percent + "% of " + (window == null ? "the run's" : "the " + window.label()) + " budget of " + of + " ("
                + key + ") is spent: " + used + since));
      }
    }
  }
}
