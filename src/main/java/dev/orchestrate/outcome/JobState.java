package dev.orchestrate.outcome;

import java.util.Locale;

/**
 * The state of a job as recorded in job history. {@code RUNNING} is a job whose process may still
 * be alive; {@code INTERRUPTED} is a job found still "running" by the next run after a crash.
 */
public enum JobState {
  RUNNING, COMPLETED, FAILED, CANCELLED, INTERRUPTED;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isActive() {
    return this == RUNNING;
  }

  /** The final state of a job whose agent produced {@code outcome}. */
  public static JobState of(AgentOutcome outcome) {
    if (outcome.ending() == AgentOutcome.Ending.CANCELLED) {
      return CANCELLED;
    }
    return switch (outcome.result()) {
      case PHASE_COMPLETE, SUBPHASE_COMPLETE -> COMPLETED;
      case FAILED, BLOCKED -> FAILED;
    };
  }
}
