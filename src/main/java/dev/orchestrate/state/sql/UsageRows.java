package dev.orchestrate.state.sql;

import dev.orchestrate.jobs.Usage;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads and writes the usage columns (schema 8) that jobs, items, runs and usage_totals share. */
final class UsageRows {
  static final String COLUMNS = "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd";

  private UsageRows() {
  }

  /**
   * The usage in the current row's {@link #COLUMNS}; NULL stays null, and so does a figure no usage
   * can have (negative or not finite: a version before issue 27 could store a wrapped or infinite sum).
   */
  static Usage read(ResultSet rs) throws SQLException {
    return Usage.stored(Columns.longOrNull(rs, "input_tokens"), Columns.longOrNull(rs, "output_tokens"),
        Columns.longOrNull(rs, "cache_read_tokens"), Columns.longOrNull(rs, "cache_write_tokens"),
        Columns.doubleOrNull(rs, "cost_usd"));
  }

  /** One job's usage in the current row: as {@link #read}, and a figure above a job's ceiling is unknown too. */
  static Usage readJob(ResultSet rs) throws SQLException {
    Usage bounded = read(rs).bounded();
    return new Usage(bounded.inputTokens(), bounded.outputTokens(), bounded.cacheReadTokens(),
        bounded.cacheWriteTokens(), bounded.costUsd());
  }

  /** Parameters for {@code SET input_tokens = ?, ... cost_usd = ?}, in {@link #COLUMNS} order. */
  static Object[] values(Usage u) {
    return new Object[] {u.inputTokens(), u.outputTokens(), u.cacheReadTokens(), u.cacheWriteTokens(), u.costUsd()};
  }
}
