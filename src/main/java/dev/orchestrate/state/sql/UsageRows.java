package dev.orchestrate.state.sql;

import dev.orchestrate.outcome.Usage;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

  /** The usage recorded for each of these jobs (unknown figures null); jobs not found are left out. */
  static Map<Long, Usage> ofJobs(Jdbc jdbc, List<Long> jobIds) {
    Map<Long, Usage> out = new LinkedHashMap<>();
    for (Long id : jobIds) {
      jdbc.queryOne("SELECT " + UsageRows.COLUMNS + " FROM jobs WHERE id = ?", UsageRows::readJob, id)
          .ifPresent(u -> out.put(id, u));
    }
    return out;
  }

  /** The usage of the last {@code jobs} ended jobs that reported any, newest first. */
  static List<Usage> recent(Jdbc jdbc, int jobs) {
    List<Usage> out = new ArrayList<>();
    jdbc.query("SELECT " + UsageRows.COLUMNS + " FROM jobs WHERE ended_at IS NOT NULL AND (input_tokens IS NOT NULL"
        + " OR output_tokens IS NOT NULL OR cache_read_tokens IS NOT NULL OR cache_write_tokens IS NOT NULL"
        + " OR cost_usd IS NOT NULL) ORDER BY id DESC LIMIT ?", rs -> out.add(UsageRows.readJob(rs)), jobs);
    return out;
  }

  /** The usage of the jobs that ended since {@code since}, summed. */
  static Usage since(Jdbc jdbc, Instant since) {
    // SUM of only NULLs is NULL: a figure no job reported stays unknown.
    return jdbc.queryOne("SELECT SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,"
        + " SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,"
        + " SUM(cost_usd) AS cost_usd FROM jobs WHERE ended_at >= ?", UsageRows::read, since.toEpochMilli())
        .orElse(Usage.UNKNOWN);
  }

  /** The usage of the ended jobs of an agent session, summed. */
  static Usage ofSession(Jdbc jdbc, String sessionId) {
    return jdbc.queryOne("SELECT SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,"
        + " SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,"
        + " SUM(cost_usd) AS cost_usd FROM jobs WHERE session_id = ? AND ended_at IS NOT NULL", UsageRows::read,
        sessionId).orElse(Usage.UNKNOWN);
  }

  /** Each item's usage over all its jobs, pruned ones included (kept by a trigger since schema 8). */
  static Map<String, Usage> ofItems(Jdbc jdbc) {
    Map<String, Usage> out = new LinkedHashMap<>();
    jdbc.query("SELECT id, " + UsageRows.COLUMNS + " FROM items",
        rs -> out.put(rs.getString("id"), UsageRows.read(rs)));
    return out;
  }
}
