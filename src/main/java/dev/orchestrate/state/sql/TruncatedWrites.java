package dev.orchestrate.state.sql;

/**
 * Counts writes whose values were cut to their size cap (docs/how-it-works.md) in
 * {@code structures.truncated_writes}, for {@code stats}. Called inside the transaction of the
 * write it counts, so the count and the data never disagree after a crash.
 */
final class TruncatedWrites {
  private TruncatedWrites() {
  }

  /** Counts {@code writes} truncated writes (rows) of {@code structure}; nothing when 0. */
  static void count(Jdbc jdbc, String structure, long writes) {
    if (writes > 0) {
      jdbc.execute("UPDATE structures SET truncated_writes = truncated_writes + ? WHERE name = ?", writes,
          structure);
    }
  }

  /** Counts one truncated write of {@code structure} when {@code truncated}. */
  static void countIf(Jdbc jdbc, String structure, boolean truncated) {
    count(jdbc, structure, truncated ? 1 : 0);
  }
}
