package dev.orchestrate.scheduler;

import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.InvalidTransitionException;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ReviewDecision;
import dev.orchestrate.item.ReviewQueue;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reviewers' decisions that {@code approve} and {@code reject} queued while this run held the
 * state (docs/review.md): on a tick, at most once a second, each is applied through the run's own
 * commit path, the item claimed first (on a shared state the runner whose claim succeeds applies
 * it, and its delete is conditional, so never two), the decision deleted in the same transaction
 * as the change it causes. An approved item is then integrated as any item at done. A decision for
 * an item that no longer awaits review is dropped, with a warning.
 *
 * <p>Used by the scheduler thread only.
 */
final class QueuedReviews {
  /** The run's log lines keep the category they always had (log configurations and tests name it). */
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  /** The queue is read at most this often: a tick can come many times a second, a reviewer waits seconds. */
  static final Duration READ_EVERY = Duration.ofSeconds(1);
  /** The decisions taken in one read; the rest wait for the next. */
  static final int BATCH = 100;

  private final ReviewQueue store;
  private final Map<String, Pipeline> pipelines;
  private final Clock clock;
  private Instant readAt;

  QueuedReviews(ReviewQueue store, Map<String, Pipeline> pipelines, Clock clock) {
    this.store = store;
    this.pipelines = pipelines;
    this.clock = clock;
  }

  /**
   * Applies the queued decisions when a read is due. {@code commit} writes a step with its
   * decision's delete (false: not written); {@code finished} takes an approved item on to its
   * integration. Returns whether an item changed.
   */
  boolean apply(Map<String, ItemState> items, Claims claims, BiPredicate<Step, Long> commit,
      Predicate<ItemState> finished) {
    if (readAt != null && clock.instant().isBefore(readAt.plus(READ_EVERY))) {
      return false;
    }
    readAt = clock.instant();
    boolean changed = false;
    for (ReviewDecision d : store.reviewDecisions(BATCH)) {
      ItemState item = items.get(d.itemId());
      if (item == null) {
        drop(d, "the item is not in the state");
        continue;
      }
      if (!claims.claim(items, new Action.Realign(item.id()))) {
        continue; // another runner holds it, or it changed: decided again at the next read
      }
      item = items.get(d.itemId());
      if (item.status() != ItemStatus.AWAITING_REVIEW) {
        drop(d, "it is " + item.status().key() + ", no longer awaiting review");
        continue;
      }
      Step step;
      try {
        step = d.approve() ? Transitions.approve(item) : reject(item, d);
      } catch (InvalidTransitionException e) {
        drop(d, e.getMessage());
        continue;
      }
      if (commit.test(step, d.id())) {
        log.info("{}: {} by a reviewer (queued at {})", item.id(), d.approve() ? "approved" : "rejected",
            d.requestedAt());
        changed = true;
        if (d.approve()) {
          finished.test(step.next());
        }
      }
    }
    return changed;
  }

  private Step reject(ItemState item, ReviewDecision d) {
    Pipeline pipeline = pipelines.get(item.definition().pipeline());
    if (pipeline == null) {
      throw new InvalidTransitionException("item " + item.id() + "'s pipeline '" + item.definition().pipeline()
          + "' is not in the config");
    }
    return Transitions.reject(item, pipeline, d.notes(), d.phase());
  }

  private void drop(ReviewDecision d, String why) {
    log.warn("{}: the reviewer's {} (queued at {}) is dropped: {}", d.itemId(), d.kind(), d.requestedAt(), why);
    store.dropDecision(d, why, clock.instant());
  }
}
