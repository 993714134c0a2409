package dev.orchestrate.item;

import java.nio.file.Path;
import java.time.Instant;

/** A job about to be spawned, as recorded in job history. */
public record JobStart(long runId, String itemId, String phase, int attempt, Instant startedAt, Path logPath,
    String agent) {

  /** A job of the default agent profile (or one whose profile is not recorded). */
  public JobStart(long runId, String itemId, String phase, int attempt, Instant startedAt, Path logPath) {
    this(runId, itemId, phase, attempt, startedAt, logPath, null);
  }
}
