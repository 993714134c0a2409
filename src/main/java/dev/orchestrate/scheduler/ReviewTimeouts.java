package dev.orchestrate.scheduler;

import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * {@code on_review_timeout} (docs/review.md), for {@link Scheduler}: the items whose
 * {@code review_timeout} has passed are approved (and land), rejected to their last phase, or
 * blocked.
 */
final class ReviewTimeouts {
  private final Config config;
  private final Clock clock;
  private final Claims claims;

  ReviewTimeouts(Config config, Clock clock, Claims claims) {
    this.config = config;
    this.clock = clock;
    this.claims = claims;
  }

  /** Whether some pipeline has a review_timeout (else a run never looks at review waits). */
  static boolean any(Config config) {
    return config.pipelines().values().stream().anyMatch(p -> p.reviewTimeout() != null);
  }

  /**
   * Applies on_review_timeout to the session's items whose review_timeout has passed, each step
   * made {@code landing} first and written by {@code commit}, and each item that changed handed to
   * {@code finished}. Returns whether one changed.
   */
  boolean apply(Session s, UnaryOperator<Step> landing, Predicate<Step> commit, Consumer<ItemState> finished) {
    if (!s.enteredReview.isEmpty()) {
      if (any(config)) {
        s.enteredReview.forEach(id -> s.reviewWaits.putIfAbsent(id, clock.instant()));
      }
      s.enteredReview.clear();
    }
    boolean changed = false;
    for (Map.Entry<String, Instant> wait : List.copyOf(s.reviewWaits.entrySet())) {
      ItemState item = s.items.get(wait.getKey());
      if (item == null || item.status() != ItemStatus.AWAITING_REVIEW) {
        s.reviewWaits.remove(wait.getKey());
        continue;
      }
      Pipeline pipeline = config.pipelines().get(item.definition().pipeline());
      Step step = pipeline == null ? null
          : landing.apply(Transitions.reviewTimedOut(item, pipeline, wait.getValue(), clock.instant()));
      if (step == null || !claims.claim(s.items, new Action.Realign(item.id()))) {
        continue;
      }
      if (commit.test(step)) {
        s.reviewWaits.remove(item.id());
        finished.accept(step.next());
        changed = true;
      }
    }
    return changed;
  }
}
