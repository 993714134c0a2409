package dev.orchestrate.item;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The review gate's side of the state: the items awaiting review and the decisions queued for the run
 * that holds the state (docs/review.md). Part of the run's port, {@link StateRepository}: each method is one transaction.
 */
public interface ReviewQueue {

  /**
   * The items awaiting review, each with when it entered awaiting_review (the write that moved it
   * there), in backlog order: what a run needs for a pipeline's {@code review_timeout}.
   */
  Map<String, Instant> reviewWaits();

  /**
   * Queues reviewers' decisions for the run that holds the state, in one transaction (all or none),
   * in this order (docs/review.md), each only while its item awaits review and has no decision
   * queued: the claim of the items, so that of several commands deciding on one item at once
   * exactly one queues (issue 43). Returns their ids in the queue (the ones given are ignored), or
   * the items another decision took first, and then nothing is queued.
   */
  default Claim queueDecisions(List<ReviewDecision> decisions, Instant now) {
    throw new UnsupportedOperationException("this state keeps no review decisions");
  }

  /**
   * A person's decision written at once, with no run to queue it for ({@code approve}, {@code reject},
   * {@code unblock}): applies every step, in one transaction, only while each item's status is
   * {@code expected} and no decision is queued for it; all of them, or none when another decision
   * took one first. Returns the items taken (empty: every step was written).
   */
  default List<Taken> decideAllIf(List<Step> steps, ItemStatus expected, Instant now) {
    throw new UnsupportedOperationException("this state keeps no review decisions");
  }

  /**
   * Of the ids, the items another decision took: no longer {@code expected}, or with a decision
   * queued for them; unknown ids are left out (a command refuses them on its own).
   */
  default List<Taken> taken(List<String> ids, ItemStatus expected) {
    return List.of();
  }

  /**
   * What {@link #queueDecisions} came to: the queue's ids, or the items taken (nothing queued).
   */
  record Claim(List<Long> ids, List<Taken> taken) {
    public Claim {
      ids = List.copyOf(ids);
      taken = List.copyOf(taken);
    }

    public boolean won() {
      return taken.isEmpty();
    }
  }

  /**
   * An item another decision took first, as it is now: what a losing command tells.
   *
   * @param status     its status now
   * @param phase      its phase now, or null
   * @param queued     the decision queued for it ({@code approve}, {@code reject}), or null
   * @param lastChange the reason of its latest status change ("approved", "rejected with notes",
   *                   "unblocked with notes", ...), or null when none is recorded
   */
  record Taken(String itemId, ItemStatus status, String phase, String queued, String lastChange) {
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
   * {@link ItemRepository#apply} does; then nothing is written either and the decision stays queued.
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
}
