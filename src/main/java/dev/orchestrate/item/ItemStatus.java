package dev.orchestrate.item;

import java.util.Locale;
import java.util.Optional;

/**
 * Item statuses. {@code new → scoping → ready → in_progress → done}, any non-terminal → blocked;
 * with {@code review: required}, {@code in_progress → awaiting_review → done} (approve) or back to
 * {@code in_progress} (reject); with {@code execution.checks}, a pushed item {@code done →
 * awaiting_checks → done} (green) or back to {@code in_progress} (red).
 */
public enum ItemStatus {
  NEW, SCOPING, READY, IN_PROGRESS, AWAITING_REVIEW, AWAITING_CHECKS, DONE, BLOCKED;

  /** The spelling used in output, the database and the backlog ({@code in_progress}). */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Statuses no agent works on: done, blocked, awaiting_review (which waits for a human, as a
   * blocked item does; a run does not wait for it) and awaiting_checks (which holds no agent slot;
   * the run polls its checks and waits for them).
   */
  public boolean isTerminal() {
    return this == DONE || this == BLOCKED || this == AWAITING_REVIEW || this == AWAITING_CHECKS;
  }

  /** Statuses in which a phase of the item is being worked on. */
  public boolean isRunningPhases() {
    return this == SCOPING || this == IN_PROGRESS;
  }

  public static Optional<ItemStatus> parse(String key) {
    for (ItemStatus s : values()) {
      if (s.key().equals(key)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  public static ItemStatus fromKey(String key) {
    return parse(key).orElseThrow(() -> new IllegalArgumentException("unknown item status '" + key + "'"));
  }
}
