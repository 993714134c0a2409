package dev.orchestrate.item;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the scheduler persists, as domain operations. Each method is one transaction: when
 * it returns, the change is committed, so a crash after it loses nothing (docs/architecture.md).
 * Implemented in {@code state/sql} ({@code SqlStateRepository}); the scheduler never sees SQL.
 */
public interface StateRepository {

  /**
   * Brings the stored items in line with the backlog file: new ids are added (with their initial
   * status hint), known ids keep their progress but take the file's definition, ids missing from
   * the file are marked as not in the backlog (never deleted). Follow-up items (those with an
   * origin) are never in the file, so they stay in the backlog; if the file lists one, its
   * definition wins and the origin stays.
   */
  default SyncResult sync(List<BacklogItem> backlog, Instant now) {
    return syncAndRead(backlog, now).changes();
  }

  /**
   * {@link #sync}, and every stored item as it is after the sync, in backlog order: what {@link
   * #items} would read right after it, without reading it again (on a first run over a million
   * items that read took longer than the sync). An item the backlog lists holds the backlog's own
   * {@link BacklogItem}, so a run keeps one copy of each. A known item whose definition and listing
   * are unchanged is not written.
   */
  Synced syncAndRead(List<BacklogItem> backlog, Instant now);

  /** What a sync changed, and the items after it in backlog order. */
  record Synced(SyncResult changes, List<ItemState> items) {}

  /** All items, in backlog order (the order in which they were first seen). */
  List<ItemState> items();

  /** The item with this id, if the state knows it. */
  Optional<ItemState> item(String id);

  /** Persists an item's new state and the events that describe the change. */
  void apply(Step step, Instant now);

  /**
   * The items awaiting review, each with when it entered awaiting_review (the write that moved it
   * there), in backlog order: what a run needs for a pipeline's {@code review_timeout}.
   */
  Map<String, Instant> reviewWaits();

  /**
   * Queues reviewers' decisions for the run that holds the state, in one transaction (all or none),
   * in this order (docs/review.md). Returns their ids in the queue (the ones given are ignored).
   */
  default List<Long> queueDecisions(List<ReviewDecision> decisions, Instant now) {
    throw new UnsupportedOperationException("this state keeps no review decisions");
  }

  /**
   * The queued review decisions, oldest first, at most {@code limit}: an indexed read of a table
   * that is empty but for the decisions not yet applied (its cost does not grow with the backlog).
   */
  default List<ReviewDecision> reviewDecisions(int limit) {
    return List.of();
  }

  /**
   * Deletes the queued decision and persists {@code step}, the change it causes, in one
   * transaction: a crash leaves both or neither. False (nothing written) when the decision is no
   * longer queued (another runner applied it). Throws {@link LeaseLostException} as
   * {@link #apply} does; then nothing is written either and the decision stays queued.
   */
  default boolean applyDecision(long decisionId, Step step, Instant now) {
    throw new UnsupportedOperationException("this state keeps no review decisions");
  }

  /**
   * Deletes a queued decision that cannot be applied (its item no longer awaits review) and, in the
   * same transaction, records on its item an event of kind {@link #DECISION_DROPPED} saying why.
   */
  default void dropDecision(ReviewDecision decision, String why, Instant now) {
  }

  /** The kind of the event a dropped review decision leaves on its item. */
  String DECISION_DROPPED = "review.decision_dropped";

  /** Whether a review decision on the item was dropped at or after {@code since} (what a waiting command tells). */
  default boolean decisionDropped(String itemId, Instant since) {
    return false;
  }

  /**
   * Persists {@code step} only if the item's stored status is still {@code expected}, so a change
   * computed from a read is never written over a concurrent one. Returns false (and writes
   * nothing) when the status has changed since.
   */
  boolean applyIf(Step step, ItemStatus expected, Instant now);

  /** Records a job as running and returns its id. */
  long jobStarted(JobStart start);

  /** Records how a job ended and, in the same transaction, the item's resulting state (if any). */
  default void jobEnded(long jobId, JobEnd end, Step step, Instant now) {
    jobEnded(jobId, end, step, List.of(), now);
  }

  /**
   * Records how a job ended and, in the same transaction, the item's resulting state (if any) and
   * the follow-up items the agent reported, appended to backlog order. A follow-up whose id the
   * state already knows is skipped. Returns the items it added, in order.
   */
  List<ItemState> jobEnded(long jobId, JobEnd end, Step step, List<FollowUpItem> followUps, Instant now);

  /** Marks jobs still recorded as running (left by a crashed run) as interrupted; returns how many. */
  int interruptRunningJobs(Instant now);

  /** Job history, newest first, at most {@code limit} rows. */
  List<JobRecord> recentJobs(int limit);

  /** The most recent run session, if any. */
  Optional<RunRecord> lastRun();

  /** Records the start of a run session and returns its id. */
  long runStarted(Instant now, long pid);

  /** Records the end of a run session. */
  default void runEnded(long runId, Instant now, String haltReason) {
    runEnded(runId, now, haltReason, RunFigures.NONE);
  }

  /** Records the end of a run session with the figures of its in-memory structures. */
  void runEnded(long runId, Instant now, String haltReason, RunFigures figures);

  /**
   * Records what a run spent (the usage its agents reported) and the budget it ran under (null:
   * no limit), for {@code stats}. Written at its end, before {@link #runEnded}.
   */
  default void runSpend(long runId, Usage spend, Double maxCostUsd, Long maxTokens) {
  }

  /**
   * Records what the run's notifications came to (docs/notifications.md), for {@code stats}:
   * documents delivered, failed after their retries, and lost (dropped from a full queue or left
   * when the run ended); {@code lastError} is the last failure's text, masked (null: none).
   */
  default void runNotified(long runId, long delivered, long failed, long lost, String lastError) {
  }

  /**
   * Applies every step in one transaction if every item is still {@code expected}; nothing is
   * applied (false) when one is not, so that a command's all-or-nothing promise holds beside a run.
   */
  boolean applyAllIf(List<Step> steps, ItemStatus expected, Instant now);

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

  /**
   * The outcome classes of these jobs (jobs recorded without one, or before schema 10, are left
   * out): read apart from the job rows, so that a state older than the column still reads.
   */
  java.util.Map<Long, OutcomeClass> outcomes(java.util.Collection<Long> jobIds);

  /** The agent profile of each of these jobs (jobs recorded without one, or before schema 10, are left out). */
  java.util.Map<Long, String> agents(java.util.Collection<Long> jobIds);

  /**
   * The agent's session of each of these jobs (its id and how the attempt began), in one read; jobs
   * recorded without one (still running, a fresh start the agent printed no id for, before schema
   * 11) are left out.
   */
  java.util.Map<Long, AgentSession> sessions(java.util.Collection<Long> jobIds);

  /**
   * The project commands (set-up, gates) each of these jobs ran, in the order they ran, in one read;
   * jobs that ran none (or recorded before schema 11) are left out.
   */
  java.util.Map<Long, List<CheckRecord>> checks(java.util.Collection<Long> jobIds);
}
