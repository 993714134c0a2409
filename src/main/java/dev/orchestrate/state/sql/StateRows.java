package dev.orchestrate.state.sql;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * How an item row, a job row and a run row read, for every query that selects them (the repository,
 * the leases, the item history, the dashboard), and the job columns a state older than them lacks.
 */
final class StateRows {
  private StateRows() {
  }

  /**
   * An item row. The run holds every item this way for its whole length, so the values many items
   * share are held once: pipeline and phase names (a config's few), an empty description, and the
   * progress of an item that has nothing but its status ({@link Progress#shared}); docs/architecture.md,
   * "Memory per item".
   */
  static ItemState item(ResultSet rs) throws SQLException {
    String description = rs.getString("description");
    BacklogItem def = new BacklogItem(rs.getString("id"), rs.getString("title"), shared(rs.getString("pipeline")),
        Priority.valueOf(rs.getString("priority").toUpperCase(Locale.ROOT)),
        JsonText.parseArray(rs.getString("depends_on")), JsonText.parseArray(rs.getString("tags")),
        description == null || description.isEmpty() ? "" : description,
        InitialStatus.valueOf(rs.getString("initial_status").toUpperCase(Locale.ROOT)));
    String blockedFrom = rs.getString("blocked_from");
    Progress progress = Progress.shared(new Progress(ItemStatus.fromKey(rs.getString("status")),
        shared(rs.getString("phase")), rs.getInt("attempts"), rs.getString("blocked_reason"),
        blockedFrom == null ? null : ItemStatus.fromKey(blockedFrom), rs.getString("last_failure"),
        rs.getString("phase_summary"), rs.getString("unblock_notes"), resume(rs)));
    return new ItemState(def, rs.getLong("seq"), rs.getInt("in_backlog") == 1, progress, rs.getString("origin"));
  }

  /**
   * One instance of a name many rows repeat (a pipeline's, a phase's). Names are at most
   * {@code Names.MAX_NAME_CHARS} long and a config defines a handful, so the JVM's string table
   * holds them at no cost worth counting.
   */
  private static String shared(String name) {
    return name == null ? null : name.intern();
  }

  /** The session the item's next attempt may continue; none in a state older than schema 11. */
  static Progress.Resume resume(ResultSet rs) throws SQLException {
    String profile;
    String session;
    try {
      profile = rs.getString("resume_profile");
      session = rs.getString("resume_session");
    } catch (SQLException e) {
      return null; // an older schema, read without migrating it
    }
    return profile == null || session == null || rs.getString("phase") == null ? null
        : new Progress.Resume(profile, session);
  }

  /**
   * The outcome classes of these jobs, read apart from the job rows: a state read without
   * migrating (logs, serve, a read-only directory) may be older than the column.
   */
  static Map<Long, OutcomeClass> outcomes(Jdbc jdbc, Collection<Long> jobIds) {
    Map<Long, OutcomeClass> out = new java.util.LinkedHashMap<>();
    jobColumn(jdbc, "outcome", jobIds).forEach((id, key) -> {
      OutcomeClass kind = OutcomeClass.of(key);
      if (kind != null) { // a class of a newer orchestrate's: left out, not misread
        out.put(id, kind);
      }
    });
    return out;
  }

  /**
   * A text column of these jobs, by id, nulls left out; empty when the state is older than the
   * column (read without migrating: logs, serve, a read-only directory).
   */
  static Map<Long, String> jobColumn(Jdbc jdbc, String column, Collection<Long> jobIds) {
    if (jobIds.isEmpty() || !jdbc.dialect().hasColumn(jdbc, "jobs", column)) {
      return Map.of();
    }
    String ids = jobIds.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","));
    Map<Long, String> out = new java.util.LinkedHashMap<>();
    jdbc.query("SELECT id, " + column + " FROM jobs WHERE " + column + " IS NOT NULL AND id IN (" + ids + ")",
        rs -> out.put(rs.getLong(1), rs.getString(2)));
    return out;
  }

  /** The columns {@link #job(ResultSet, Path)} reads: every query of job rows selects these. */
  static final String JOB_COLUMNS = "id, run_id, item_id, phase, attempt, state, result, started_at, ended_at, exit_code, "
      + "log_path, reason";

  /**
   * A job row; its log path (stored relative to the state directory, see {@link JobLogPaths})
   * resolved against {@code root}, the state directory it was read for.
   */
  static JobRecord job(ResultSet rs, Path root) throws SQLException {
    String log = rs.getString("log_path");
    return new JobRecord(rs.getLong("id"), rs.getLong("run_id"), rs.getString("item_id"), rs.getString("phase"),
        rs.getInt("attempt"), JobState.valueOf(rs.getString("state").toUpperCase(Locale.ROOT)),
        rs.getString("result"), Instant.ofEpochMilli(rs.getLong("started_at")), Columns.instantOrNull(rs, "ended_at"),
        Columns.intOrNull(rs, "exit_code"), log == null ? null : JobLogPaths.resolve(root, log),
        rs.getString("reason"));
  }

  /** The most recent run session, for the repository and the dashboard alike. */
  static Optional<RunRecord> lastRun(Jdbc jdbc) {
    return jdbc.queryOne("SELECT id, started_at, ended_at, pid, halt_reason FROM runs ORDER BY id DESC LIMIT 1",
        rs -> new RunRecord(rs.getLong("id"), Instant.ofEpochMilli(rs.getLong("started_at")),
            Columns.instantOrNull(rs, "ended_at"), rs.getLong("pid"), rs.getString("halt_reason")));
  }
}
