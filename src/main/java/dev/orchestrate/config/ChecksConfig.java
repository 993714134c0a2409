package dev.orchestrate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code execution.checks} (docs/workspaces.md, {@code merge: push} only): the user's command that
 * says whether the pushed branch's CI passed, polled every {@code interval} after each push until
 * {@code timeout}. Exit 0 is green, {@value #PENDING} (EX_TEMPFAIL) pending, anything else red (its
 * output is the report sent back to the agent).
 *
 * @param command   the command (placeholders {@code {branch}}, {@code {base}}, {@code {item}},
 *                  {@code {pull_request}} not yet substituted); its timeout is one poll's bound
 * @param interval  between two polls
 * @param timeout   how long after a push the checks may stay pending before the item is blocked
 * @param maxRounds red rounds after which the item is blocked instead of sent back
 * @param phase     the phase a red report sends the item back to; null: its pipeline's last phase
 * @param feedback  {@code execution.review_feedback} and {@code land}, polled with the checks; null: none
 */
public record ChecksConfig(ProjectCommand command, Duration interval, Duration timeout, int maxRounds, String phase,
    ReviewFeedbackConfig feedback) {
  /** The exit code that says the checks are still running. */
  public static final int PENDING = 75;
  public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofHours(2);
  public static final int DEFAULT_MAX_ROUNDS = 3;
  /** The longest one poll of the command may run (it is also bounded by the interval). */
  public static final Duration MAX_POLL = Duration.ofMinutes(10);

  public ChecksConfig {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(timeout, "timeout");
    if (maxRounds < 1) {
      throw new IllegalArgumentException("checks_max_rounds must be at least 1");
    }
  }

  public ChecksConfig(ProjectCommand command, Duration interval, Duration timeout, int maxRounds, String phase) {
    this(command, interval, timeout, maxRounds, phase, null);
  }

  /** These checks with {@code execution.review_feedback} (null: none). */
  public ChecksConfig withFeedback(ReviewFeedbackConfig next) {
    return new ChecksConfig(command, interval, timeout, maxRounds, phase, next);
  }

  /** The phase changes requested send an item back to: review_feedback_phase, else checks_phase; null: the last. */
  public String feedbackPhase() {
    return feedback != null && feedback.phase() != null ? feedback.phase() : phase;
  }
}
