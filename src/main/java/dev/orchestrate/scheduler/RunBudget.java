package dev.orchestrate.scheduler;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.BudgetConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.UsageRepository;
import dev.orchestrate.outcome.Usage;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The budgets of one run (docs/agents.md, "Budgets"): the run's own ({@code max_cost_usd},
 * {@code max_tokens}, or {@code run --max-cost/--max-tokens}) and the project's windows, what this
 * run spent, what its running jobs were granted, the estimate of the next job, and the warnings
 * given. {@link Budget} decides; this keeps the figures it decides from, on the scheduler thread.
 */
final class RunBudget {
  private static final Budget.Launch.Start UNBUDGETED = new Budget.Launch.Start(Budget.Reserve.NONE, null);

  private final Config config;
  private final UsageRepository store;
  private final Clock clock;
  private final RunListener listener;
  private final RunOptions options;
  /** What this run's agents reported spending, summed as their jobs end (the budget's measure). */
  private Usage spend = Usage.UNKNOWN;
  /** The same, a figure above a job's ceiling counted as the ceiling: what the budget holds against. */
  private Usage charged = Usage.UNKNOWN;
  /** What each running job may still spend, and their sum: held against the budget until it ends. */
  private final Map<Long, Budget.Reserve> reserves = new HashMap<>();
  private Budget.Reserve reserved = Budget.Reserve.NONE;
  /** What the next job is expected to spend: the largest of the recent jobs'. */
  private Budget.Estimate estimate = Budget.Estimate.NONE;
  /** The measure of a turn of each profile: the largest cost one of its jobs reported in this run, a turn's upper bound. */
  private final Map<String, Double> turns = new HashMap<>();
  /** The running jobs of agents told their cap, which always say their cost when they end by themselves. */
  private final java.util.Set<Long> capped = new java.util.HashSet<>();
  /** Which profile each running job is of. */
  private final Map<Long, String> profiles = new HashMap<>();
  /** The largest cost of a recent job, the upper bound of a turn of the agents before this run's first. */
  private Double historyTurn;
  /** A job was not started because it could pass the budget: halt once the running ones end. */
  private boolean spent;
  /** The limit that refused a launch, for the halt to name; null when none did. */
  private BudgetLimit refusal;
  /** The budgets and their spend as of this round; null until a launch asks. */
  private List<BudgetLimit> roundLimits;
  /** A job ended since the budgets were last compared with their warning thresholds. */
  private boolean spendChanged;
  /** The threshold last announced per budget (its key, and a window's start). */
  private final Map<String, Integer> warned = new HashMap<>();

  RunBudget(Config config, UsageRepository store, Clock clock, RunListener listener, RunOptions options) {
    this.config = config;
    this.store = store;
    this.clock = clock;
    this.listener = listener;
    this.options = options;
    if (budget(config).isLimited() || config.budget().isLimited()) {
      estimate = Budget.Estimate.of(store.recentUsage(Budget.ESTIMATE_JOBS));
      historyTurn = estimate.costUsd();
    }
  }

  /** The run's own budget as configured (the report's and the run record's). */
  static Budget budget(Config config) {
    return new Budget(config.execution().maxCostUsd(), config.execution().maxTokens());
  }

  /** What this run's jobs reported spending so far. */
  Usage spend() {
    return spend;
  }

  /** A new round of launches: spend changes only as jobs end, between rounds, so the windows are read once a round. */
  void newRound() {
    roundLimits = null;
  }

  /**
   * Whether the run's budget and the project's windows let one more job start now, with
   * {@code running} jobs running. A window's spend is read from the state: every run's and every
   * runner's jobs. A {@link Budget.Launch.Spent} also marks the budget spent ({@link #reached}).
   */
  Budget.Launch launch(AgentConfig agent, int running) {
    Budget.Verdict verdict = verdict(agent, running);
    if (verdict.refusedBy() >= 0) {
      refusal = roundLimits.get(verdict.refusedBy());
    }
    if (verdict.launch() instanceof Budget.Launch.Spent) {
      spent = true;
    }
    return verdict.launch();
  }

  /**
   * Whether a job of {@code agent} could start now after the jobs of {@code waiting} items already
   * in progress (each granted its share first), deciding nothing: an item is promoted to
   * in_progress only if its first job could start (issue 44: a budget halt left the next items
   * in_progress with no attempt).
   */
  boolean admits(AgentConfig agent, int running, int waiting) {
    Budget.Reserve held = reserved;
    try {
      for (int i = 0; i <= waiting; i++) { // the waiting items' jobs first, each with its grant, then this one
        if (!(verdict(agent, running + i).launch() instanceof Budget.Launch.Start start)) {
          return false;
        }
        reserved = reserved.plus(start.reserve());
      }
      return true;
    } finally {
      reserved = held;
    }
  }

  private Budget.Verdict verdict(AgentConfig agent, int running) {
    if (roundLimits == null) {
      roundLimits = limits();
    }
    if (roundLimits.isEmpty()) {
      return new Budget.Verdict(UNBUDGETED, -1);
    }
    boolean capsCost = agent.preset().costCapFlag() != null;
    Double turn = turns.get(agent.profileName());
    if (capsCost && turn == null) {
      turn = historyTurn; // no turn of this run yet: the largest job of recent runs, the safe side
    }
    return Budget.launchAll(roundLimits.stream().map(BudgetLimit::limit).toList(), reserved, running,
        Math.max(1, config.execution().maxConcurrent() - running), estimate.withTurn(turn), capsCost);
  }

  /** A job of {@code agent} started with this grant: held against the budgets until it ends. */
  void started(long jobId, AgentConfig agent, Budget.Reserve reserve) {
    reserves.put(jobId, reserve);
    profiles.put(jobId, agent.profileName());
    if (agent.preset().costCapFlag() != null) {
      capped.add(jobId);
    }
    reserved = reserved.plus(reserve);
  }

  /**
   * A job ended having spent {@code usage} (a cancelled, timed-out or budget-cut one too): it
   * replaces the job's grant. A figure above a job's ceiling counts as the ceiling, never as
   * nothing: it proves the budget was passed. Its whole cost, the upper bound of its largest turn,
   * becomes its profile's measure of a turn when larger.
   */
  void ended(long jobId, Usage usage) {
    Usage reported = countedAtCeiling(usage);
    Usage counted = reported;
    Budget.Reserve granted = reserves.remove(jobId);
    if (capped.remove(jobId) && counted.costUsd() == null && granted != null && granted.costUsd() > 0) {
      // Claude Code says its cost only in its result: a job cut off before it (a timeout, a stall, a
      // cancel) spent an unknown part of its share, so the budget holds the whole share as spent
      counted = counted.plus(new Usage(null, null, null, null, granted.costUsd()));
    }
    spend = spend.plus(usage);
    charged = charged.plus(counted);
    reserved = granted == null ? reserved : reserved.minus(granted);
    String profile = profiles.remove(jobId);
    Double turn = reported.costUsd(); // what it reported, not the share held for it
    if (profile != null && turn != null && turn > 0) {
      turns.merge(profile, turn, Math::max);
    }
    estimate = estimate.with(counted);
    spendChanged = true;
  }

  /** {@code usage} with a figure refused for passing a job's ceiling ({@link Usage#bounded}) counted as the ceiling. */
  static Usage countedAtCeiling(Usage usage) {
    String note = usage.note();
    if (note == null) {
      return usage;
    }
    boolean cost = usage.costUsd() == null && note.contains(Usage.ABOVE_COST);
    boolean tokens = note.contains(Usage.ABOVE_TOKENS);
    if (!cost && !tokens) {
      return usage;
    }
    // a refused token figure is one of those left unknown: counting the ceiling once is "at least"
    Long extra = tokens ? Usage.MAX_TOKENS : null;
    Usage ceiling = new Usage(extra, null, null, null, cost ? Double.valueOf(Usage.MAX_COST_USD) : null);
    return usage.plus(ceiling);
  }

  /** Whether the run halts for its budget: a launch was refused, or the run's budget is spent. */
  boolean reached() {
    return spent || budget(config).reachedBy(charged);
  }

  /** Tells the listener, once per budget and threshold, that a budget is 80 % or 95 % spent, if a job ended since. */
  void warnIfSpent() {
    if (!spendChanged) {
      return;
    }
    spendChanged = false;
    for (BudgetLimit limit : limits()) {
      for (BudgetLimit.Warning w : limit.warnings()) {
        if (w.percent() > warned.getOrDefault(w.id(), 0)) {
          warned.put(w.id(), w.percent());
          listener.budgetWarning(w.id(), w.percent(), w.message());
        }
      }
    }
  }

  /** What a budget halt names: the limit, the flag or key that set it, what was spent, when a window reopens. */
  String haltDetail(int running) {
    BudgetLimit refused = refusal != null ? refusal
        : BudgetLimit.ofRun(budget(config), charged, clock.instant(), options.costKey(), options.tokensKey());
    return refused.haltDetail(reserved, running, estimate);
  }

  private List<BudgetLimit> limits() {
    List<BudgetLimit> limits = new ArrayList<>();
    Instant now = clock.instant();
    Budget budget = budget(config);
    if (budget.isLimited()) {
      limits.add(BudgetLimit.ofRun(budget, charged, now, options.costKey(), options.tokensKey()));
    }
    BudgetConfig project = config.budget();
    for (BudgetWindow window : BudgetWindow.values()) {
      Double usd = window == BudgetWindow.DAY ? project.perDayUsd() : project.perWeekUsd();
      Long tokens = window == BudgetWindow.DAY ? project.tokensPerDay() : project.tokensPerWeek();
      if (usd != null || tokens != null) {
        limits.add(BudgetLimit.ofWindow(window, new Budget(usd, tokens), store.usageSince(window.start(now)), now));
      }
    }
    return limits;
  }
}
