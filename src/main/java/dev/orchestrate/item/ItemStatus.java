package dev.orchestrate.item;

import java.util.Locale;
import java.util.Optional;

/**
 * Item statuses. {@code new → scoping → ready → in_progress → done}, any non-terminal → blocked;
 * with {@code review: required}, {@code in_progress → awaiting_review → done} (approve) or back to
 * {@code in_progress} (reject); with {@code execution.checks}, a pushed item {@code done →
 * awaiting_checks → done} (green) or back to {@code in_progress} (red); with worktrees that land
 * through the merge queue, an item that finished its phases (or was approved) is {@code landing}
 * until its work is on the base branch ({@code done}), or back to {@code in_progress} when its
 * integration gates are red (docs/verification.md, "What lands").
 */
public enum ItemStatus {
  // landing last: a new status adds its key at the end of status --json's counts, the others keep their order
  NEW, SCOPING, READY, IN_PROGRESS, AWAITING_REVIEW, AWAITING_CHECKS, DONE, BLOCKED, LANDING;

  /** The spelling used in output, the database and the backlog ({@code in_progress}). */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Statuses no agent works on: done, blocked, awaiting_review (which waits for a human, as a
   * blocked item does; a run does not wait for it), landing (in the merge queue) and
   * awaiting_checks (which hold no agent slot; the run lands them, polls their checks and waits
   * for both).
   */
  public boolean isTerminal() {
    return this == DONE || this == BLOCKED || this == AWAITING_REVIEW || this == LANDING || this == AWAITING_CHECKS;
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
