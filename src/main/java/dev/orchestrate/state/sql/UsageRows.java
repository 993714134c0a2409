package dev.orchestrate.state.sql;

import dev.orchestrate.jobs.Usage;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads and writes the usage columns (schema 8) that jobs, items, runs and usage_totals share. */
final class UsageRows {
  static final String COLUMNS = "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd";

  private UsageRows() {
  }

  /** The usage in the current row's {@link #COLUMNS}; NULL stays null. */
  static Usage read(ResultSet rs) throws SQLException {
    return new Usage(Columns.longOrNull(rs, "input_tokens"), Columns.longOrNull(rs, "output_tokens"),
        Columns.longOrNull(rs, "cache_read_tokens"), Columns.longOrNull(rs, "cache_write_tokens"),
        Columns.doubleOrNull(rs, "cost_usd"));
  }

  /** Parameters for {@code SET input_tokens = ?, ... cost_usd = ?}, in {@link #COLUMNS} order. */
  static Object[] values(Usage u) {
    return new Object[] {u.inputTokens(), u.outputTokens(), u.cacheReadTokens(), u.cacheWriteTokens(), u.costUsd()};
  }
}
