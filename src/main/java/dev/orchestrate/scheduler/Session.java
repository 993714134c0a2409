package dev.orchestrate.scheduler;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.RunFigures;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The scheduler thread's state for one session. */
final class Session {
  final long runId;
  final int phaseCap;
  /** The run's budgets and what it spent against them. */
  final RunBudget budget;
  /** The items by id in backlog order, indexed for action selection (every change goes through it). */
  final SelectionIndex items = new SelectionIndex();
  /** What the run last said it waits for, and when ({@code Scheduler.waitingFor}). */
  String waitingFor;
  java.time.Instant waitingSaidAt;
  final PhaseSummaryMap summaries = new PhaseSummaryMap();
  final JobTable<Job> jobs = new JobTable<>();
  /** Item id → whether its running job's phase is destructive (the snapshot's view of the job table). */
  final Map<String, Boolean> runningItems = new LinkedHashMap<>();
  ItemFilter filter = ItemFilter.ALL;
  SyncResult sync = SyncResult.NONE;
  /** Nothing was done since the items were last read afresh to decide whether to halt. */
  boolean checkedBeforeHalt;
  int jobNumber;
  int jobsStarted;
  int consecutiveExhaustions;
  /** Items that reached done (blocked) in this run, each once however often it passed through. */
  final java.util.Set<String> doneThisRun = new java.util.LinkedHashSet<>();
  final java.util.Set<String> blockedThisRun = new java.util.LinkedHashSet<>();
  /** A provider's limit or refusal halts the run (usage_limit, agent_auth), with what to tell the operator. */
  HaltReason limitHalt;
  String haltDetail;
  /** Attempts a provider ended, by class (the run report's tally). */
  final Map<String, Integer> limited = new java.util.TreeMap<>();
  /** This round left a phase unstarted because its agent profile is paused: wait, do not halt. */
  boolean heldByPause;
  /**
   * Items awaiting review with when their wait began (a pipeline's review_timeout), from the state at
   * the run's start and from this run's moves into awaiting_review (taken in at the next tick).
   */
  final Map<String, java.time.Instant> reviewWaits = new LinkedHashMap<>();
  /** Items this run moved into awaiting_review since the last tick. */
  final List<String> enteredReview = new ArrayList<>();

  Session(long runId, int phaseCap, RunBudget budget) {
    this.runId = runId;
    this.phaseCap = phaseCap;
    this.budget = budget;
  }

  Map<String, Boolean> running() {
    return runningItems;
  }

  /** Listed items that are not finished and that this run may work on (the filter admits them). */
  List<String> remaining() {
    var admitted = filter.admission(items);
    List<String> ids = new ArrayList<>();
    for (ItemState item : items.values()) {
      if (item.inBacklog() && !item.status().isTerminal() && admitted.test(item)) {
        ids.add(item.id());
      }
    }
    return ids;
  }

  /** Listed, unfinished items the run's {@code --only} criteria leave out (targets aside). */
  List<String> unselected() {
    List<String> ids = new ArrayList<>();
    for (ItemState item : items.values()) {
      if (item.inBacklog() && !item.status().isTerminal() && !filter.matches(item)) {
        ids.add(item.id());
      }
    }
    return ids;
  }

  /** Counts an item that has just reached Done or Blocked in this run. */
  void count(ItemState before, ItemState after) {
    if (before.status() != after.status() && after.status() == ItemStatus.AWAITING_REVIEW) {
      enteredReview.add(after.id());
    }
    if (before.status() != after.status()) {
      if (after.status() == ItemStatus.DONE) {
        doneThisRun.add(after.id());
      } else if (after.status() == ItemStatus.BLOCKED) {
        blockedThisRun.add(after.id());
      }
    }
  }

  /**
   * The circuit breaker counts retry exhaustions in a row (a systematic failure: a broken agent,
   * no network, a full disk) and any completed phase or subphase resets it. An agent that reports
   * blocked is a decision, not a failure, and does neither.
   */
  void trackExhaustion(AgentOutcome outcome, Step step) {
    if (outcome.result() == AgentResult.PHASE_COMPLETE || outcome.result() == AgentResult.SUBPHASE_COMPLETE) {
      consecutiveExhaustions = 0;
    } else if (outcome.result() == AgentResult.FAILED && step.next().status() == ItemStatus.BLOCKED) {
      consecutiveExhaustions++;
    }
  }

  /** Budget cuts in a row of one item's phase before the run halts: its agent's own cap is too small. */
  static final int BUDGET_CUTS_IN_A_ROW = 3;
  /** Each item's budget cuts in a row ({@code budget_exhausted}), and the tally of uncounted attempts. */
  private final Map<String, Integer> budgetCuts = new java.util.HashMap<>();

  /**
   * A budget cut costs the item nothing, so nothing but this bounds the same phase being cut again
   * and again under an agent's own fixed cap ({@code --max-budget-usd} in {@code agent.args}): after
   * {@value #BUDGET_CUTS_IN_A_ROW} in a row of one item the run halts with {@code budget}, saying
   * why. Also tallies the cut with the run's uncounted attempts.
   */
  void trackBudgetCut(ItemState item, String phase, AgentOutcome outcome) {
    if (outcome.kind() != dev.orchestrate.outcome.OutcomeClass.BUDGET_EXHAUSTED) {
      budgetCuts.remove(item.id());
      return;
    }
    limited.merge(outcome.kind().key(), 1, Integer::sum);
    int cuts = budgetCuts.merge(item.id(), 1, Integer::sum);
    if (cuts >= BUDGET_CUTS_IN_A_ROW && limitHalt == null) {
      limitHalt = HaltReason.BUDGET;
      haltDetail = item.id() + ": phase " + phase + " was cut by its agent's own budget " + cuts + " times in a row"
          + " (budget_exhausted, not counted): raise the cap the agent is given (--max-budget-usd in agent.args, or "
          + "the run's budget) or split the work";
    }
  }

  /**
   * The run's report, once it halted for {@code halt} and nothing runs any more. "This run" counts
   * each item once, as it ends: one that passed through done on its way to its checks (or through
   * them twice) is one done item, and only if it is done now.
   */
  RunReport report(HaltReason halt, Duration duration, int interrupted, SyncResult sync, RunFigures figures,
      Budget budget, String runnerId) {
    int done = count(ItemStatus.DONE);
    List<String> blocked = ids(ItemStatus.BLOCKED);
    List<String> awaiting = ids(ItemStatus.AWAITING_REVIEW);
    List<String> checks = ids(ItemStatus.AWAITING_CHECKS);
    List<String> landing = items.landingQueue().stream().filter(ItemState::inBacklog).map(ItemState::id).toList();
    int inBacklog = (int) items.values().stream().filter(ItemState::inBacklog).count();
    List<String> unfinished = new ArrayList<>();
    for (ItemState item : items.values()) {
      if (item.inBacklog() && !item.status().isTerminal()) {
        unfinished.add(item.id());
      }
    }
    var admitted = filter.admission(items);
    int blockedSelected = (int) blocked.stream().filter(id -> admitted.test(items.get(id))).count();
    return new RunReport(runId, inBacklog, done, blocked.size(),
        inBacklog - done - blocked.size() - awaiting.size() - checks.size() - landing.size(),
        stillAt(doneThisRun, ItemStatus.DONE),
        stillAt(blockedThisRun, ItemStatus.BLOCKED),
        jobsStarted, halt, duration, interrupted, sync, unfinished, figures, this.budget.spend(), budget, runnerId,
        halt == limitHalt ? haltDetail : halt == HaltReason.BUDGET ? this.budget.haltDetail(jobs.activeCount()) : null,
        limited, unselected(), awaiting, checks, landing, blocked, blockedSelected, waitsOn(admitted));
  }

  /** How many of {@code ids} are at {@code status} now. */
  private int stillAt(java.util.Set<String> ids, ItemStatus status) {
    return (int) ids.stream().map(items::get).filter(i -> i != null && i.status() == status).count();
  }

  /** The listed items at {@code status}, in backlog order. */
  private List<String> ids(ItemStatus status) {
    return items.values().stream().filter(i -> i.inBacklog() && i.status() == status).map(ItemState::id).toList();
  }

  /**
   * What the remaining items the run may work on wait for: each unmet dependency once, with its
   * status ({@code WRK-3 (awaiting_review)}), or {@code (not selected)} when the run leaves it out.
   */
  private List<String> waitsOn(java.util.function.Predicate<ItemState> admitted) {
    java.util.Set<String> out = new java.util.LinkedHashSet<>();
    for (String id : remaining()) {
      for (String dep : items.get(id).definition().dependsOn()) {
        ItemState d = items.get(dep);
        if (d == null) {
          out.add(dep + " (unknown)");
        } else if (d.status() != ItemStatus.DONE) {
          out.add(dep + " (" + (admitted.test(d) || d.status().isTerminal() ? d.status().key() : "not selected") + ")");
        }
      }
    }
    return List.copyOf(out);
  }

  private int count(ItemStatus status) {
    return (int) items.values().stream().filter(i -> i.inBacklog() && i.status() == status).count();
  }

  /** The halts decided before any new work starts; null to go on. */
  HaltReason haltReason(int circuitBreaker) {
    if (limitHalt != null) {
      return limitHalt;
    }
    if (consecutiveExhaustions >= circuitBreaker) {
      return HaltReason.CIRCUIT_BREAKER;
    }
    if (filter.hasTargets() && filter.targetsFinished(items)) {
      return HaltReason.TARGETS_DONE;
    }
    if (budget.reached()) {
      return HaltReason.BUDGET;
    }
    if (jobsStarted >= phaseCap) {
      return HaltReason.PHASE_CAP;
    }
    return null;
  }

  /** How often a run that waits says what for, at least. */
  static final Duration WAIT_SAID_EVERY = Duration.ofMinutes(1);
  static final java.time.format.DateTimeFormatter WAIT_TIME = java.time.format.DateTimeFormatter
      .ofPattern("HH:mm:ss 'UTC'").withZone(java.time.ZoneOffset.UTC);

  /**
   * Tells the listener what the run waits for, when that changed or a minute went by since it last
   * said so: a run that starts nothing is never silent for long.
   */
  void waitingFor(java.time.Instant now, RunListener listener, String what) {
    if (!what.equals(waitingFor) || waitingSaidAt == null || !now.isBefore(waitingSaidAt.plus(WAIT_SAID_EVERY))) {
      waitingFor = what;
      waitingSaidAt = now;
      listener.waiting(what);
    }
  }
}
