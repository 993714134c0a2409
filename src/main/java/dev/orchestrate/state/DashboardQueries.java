package dev.orchestrate.state;

import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.memory.MemoryCompaction;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.stats.Sample;
import dev.orchestrate.stats.StatsInput;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The read-only views of {@code orchestrate serve}: paged and filtered lists, so that no page reads
 * more than it shows. Figures that later schemas add (usage and cost, worktrees) are empty on a
 * state that predates them.
 */
public interface DashboardQueries {
  /** The oldest SQLite schema the dashboard reads (stats samples and run bounds came in 6). */
  int MIN_SCHEMA = 6;

  /** Which items to list: each criterion null when not filtered on. */
  record DashboardFilter(String status, String priority, String tag, String text) {
  }

  /**
   * How many matches an item list filtered on what no index holds (priority, tag, text) counts
   * before it stops: past it the page says "more than" this many rather than scan every item for
   * the exact number.
   */
  int ITEM_COUNT_CAP = 1000;

  /**
   * One page of a list and the number of rows the whole list has; when {@code moreThan}, that
   * number is a lower bound: the list has more rows than {@code total} (a count that stopped early).
   */
  record Page<T>(List<T> rows, long total, boolean moreThan) {
    public Page {
      rows = List.copyOf(rows);
    }

    /** A page whose total is exact. */
    public Page(List<T> rows, long total) {
      this(rows, total, false);
    }
  }

  /** What a run's agents reported spending, and the budget it ran under when recorded. */
  record Spend(double costUsd, long jobsReported, Double budgetUsd) {
  }

  /** One run's bounds as recorded at its end; nulls while it runs or when it crashed. */
  record RunBounds(long id, Instant startedAt, Long endedAtMs, String haltReason, Long summaryMapPeak,
      Long summaryMapFinal, Long jobTablePeakActive, Long jobTablePeakInactive, Long jobTableFinal) {
  }

  /** Memory as {@code memory list} and {@code compact --dry-run} see it. */
  record MemoryView(List<MemoryItem> loadBearing, List<MemoryItem> recentEpisodic, MemoryCompaction preview,
      int keepRecent) {
  }

  /**
   * Whether the state's schema has what the dashboard reads: false for a SQLite state older than
   * {@link #MIN_SCHEMA}, which a read-only store does not migrate. (Schema versions are numbered per
   * backend, so the number alone does not say.)
   */
  boolean readable();

  /** Items per status key, every status the items table holds. */
  Map<String, Long> statusCounts();

  /**
   * One page of the items that match {@code filter}, in backlog order, counting at most
   * {@link #ITEM_COUNT_CAP} matches of a filter no index answers.
   */
  default Page<ItemState> items(DashboardFilter filter, int limit, int offset) {
    return items(filter, limit, offset, ITEM_COUNT_CAP);
  }

  /**
   * One page of the items that match {@code filter}, in backlog order. The total is exact without a
   * filter or with a status filter alone (an index counts them); otherwise the matches are counted
   * up to {@code countCap}, and past it the page's total is a lower bound ({@link Page#moreThan}),
   * exact again on the list's last page.
   */
  Page<ItemState> items(DashboardFilter filter, int limit, int offset, int countCap);

  Optional<ItemState> item(String id);

  /**
   * An item waiting for a person: awaiting review since {@code since} (when it entered
   * {@code awaiting_review}), or blocked since then (its last change); {@code decisionQueued} when an
   * approve or reject is queued for a run to apply.
   */
  record Waiting(ItemState item, Instant since, boolean decisionQueued) {
  }

  /**
   * The items of {@code status} (awaiting_review or blocked), those waiting longest first, at most
   * {@code limit}, and how many there are (an index counts them).
   */
  default Page<Waiting> waiting(ItemStatus status, int limit) {
    return new Page<>(List.of(), 0);
  }

  /** The item's most recent {@code limit} jobs, newest first. */
  List<JobRecord> itemJobs(String itemId, int limit);

  /** The attempts of each item's latest job. */
  Map<String, Integer> latestAttempts(List<String> itemIds);

  Optional<JobRecord> job(long id);

  /** The item's most recent {@code limit} answers, newest first. */
  List<ItemHistory.KeptAnswer> answers(String itemId, int limit);

  Optional<String> contextSummary(String itemId);

  /** The item's most recent {@code limit} landing attempts, newest first ({@link ItemHistory#landings}). */
  default List<ItemHistory.Landing> landings(String itemId, int limit) {
    return List.of();
  }

  /** Items that {@code itemId}'s agents proposed as follow-ups. */
  List<ItemState> followUps(String itemId, int limit);

  /** One page of jobs with ids below {@code beforeId}, newest first. */
  Page<JobRecord> jobs(long beforeId, int limit);

  List<JobRecord> runningJobs(int limit);

  Optional<RunRecord> lastRun();

  /** The item's git worktree, or empty when it has none or the state predates them. */
  Optional<WorkspaceRecord> workspace(String itemId);

  /** The run's spend so far (its jobs' reported cost), or empty when this state records no cost. */
  Optional<Spend> runSpend(long runId);

  /** The reported cost of each job that has one. */
  Map<Long, Double> jobCosts(List<Long> jobIds);

  /** The outcome classes of these jobs; jobs recorded without one are left out. */
  Map<Long, OutcomeClass> jobOutcomes(List<Long> jobIds);

  /** The agent's session of each of these jobs; jobs recorded without one (or before schema 11) are left out. */
  Map<Long, AgentSession> jobSessions(List<Long> jobIds);

  /** The set-up steps and gates each of these jobs ran, in order; jobs that ran none are left out. */
  Map<Long, List<CheckRecord>> jobChecks(List<Long> jobIds);

  /** The agent profiles a provider's limit paused (those over included: the caller asks the time). */
  List<AgentPauses.Pause> pauses();

  /** Items that reached done or blocked at or after {@code at}. */
  long itemsFinishedSince(Instant at);

  /** The run's jobs per result. */
  Map<String, Long> runJobResults(long runId);

  /** The figures {@code stats} reports, read without writing. */
  StatsInput stats(Instant now);

  /** The most recent {@code limit} stats samples, in time order. */
  List<Sample> samples(int limit);

  /** The summary-map and job-table bounds of the last {@code limit} runs, newest first. */
  List<RunBounds> runBounds(int limit);

  /** The load-bearing items, the most recent prunable ones and what a compact with {@code keepRecent} would delete. */
  MemoryView memory(int keepRecent, int limit);

  /** The {@code memory.keep_recent} the last run or compact recorded. */
  int recordedKeepRecent();
}
