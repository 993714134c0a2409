package dev.orchestrate.stats;

import java.time.Instant;

/**
 * The in-memory figures of the last run (docs/architecture.md: summary map, job table), written when it ended;
 * null figures for a run that is still going or crashed.
 */
public record LastRun(long id, Instant startedAt, Instant endedAt, String haltReason, Integer summaryMapPeak,
    Integer summaryMapFinal, Integer jobTablePeakActive, Integer jobTablePeakInactive, Integer jobTableFinal) {
}
