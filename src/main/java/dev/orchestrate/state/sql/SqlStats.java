package dev.orchestrate.state.sql;

import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.stats.DatabaseFigures;
import dev.orchestrate.stats.LastRun;
import dev.orchestrate.stats.RunnerLease;
import dev.orchestrate.stats.Sample;
import dev.orchestrate.stats.SampleWindow;
import dev.orchestrate.stats.Spending;
import dev.orchestrate.stats.StatsInput;
import dev.orchestrate.stats.StatsReport;
import dev.orchestrate.stats.StatsSource;
import dev.orchestrate.stats.Structure;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reading side of {@code orchestrate stats}: the {@code structures} counters, the database's
 * storage figures ({@link Dialect#figures}), the last run's row and the samples of the trend window. Every query is a primary-key
 * look-up or a bounded range of row ids; nothing counts the rows of a large table, so the time
 * does not grow with the database.
 */
final class SqlStats implements StatsSource {
  /**
   * The trend reads at most this many of the newest samples, as a range of row ids below the
   * highest (a new sample takes an id above every existing one), so {@code at} needs no index:
   * a day of one run sample and one cron {@code stats} a minute, with room to spare, whatever
   * {@code retention.stats_samples} allows.
   */
  static final int TREND_MAX_SAMPLES = 5_000;
  /**
   * How long the sample write waits for a run's write lock before it is skipped: a reader of the
   * figures must not wait up to {@link BusyWait#PATIENCE_MS} for a sample it does not need.
   */
  static final int SAMPLE_BUSY_TIMEOUT_MS = 200;

  private final Jdbc jdbc;

  /** Over a store's connection, which the store closes. */
  SqlStats(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /** From the {@code runners} table, where the schema has one (PostgreSQL): a handful of rows. */
  @Override
  public java.util.List<RunnerLease> runners() {
    if (!jdbc.dialect().hasColumn(jdbc, "runners", "heartbeat_at")) {
      return java.util.List.of();
    }
    return jdbc.query("SELECT r.id, r.host, r.pid, r.started_at, r.heartbeat_at, " + jdbc.dialect().clockMillis()
        + " - r.heartbeat_at, (SELECT count(*) FROM items i WHERE i.lease_owner = r.id)"
        + " FROM runners r ORDER BY r.started_at, r.id",
        rs -> new RunnerLease(rs.getString(1), rs.getString(2), rs.getLong(3),
            Instant.ofEpochMilli(rs.getLong(4)), Instant.ofEpochMilli(rs.getLong(5)), rs.getLong(6), rs.getInt(7)));
  }

  @Override
  public StatsInput read(Instant now) {
    List<Structure> structures = jdbc.query("""
        SELECT name, rows_written, rows_pruned, last_pruned_at, kept_rows, truncated_writes, bytes, max_rows, max_age_ms
          FROM structures ORDER BY CASE name WHEN 'items' THEN 0 WHEN 'jobs' THEN 1 WHEN 'job_logs' THEN 2
            WHEN 'turns' THEN 3 WHEN 'summaries' THEN 4 WHEN 'events' THEN 5 WHEN 'memory' THEN 6
            WHEN 'worktrees' THEN 8 ELSE 7 END""",
        rs -> new Structure(rs.getString(1), rs.getLong(2), rs.getLong(3), Columns.instantOrNull(rs, 4), rs.getLong(5),
            rs.getLong(6), rs.getLong(7), Columns.longOrNull(rs, 8), Columns.longOrNull(rs, 9)));
    DatabaseFigures database = jdbc.dialect().figures(jdbc);
    // A state read without migrating may be older than schema 13's notification figures.
    boolean notified = jdbc.dialect().hasColumn(jdbc, "runs", "notify_delivered");
    LastRun lastRun = jdbc.queryOne("""
        SELECT id, started_at, ended_at, halt_reason, summary_map_peak, summary_map_final, job_table_peak_active,
               job_table_peak_inactive, job_table_final"""
        + (notified ? ", notify_delivered, notify_failed, notify_lost, notify_error" : "")
        + " FROM runs ORDER BY id DESC LIMIT 1",
        rs -> new LastRun(rs.getLong(1), Columns.instantOrNull(rs, 2), Columns.instantOrNull(rs, 3), rs.getString(4),
            Columns.intOrNull(rs, 5),
            Columns.intOrNull(rs, 6), Columns.intOrNull(rs, 7), Columns.intOrNull(rs, 8), Columns.intOrNull(rs, 9),
            notified ? notifications(rs) : null))
        .orElse(null);
    return new StatsInput(now, true, structures, database, lastRun, trend(now));
  }

  /** Lifetime usage (schema 8's counters) and the last run's spend against its budget. */
  @Override
  public Spending spending() {
    Usage lifetime = jdbc.queryOne("SELECT " + UsageRows.COLUMNS + " FROM usage_totals WHERE id = 1",
        UsageRows::read).orElse(Usage.UNKNOWN);
    long reported = jdbc.queryLong("SELECT jobs_reported FROM usage_totals WHERE id = 1");
    return jdbc.queryOne("SELECT id, max_cost_usd, max_tokens, " + UsageRows.COLUMNS
        + " FROM runs ORDER BY id DESC LIMIT 1",
        rs -> new Spending(lifetime, reported, rs.getLong("id"), UsageRows.read(rs),
            Columns.doubleOrNull(rs, "max_cost_usd"), Columns.longOrNull(rs, "max_tokens")))
        .orElse(new Spending(lifetime, reported, null, Usage.UNKNOWN, null, null));
  }

  /**
   * The trend window, counted by the database (reading thousands of samples through JDBC and parsing
   * their JSON took 50 ms warm, 200 ms cold, for 5,000), then the oldest sample by its id.
   */
  private SampleWindow trend(Instant now) {
    long[] window = jdbc.queryOne("""
        SELECT COUNT(*), MIN(id) FROM stats_samples
         WHERE id > (SELECT COALESCE(MAX(id), 0) FROM stats_samples) - ? AND at >= ?""",
        rs -> new long[] {rs.getLong(1), rs.getLong(2)}, TREND_MAX_SAMPLES,
        now.minus(StatsReport.TREND_WINDOW).toEpochMilli()).orElse(new long[] {0, 0});
    if (window[0] == 0) {
      return SampleWindow.EMPTY;
    }
    return jdbc.queryOne("SELECT at, source, db_bytes, rows FROM stats_samples WHERE id = ?",
        rs -> new SampleWindow(new Sample(Instant.ofEpochMilli(rs.getLong(1)), rs.getString(2), rs.getLong(3),
            counts(rs.getString(4))), (int) window[0]),
        window[1]).orElse(SampleWindow.EMPTY);
  }

  /**
   * Records one sample and keeps the samples within their policy ({@link StatsSamples#prune}), in
   * one transaction. Waits at most {@value #SAMPLE_BUSY_TIMEOUT_MS} ms for the write lock (a run
   * or {@code compact} may hold it); when the database stays busy, nothing is written and it
   * throws, and the caller goes on without the sample.
   *
   * @return the samples pruned
   * @throws StoreException when the database is busy or cannot be written
   */
  @Override
  public void recordSample(String source, Instant at) {
    StatsSamples.record(jdbc, source, at);
  }

  @Override
  public int recordSampleIfFree(String source, Instant at) {
    BusyWait before = jdbc.busyWait();
    jdbc.busyWait(BusyWait.atMost(SAMPLE_BUSY_TIMEOUT_MS));
    try {
      return jdbc.inTransaction(() -> {
        StatsSamples.record(jdbc, source, at);
        return StatsSamples.prune(jdbc, at);
      });
    } finally {
      jdbc.busyWait(before); // the store's other parts share the connection
    }
  }

  static Map<String, Long> counts(String json) {
    Map<String, Long> out = new LinkedHashMap<>();
    JsonText.parseObject(json).forEach((k, v) -> {
      try {
        out.put(k, Long.parseLong(v));
      } catch (NumberFormatException e) {
        // a sample written by a later version with other figures: skip what is not a count
      }
    });
    return out;
  }

  /** Columns 10 to 13 of the last run: its notification figures, null when it recorded none. */
  private static LastRun.Notifications notifications(java.sql.ResultSet rs) throws java.sql.SQLException {
    Long delivered = Columns.longOrNull(rs, 10);
    if (delivered == null) {
      return null;
    }
    return new LastRun.Notifications(delivered, rs.getLong(11), rs.getLong(12), rs.getString(13));
  }
}
