package dev.orchestrate.scheduler;

import dev.orchestrate.item.StateRepository;

import dev.orchestrate.outcome.Usage;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

/**
 * A spending limit ({@code execution.max_cost_usd}, {@code execution.max_tokens}, or
 * {@code run --max-cost/--max-tokens}); null: no limit. Pure, so the halt and every launch decision
 * are tested without agents.
 *
 * <p>A budget is a promise: {@link #launch} starts a job only if what was spent, plus what the
 * running jobs may still spend, plus what the new job may spend stays within it (docs/agents.md,
 * "Budgets").
 */
public record Budget(Double maxCostUsd, Long maxTokens) {
  public static final Budget NONE = new Budget(null, null);
  /** How many of the most recent jobs the estimate of the next job's spend looks at. */
  public static final int ESTIMATE_JOBS = 20;
  /** The smallest cost cap a job is started with; below it the budget counts as spent. */
  public static final double MIN_CAP_USD = 0.000001;
  /** The shares of a budget at which the operator is warned, in percent, ascending. */
  public static final List<Integer> WARN_AT = List.of(80, 95);

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

  /** The highest threshold of {@link #WARN_AT} that {@code pressure} (spent / budget) reached; null: none. */
  public static Integer warning(Double pressure) {
    Integer reached = null;
    for (int percent : WARN_AT) {
      if (pressure != null && pressure * 100 >= percent) {
        reached = percent;
      }
    }
    return reached;
  }

  /** What running jobs may still spend: the sum of what each was granted at its start. */
  public record Reserve(double costUsd, long tokens) {
    public static final Reserve NONE = new Reserve(0, 0);

    public Reserve plus(Reserve other) {
      return new Reserve(costUsd + other.costUsd, saturated(tokens, other.tokens));
    }

    public Reserve minus(Reserve other) {
      return new Reserve(Math.max(0, costUsd - other.costUsd), Math.max(0, tokens - other.tokens));
    }

    private static long saturated(long a, long b) {
      long sum = a + b;
      return sum < 0 ? Long.MAX_VALUE : sum;
    }
  }

  /**
   * What the next job is expected to spend: the largest cost and the largest token total of the
   * recent jobs that reported them, and the largest cost of one turn of its agent; a null figure: no
   * job reported it yet.
   *
   * @param turnUsd the most one turn of the agent cost: how far past its cap an agent that checks its
   *                cap between turns (Claude Code's {@code --max-budget-usd}) may go
   */
  public record Estimate(Double costUsd, Long tokens, Double turnUsd) {
    public static final Estimate NONE = new Estimate(null, null, null);

    /** Job figures, no turn known. */
    public Estimate(Double costUsd, Long tokens) {
      this(costUsd, tokens, null);
    }

    /** This estimate with {@code turn} as the largest turn's cost (null: none known). */
    public Estimate withTurn(Double turn) {
      return new Estimate(costUsd, tokens, turn);
    }

    /** The largest figures of these jobs' usage ({@link StateRepository#recentUsage}). */
    public static Estimate of(List<Usage> recent) {
      Estimate e = NONE;
      for (Usage u : recent) {
        e = e.with(u);
      }
      return e;
    }

    /** This estimate, raised to a job that spent more. */
    public Estimate with(Usage job) {
      return new Estimate(larger(costUsd, job.costUsd()), larger(tokens, job.totalTokens()), turnUsd);
    }

    private static <T extends Comparable<T>> T larger(T a, T b) {
      return a == null ? b : b == null || a.compareTo(b) >= 0 ? a : b;
    }
  }

  /** Whether a job may start now, and what it is granted. */
  public sealed interface Launch permits Launch.Start, Launch.Wait, Launch.Spent {
    /**
     * Start it. {@code reserve} is held until it ends; {@code capUsd}, when not null, is the most
     * it may spend, for an agent that can be told ({@code claude --max-budget-usd}).
     */
    record Start(Reserve reserve, BigDecimal capUsd) implements Launch {
    }

    /** Not while others run: no job reported a figure yet, so the first runs alone. */
    record Wait() implements Launch {
    }

    /** It could pass the budget: start nothing more, halt once the running jobs end. */
    record Spent() implements Launch {
    }
  }

  /**
   * Decides the launch of one more job.
   *
   * @param spent     what the finished jobs spent (unknown figures: nothing)
   * @param running   what the running jobs were granted
   * @param runningJobs how many jobs run
   * @param freeSlots the jobs that could start now, this one included (at least 1)
   * @param estimate  what a job is expected to spend
   * @param capsCost  whether the agent can be told the most it may spend: then it is granted an
   *                  equal share of what is left, {@code left / freeSlots}, instead of the estimate
   */
  public Launch launch(Usage spent, Reserve running, int runningJobs, int freeSlots, Estimate estimate,
      boolean capsCost) {
    if (freeSlots < 1) {
      throw new IllegalArgumentException("freeSlots must be at least 1, got " + freeSlots);
    }
    double cost = 0;
    BigDecimal cap = null;
    if (maxCostUsd != null) {
      double left = maxCostUsd - (spent.costUsd() == null ? 0 : spent.costUsd()) - running.costUsd();
      if (capsCost) {
        Launch capped = capped(left, runningJobs, freeSlots, estimate.turnUsd());
        if (!(capped instanceof Launch.Start start)) {
          return capped;
        }
        cap = start.capUsd();
        cost = start.reserve().costUsd();
      } else {
        Launch no = refused(left, estimate.costUsd(), runningJobs);
        if (no != null) {
          return no;
        }
        cost = estimate.costUsd() == null ? left : estimate.costUsd();
      }
    }
    long tokens = 0;
    if (maxTokens != null) {
      Long spentTokens = spent.totalTokens();
      double left = (double) maxTokens - (spentTokens == null ? 0 : spentTokens) - running.tokens();
      Launch no = refused(left, estimate.tokens() == null ? null : estimate.tokens().doubleValue(), runningJobs);
      if (no != null) {
        return no;
      }
      tokens = estimate.tokens() == null ? (long) left : estimate.tokens();
    }
    return new Launch.Start(new Reserve(cost, tokens), cap);
  }

  /**
   * The launch of an agent told its cap ({@code claude --max-budget-usd}), which checks it only
   * between turns, so it may pass it by one turn: each job holds a share of what is {@code left}, and
   * is told that share less one turn ({@code turn}, the largest seen), so that together they never
   * pass the budget by more than one turn of one agent, should a turn cost more than any before it
   * (issue 44: shares below the cost of a turn took a budget to 1.2x, and to 24x). A share is at
   * least two turns (the cap at least one), as many jobs as that allows run; with one turn's worth
   * left, one job alone; with less, nothing more starts. With no turn known the first job runs alone
   * and may spend what is left: its turns become the measure.
   */
  private static Launch capped(double left, int runningJobs, int freeSlots, Double turn) {
    if (turn == null || turn <= 0) {
      if (runningJobs > 0) {
        return new Launch.Wait();
      }
      BigDecimal all = BigDecimal.valueOf(Math.max(0, left)).setScale(6, RoundingMode.DOWN);
      return all.doubleValue() < MIN_CAP_USD ? new Launch.Spent() : new Launch.Start(new Reserve(all.doubleValue(), 0),
          all);
    }
    int slots = (int) Math.min(freeSlots, Math.floor(left / (2 * turn)));
    if (slots < 1) {
      if (runningJobs > 0) {
        return new Launch.Wait(); // what the running jobs hold but do not spend comes back as they end
      }
      if (left - turn < MIN_CAP_USD) {
        return new Launch.Spent(); // what is left cannot pay for one more turn (and a cap beyond it)
      }
      slots = 1;
    }
    BigDecimal share = BigDecimal.valueOf(left / slots).setScale(6, RoundingMode.DOWN);
    BigDecimal cap = share.subtract(BigDecimal.valueOf(turn)).setScale(6, RoundingMode.DOWN)
        .max(BigDecimal.valueOf(MIN_CAP_USD).setScale(6, RoundingMode.DOWN));
    return new Launch.Start(new Reserve(share.doubleValue(), 0), cap);
  }

  /** Why a job expected to spend {@code expected} (null: unknown) may not start; null: it may. */
  private static Launch refused(double left, Double expected, int runningJobs) {
    if (expected == null) {
      // Nothing to go by: the first job runs alone and may spend what is left; it sets the estimate.
      return runningJobs > 0 ? new Launch.Wait() : left > 0 ? null : new Launch.Spent();
    }
    return left > 0 && expected <= left ? null : new Launch.Spent();
  }

  /** A budget and what was spent against it: the run's, or a window's. */
  public record Limit(Budget budget, Usage spent) {
  }

  /** The launch all limits allow, and the first limit that refused it (-1: none). */
  public record Verdict(Launch launch, int refusedBy) {
  }

  /**
   * Decides one launch under several limits at once: it starts only if each lets it, with the
   * smallest cap and the smallest reserve of the limits that bound each figure.
   */
  public static Verdict launchAll(List<Limit> limits, Reserve running, int runningJobs, int freeSlots,
      Estimate estimate, boolean capsCost) {
    Double cost = null;
    Long tokens = null;
    BigDecimal cap = null;
    boolean wait = false;
    for (int i = 0; i < limits.size(); i++) {
      Limit limit = limits.get(i);
      Launch launch = limit.budget().launch(limit.spent(), running, runningJobs, freeSlots, estimate, capsCost);
      if (launch instanceof Launch.Spent) {
        return new Verdict(launch, i);
      }
      if (launch instanceof Launch.Start start) {
        if (limit.budget().maxCostUsd() != null) {
          cost = cost == null ? start.reserve().costUsd() : Math.min(cost, start.reserve().costUsd());
        }
        if (limit.budget().maxTokens() != null) {
          tokens = tokens == null ? start.reserve().tokens() : Math.min(tokens, start.reserve().tokens());
        }
        if (start.capUsd() != null) {
          cap = cap == null || start.capUsd().compareTo(cap) < 0 ? start.capUsd() : cap;
        }
      } else {
        wait = true;
      }
    }
    if (wait) {
      return new Verdict(new Launch.Wait(), -1);
    }
    return new Verdict(new Launch.Start(new Reserve(cost == null ? 0 : cost, tokens == null ? 0 : tokens), cap), -1);
  }
}
