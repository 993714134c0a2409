package dev.orchestrate.notify;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * What a notification is about, with the name it has in the config ({@code events:}) and in the
 * JSON document ({@code "kind"}). The scope says what one announcement is per: repeats within the
 * same scope are debounced ({@link Notifier}).
 */
public enum EventKind {
  /** An item was blocked (retries exhausted, a failed set-up step, ...); once per block. */
  ITEM_BLOCKED("item_blocked", Scope.ITEM),
  /** An item reached done (verified, integrated). */
  ITEM_DONE("item_done", Scope.ITEM),
  /** An item waits for a human's approve or reject. */
  AWAITING_REVIEW("awaiting_review", Scope.ITEM),
  /** A red check (CI, a verify gate) on an item's branch. */
  CHECKS_RED("checks_red", Scope.ITEM),
  /** A review of an item's pull request asks for changes (execution.review_feedback): back to its phase. */
  CHANGES_REQUESTED("changes_requested", Scope.ITEM),
  /** The run halted; details carry the reason. */
  RUN_HALTED("run_halted", Scope.RUN),
  /** The run ended normally (nothing left to do, the cap reached). */
  RUN_FINISHED("run_finished", Scope.RUN),
  /** 80 % of a budget spent. */
  BUDGET_80("budget_80", Scope.RUN),
  /** 95 % of a budget spent. */
  BUDGET_95("budget_95", Scope.RUN),
  /** An agent profile paused until its provider's usage limit resets; details carry the profile. */
  USAGE_LIMIT_PAUSED("usage_limit_paused", Scope.PROFILE);

  /** What one announcement of a kind is per. */
  public enum Scope {
    /** Per item, until {@link Notifier#cleared} is called for it. */
    ITEM,
    /** Per run (and, for budgets, per budget named in the details). */
    RUN,
    /** Per agent profile ({@code details.profile}), until {@link Notifier#resumed} is called for it. */
    PROFILE
  }

  /** The config and wire names, in declaration order. */
  public static final List<String> NAMES = Arrays.stream(values()).map(EventKind::wireName).toList();

  private final String wireName;
  private final Scope scope;

  EventKind(String wireName, Scope scope) {
    this.wireName = wireName;
    this.scope = scope;
  }

  public String wireName() {
    return wireName;
  }

  public Scope scope() {
    return scope;
  }

  public static Optional<EventKind> of(String wireName) {
    for (EventKind kind : values()) {
      if (kind.wireName.equals(wireName)) {
        return Optional.of(kind);
      }
    }
    return Optional.empty();
  }
}
