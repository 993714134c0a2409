package dev.orchestrate.scheduler;

import dev.orchestrate.jobs.AgentOutcome;
import dev.orchestrate.jobs.JobState;
import java.time.Instant;

/**
 * How a job ended, as recorded in job history.
 *
 * @param result   the agent result key, e.g. {@code phase_complete}, or null when cancelled
 * @param exitCode null when the process never exited by itself
 * @param reason   failure context or cancellation note, null on success
 */
public record JobEnd(JobState state, String result, Integer exitCode, String reason, Instant endedAt) {

  public static JobEnd of(AgentOutcome outcome, JobState state, Instant endedAt) {
    String reason = state == JobState.COMPLETED ? null : outcome.context();
    String result = state == JobState.CANCELLED ? null : outcome.result().key();
    Integer code = outcome.exitCode().isPresent() ? outcome.exitCode().getAsInt() : null;
    return new JobEnd(state, result, code, reason, endedAt);
  }
}
