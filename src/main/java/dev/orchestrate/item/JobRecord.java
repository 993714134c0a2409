package dev.orchestrate.item;

import dev.orchestrate.outcome.JobState;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * One row of job history: an attempt of a phase of an item, as {@code orchestrate jobs} shows it.
 *
 * @param result   what the agent reported, or null (still running, cancelled, interrupted)
 * @param endedAt  null while the job runs
 * @param exitCode null if the process never exited by itself
 * @param logPath  the job's output.log, or null
 * @param reason   the failure context or cancellation note, or null
 */
public record JobRecord(long id, long runId, String itemId, String phase, int attempt, JobState state,
    String result, Instant startedAt, Instant endedAt, Integer exitCode, Path logPath, String reason) {
  public JobRecord {
    Objects.requireNonNull(itemId, "itemId");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(startedAt, "startedAt");
  }
}
