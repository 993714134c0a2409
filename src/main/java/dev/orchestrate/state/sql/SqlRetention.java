package dev.orchestrate.state.sql;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.retention.RetentionStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention's storage side over the state database: the rows a pass walks, read from a saved
 * cursor in {@code structures.cursor} by primary key (so a batch costs what its limit allows,
 * whatever the table holds), and deletes of exactly the ids {@code retention/Retention} decided,
 * each batch in one transaction. Which rows are beyond a policy is not decided here.
 *
 * <p>What a scan never offers as prunable: a running job; a load-bearing event, nor the newest
 * event; a turn its item's persisted summary does not cover (offered as condensable when its item
 * is done, blocked or gone).
 */
final class SqlRetention implements RetentionStore {
  private static final Logger LOG = LoggerFactory.getLogger(SqlRetention.class);
  private final Jdbc jdbc;
  /** The local state directory: relative job log paths are relative to it. */
  private final Path root;
  /** This runner's job directories ({@code root/jobs} unless chosen apart): the only ones deleted. */
  private final Path jobs;

  /** On a store's {@link Jdbc}, sharing its transactions, busy waiting and commit checks. */
  SqlRetention(Jdbc jdbc, Path root, Path jobs) {
    this.jdbc = jdbc;
    this.root = root;
    this.jobs = jobs;
  }

  @Override
  public OrphanSweep sweepOrphanJobDirectories(boolean dryRun) {
    return OrphanJobDirectories.sweep(jdbc, jobs, dryRun);
  }

  /** Records the policies (and memory's keep_recent) in {@code structures} without deleting anything. */
  @Override
  public void recordPolicies(RetentionConfig config, int memoryKeepRecent) {
    jdbc.inTransaction(() -> {
      policy(StructureName.JOBS, config.jobs());
      policy(StructureName.JOB_LOGS, config.jobs());
      policy(StructureName.TURNS, config.turns());
      policy(StructureName.EVENTS, config.events());
      policy(StructureName.STATS_SAMPLES, config.statsSamples());
      policy(StructureName.WORKTREES, config.worktrees().policy());
      jdbc.execute("UPDATE structures SET max_rows = ?, max_age_ms = NULL WHERE name = 'memory'", memoryKeepRecent);
    });
  }

  private void policy(StructureName structure, Policy policy) {
    jdbc.execute("UPDATE structures SET max_rows = ?, max_age_ms = ? WHERE name = ?", policy.maxRows(),
        policy.maxAge() == null ? null : policy.maxAge().toMillis(), structure.key());
  }

  /** Records that {@code structure} was pruned at {@code now} (by memory or event-log compaction). */
  @Override
  public void markPruned(StructureName structure, Instant now) {
    jdbc.execute("UPDATE structures SET last_pruned_at = ? WHERE name = ?", now.toEpochMilli(), structure.key());
  }

  @Override
  public long prunableRows(StructureName structure) {
    return jdbc.queryLong("SELECT rows_written - rows_pruned"
        + (structure == StructureName.EVENTS ? " - kept_rows" : "") + " FROM structures WHERE name = ?",
        structure.key());
  }

  @Override
  public long cursor(StructureName structure) {
    return jdbc.queryLong("SELECT cursor FROM structures WHERE name = ?", structure.key());
  }

  @Override
  public void resetCursors() {
    StructureName.RETAINED.forEach(s -> jdbc.execute("UPDATE structures SET cursor = 0 WHERE name = ?", s.key()));
  }

  @Override
  public List<Row> scan(StructureName structure, long afterId, int limit) {
    return switch (structure) {
      case JOBS -> jdbc.query("""
          SELECT id, COALESCE(ended_at, started_at), state FROM jobs WHERE id > ? ORDER BY id LIMIT ?""",
          rs -> new Row(rs.getLong(1), rs.getLong(2), !"running".equals(rs.getString(3)), null), afterId, limit);
      case EVENTS -> jdbc.query("""
          SELECT id, at FROM events WHERE load_bearing = 0 AND id > ?
             AND id < (SELECT MAX(id) FROM events) ORDER BY id LIMIT ?""",
          rs -> new Row(rs.getLong(1), rs.getLong(2), true, null), afterId, limit);
      case STATS_SAMPLES -> jdbc.query("SELECT id, at FROM stats_samples WHERE id > ? ORDER BY id LIMIT ?",
          rs -> new Row(rs.getLong(1), rs.getLong(2), true, null), afterId, limit);
      case TURNS -> jdbc.query("""
          SELECT t.id, t.created_at, CASE WHEN t.seq <= COALESCE(s.to_seq, 0) THEN 1 ELSE 0 END,
                 CASE WHEN i.status IS NULL OR i.status IN ('done', 'blocked') THEN t.item_id END
            FROM turns t
            LEFT JOIN context_summaries s ON s.item_id = t.item_id
            LEFT JOIN items i ON i.id = t.item_id
           WHERE t.id > ? ORDER BY t.id LIMIT ?""",
          rs -> {
            boolean covered = rs.getInt(3) == 1;
            return new Row(rs.getLong(1), rs.getLong(2), covered, covered ? null : rs.getString(4));
          }, afterId, limit);
      default -> throw new IllegalArgumentException("no retention for " + structure);
    };
  }

  @Override
  public int delete(StructureName structure, List<Long> ids, long nextCursor, Instant now) {
    if (!StructureName.RETAINED.contains(structure)) {
      throw new IllegalArgumentException("no retention for " + structure);
    }
    List<String> logPaths = structure == StructureName.JOBS && !ids.isEmpty()
        ? jdbc.query("SELECT log_path FROM jobs WHERE log_path IS NOT NULL AND id IN (" + placeholders(ids.size())
            + ")", rs -> rs.getString(1), ids.toArray())
        : List.of();
    int n = jdbc.inTransaction(() -> {
      if (structure == StructureName.JOBS && !ids.isEmpty()) { // the project commands each job ran go with it
        jdbc.execute("DELETE FROM job_checks WHERE job_id IN (" + placeholders(ids.size()) + ")", ids.toArray());
      }
      int deleted = ids.isEmpty() ? 0 : jdbc.execute("DELETE FROM " + structure.key() + " WHERE id IN ("
          + placeholders(ids.size()) + ")", ids.toArray());
      jdbc.execute("UPDATE structures SET cursor = ? WHERE name = ?", nextCursor, structure.key());
      if (deleted > 0) {
        jdbc.execute("UPDATE structures SET last_pruned_at = ? WHERE name = ?", now.toEpochMilli(), structure.key());
        if (structure == StructureName.JOBS) {
          jdbc.execute("UPDATE structures SET last_pruned_at = ? WHERE name = 'job_logs'", now.toEpochMilli());
        }
      }
      return deleted;
    });
    // The rows are gone first: a crash in between leaves a directory no row points to (disk until
    // the next full compact sweeps orphans), never a row whose log was deleted under it.
    // Only this runner's own job directories: on a shared state, another runner's (on another
    // disk, or in its own --logs directory here) are left to that runner's orphan sweep.
    for (String logPath : logPaths) {
      Path dir = jobDirectory(JobLogPaths.resolve(root, logPath));
      if (dir != null && dir.getParent().equals(jobs)) {
        JobDirectories.delete(jobs, dir, "the log directory of a pruned job");
      } else if (dir != null && Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        LOG.debug("not deleting the log directory {} of a pruned job: it is not in this runner's {}", dir, jobs);
      }
    }
    return n;
  }

  private static String placeholders(int n) {
    return "?" + ",?".repeat(n - 1);
  }

  /**
   * The job's own directory ({@code jobs/run<N>-<job>-<item>-<phase>-<attempt>}) holding the log
   * file at {@code logPath}; null for anything else, so a malformed row can never take the whole
   * jobs directory with it.
   */
  static Path jobDirectory(Path logPath) {
    Path dir = logPath.getParent();
    if (dir == null || dir.getFileName() == null || dir.getParent() == null
        || !OrphanJobDirectories.JOB_DIRECTORY.matcher(dir.getFileName().toString()).matches()) {
      return null;
    }
    return dir;
  }
}
