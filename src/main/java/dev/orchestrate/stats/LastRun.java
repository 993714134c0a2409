package dev.orchestrate.stats;

import java.time.Instant;

/**
 * The in-memory figures of the last run (docs/architecture.md: summary map, job table), written when it ended;
 * null figures for a run that is still going or crashed. {@code notifications}: what its {@code notify:}
 * sinks came to, null when it had none (or has not ended).
 */
public record LastRun(long id, Instant startedAt, Instant endedAt, String haltReason, Integer summaryMapPeak,
    Integer summaryMapFinal, Integer jobTablePeakActive, Integer jobTablePeakInactive, Integer jobTableFinal,
    Notifications notifications) {

  public LastRun(long id, Instant startedAt, Instant endedAt, String haltReason, Integer summaryMapPeak,
      Integer summaryMapFinal, Integer jobTablePeakActive, Integer jobTablePeakInactive, Integer jobTableFinal) {
    this(id, startedAt, endedAt, haltReason, summaryMapPeak, summaryMapFinal, jobTablePeakActive,
        jobTablePeakInactive, jobTableFinal, null);
  }

  /**
   * A run's notification figures: documents delivered, failed after their retries, lost (dropped
   * from a full queue or still queued at the run's end), and the last failure's text (null: none).
   */
  public record Notifications(long delivered, long failed, long lost, String lastError) {
  }
}
