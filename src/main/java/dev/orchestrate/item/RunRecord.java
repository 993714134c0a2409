package dev.orchestrate.item;

import java.time.Instant;
import java.util.Objects;

/**
 * One {@code run} session as recorded: {@code endedAt} and {@code haltReason} stay null while it
 * runs, and also when its process died without recording the end.
 */
public record RunRecord(long id, Instant startedAt, Instant endedAt, long pid, String haltReason) {
  public RunRecord {
    Objects.requireNonNull(startedAt, "startedAt");
  }

  public boolean ended() {
    return endedAt != null;
  }
}
