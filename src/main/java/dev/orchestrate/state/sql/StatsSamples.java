package dev.orchestrate.state.sql;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The samples behind the trend of {@code orchestrate stats}: every structure's rows now (from the
 * lifetime counters, no table scan) and the database bytes, one row per run maintenance interval,
 * per {@code stats} and per {@code compact}. Retention bounds them like any other structure; a
 * {@code stats} call bounds them too ({@link #prune}), so a cron job that only ever calls
 * {@code stats} cannot grow them without end.
 */
final class StatsSamples {
  /** Rows one {@link #prune} deletes at most: no more than one maintenance pass would. */
  static final int PRUNE_BUDGET = RetentionConfig.DEFAULT_BUDGET;

  private StatsSamples() {
  }

  static void record(Jdbc jdbc, String source, Instant at) {
    Map<String, Object> rows = new LinkedHashMap<>();
    jdbc.query("SELECT name, rows_written - rows_pruned FROM structures ORDER BY name",
        rs -> rows.put(rs.getString(1), rs.getLong(2)));
    jdbc.execute("INSERT INTO stats_samples (at, source, db_bytes, rows) VALUES (?, ?, ?, ?)",
        at.toEpochMilli(), source, jdbc.dialect().bytes(jdbc), JsonText.object(rows));
  }

  /**
   * Deletes the oldest samples beyond the {@code stats_samples} policy last recorded in
   * {@code structures} (by a run's maintenance or {@code compact}; {@link RetentionConfig}'s default
   * when none was ever recorded), the way retention does: down to
   * {@value RetentionConfig#TARGET_PERCENT} % of {@code max_rows}, and every row older than
   * {@code max_age}. At most {@link #PRUNE_BUDGET} rows, walked from the oldest id and deleted as
   * one id range, so its cost does not depend on the table's size; the trigger on
   * {@code stats_samples} counts them in {@code rows_pruned}.
   *
   * @return the samples deleted
   */
  static int prune(Jdbc jdbc, Instant now) {
    Policy policy = recordedPolicy(jdbc);
    long rowsNow = jdbc.queryLong("SELECT rows_written - rows_pruned FROM structures WHERE name = 'stats_samples'");
    long excess = policy.targetRows().isEmpty() ? 0 : Math.max(0, rowsNow - policy.targetRows().getAsInt());
    long cutoff = policy.maxAge() == null ? Long.MIN_VALUE : now.toEpochMilli() - policy.maxAge().toMillis();
    List<long[]> oldest = oldest(jdbc, 1);
    if (oldest.isEmpty() || excess == 0 && oldest.get(0)[1] >= cutoff) {
      return 0;
    }
    // Usually one sample over the count (this call's own): read just that many, unless the oldest
    // is too old, when a run of too-old rows may follow.
    boolean tooOld = oldest.get(0)[1] < cutoff;
    long last = -1;
    for (long[] row : tooOld ? oldest(jdbc, PRUNE_BUDGET) : oldest(jdbc, (int) Math.min(excess, PRUNE_BUDGET))) {
      if (excess <= 0 && row[1] >= cutoff) {
        break;
      }
      last = row[0];
      excess--;
    }
    int deleted = jdbc.execute("DELETE FROM stats_samples WHERE id <= ?", last);
    if (deleted > 0) {
      jdbc.execute("UPDATE structures SET last_pruned_at = ? WHERE name = 'stats_samples'", now.toEpochMilli());
    }
    return deleted;
  }

  private static List<long[]> oldest(Jdbc jdbc, int limit) {
    return jdbc.query("SELECT id, at FROM stats_samples ORDER BY id LIMIT ?",
        rs -> new long[] {rs.getLong(1), rs.getLong(2)}, limit);
  }

  /**
   * The policy retention last applied. A run or {@code compact} records every structure's policy
   * at once (memory's keep_recent is never null), so no recorded limit anywhere means none was
   * ever recorded, while NULLs next to recorded limits mean the config switched them off.
   */
  private static Policy recordedPolicy(Jdbc jdbc) {
    long recorded = jdbc
        .queryLong("SELECT COUNT(*) FROM structures WHERE max_rows IS NOT NULL OR max_age_ms IS NOT NULL");
    if (recorded == 0) {
      return RetentionConfig.defaults().statsSamples();
    }
    return jdbc.queryOne("SELECT max_rows, max_age_ms FROM structures WHERE name = 'stats_samples'", rs -> {
      long rows = rs.getLong(1);
      Integer maxRows = rs.wasNull() ? null : (int) Math.min(Integer.MAX_VALUE, rows);
      long age = rs.getLong(2);
      Duration maxAge = rs.wasNull() || age <= 0 ? null : Duration.ofMillis(age);
      return Policy.of(maxRows, maxAge);
    }).orElse(Policy.NONE);
  }
}
