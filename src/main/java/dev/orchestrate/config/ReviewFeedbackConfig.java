package dev.orchestrate.config;

import java.time.Duration;
import java.util.Objects;

/**
 * {@code execution.review_feedback} with its keys (docs/workspaces.md, "Review feedback and
 * landing"): the user's command that prints the pull request's reviews as JSON ({@code gh pr view
 * {pull_request} --json state,reviewDecision,reviews,comments}), polled with {@code execution.checks}.
 * A verdict of changes requested with feedback not sent before sends the item back to
 * {@code phase} with it; approved and green ends the wait, and with {@code land: auto} runs
 * {@code landCommand}, which merges the pull request.
 *
 * @param command     the command (placeholders {@code {branch}}, {@code {base}}, {@code {item}},
 *                    {@code {pull_request}} not yet substituted); its timeout is one poll's bound
 * @param maxRounds   rounds of changes requested after which the item is blocked instead of sent back
 * @param phase       the phase changes requested send the item back to; null: {@code checks_phase}, else
 *                    its pipeline's last phase
 * @param timeout     how long after a push the pull request may stay unapproved before the item is blocked
 * @param landCommand {@code execution.land_command} under {@code land: auto}; null: {@code land: none}
 *                    (an approved, green item is done; a person merges its pull request)
 */
public record ReviewFeedbackConfig(ProjectCommand command, int maxRounds, String phase, Duration timeout,
    ProjectCommand landCommand) {
  public static final int DEFAULT_MAX_ROUNDS = 3;
  public static final Duration DEFAULT_TIMEOUT = Duration.ofDays(3);
  /** The longest review_feedback_timeout: a week's wait for a reviewer, four times over. */
  public static final Duration MAX_TIMEOUT = Duration.ofDays(30);
  /** How long land_command may run without land_command_timeout. */
  public static final Duration DEFAULT_LAND_TIMEOUT = Duration.ofMinutes(5);
  /** The failure of land_command in a row that blocks the item. */
  public static final int LAND_MAX_FAILURES = 3;

  public ReviewFeedbackConfig {
    Objects.requireNonNull(command, "command");
    Objects.requireNonNull(timeout, "timeout");
    if (maxRounds < 1) {
      throw new IllegalArgumentException("review_feedback_max_rounds must be at least 1");
    }
  }

  /** Whether {@code land: auto}: an approved, green pull request is merged by {@link #landCommand}. */
  public boolean lands() {
    return landCommand != null;
  }
}
