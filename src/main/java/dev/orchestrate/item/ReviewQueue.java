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
