package dev.orchestrate.stats;

import java.time.Instant;

/**
 * One bounded structure as the state database counts it (table {@code structures}): lifetime
 * counters kept by triggers, the retention policy last applied, and the rows its retention never
 * deletes ({@code keptRows}: load-bearing events, load-bearing or superseded memories).
 *
 * @param maxRows   the row limit last applied by retention (for memory: {@code keep_recent}); null: none
 * @param maxAgeMs  the age limit last applied; null: none
 * @param bytes     bytes on disk (job logs only), else 0
 */
public record Structure(String name, long rowsWritten, long rowsPruned, Instant lastPrunedAt, long keptRows,
    long truncatedWrites, long bytes, Long maxRows, Long maxAgeMs) {

  public long rowsNow() {
    return rowsWritten - rowsPruned;
  }

  /** The rows retention may delete, the ones its row limit is about. */
  public long prunableRows() {
    return Math.max(0, rowsNow() - keptRows);
  }
}
