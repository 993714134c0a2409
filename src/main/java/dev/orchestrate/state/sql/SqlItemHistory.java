package dev.orchestrate.state.sql;

import dev.orchestrate.item.JobRecord;
import dev.orchestrate.state.ItemHistory;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one item went through, read without changing the database: its jobs, the agents' answers per phase and attempt, its
 * rolling context summary. For {@code status ID}, {@code logs} and the status table.
 */
final class SqlItemHistory implements ItemHistory {
  private final Jdbc jdbc;
  private final Path root;

  /** Over a store's connection, which the store closes; job log paths resolved against {@code root}. */
  SqlItemHistory(Jdbc jdbc, Path root) {
    this.jdbc = jdbc;
    this.root = root;
  }

  /** A job row, its log path resolved against the state directory read (rows store it relative). */
  private JobRecord job(java.sql.ResultSet rs) throws java.sql.SQLException {
    return StateRows.job(rs, root);
  }

  /** The item's jobs that retention kept, oldest first. */
  @Override
  public List<JobRecord> jobs(String itemId) {
    return jdbc.query("SELECT " + StateRows.JOB_COLUMNS + " FROM jobs WHERE item_id = ? ORDER BY id",
        this::job,
        itemId);
  }

  @Override
  public Optional<JobRecord> job(long id) {
    return jdbc.queryOne("SELECT " + StateRows.JOB_COLUMNS + " FROM jobs WHERE id = ?", this::job, id);
  }

  /** Every item's latest job, by item id. */
  @Override
  public Map<String, JobRecord> latestJobs() {
    Map<String, JobRecord> latest = new LinkedHashMap<>();
    jdbc.query(
        "SELECT " + StateRows.JOB_COLUMNS
            + " FROM jobs WHERE id IN (SELECT MAX(id) FROM jobs GROUP BY item_id)",
        this::job).forEach(job -> latest.put(job.itemId(), job));
    return latest;
  }

  /** The agents' answers the item's turns kept (finished items' turns are condensed in time), in order. */
  @Override
  public List<KeptAnswer> answers(String itemId) {
    return jdbc.query("SELECT phase, attempt, text FROM turns WHERE item_id = ? AND role = 'assistant' ORDER BY seq",
        rs -> new KeptAnswer(rs.getString(1), rs.getInt(2), rs.getString(3)), itemId);
  }

  /** The rolling summary of the item's condensed turns, if any. */
  @Override
  public Optional<String> contextSummary(String itemId) {
    return jdbc.queryOne("SELECT text FROM context_summaries WHERE item_id = ?", rs -> rs.getString(1), itemId);
  }

  /** The landing events of the item ({@code workspace.<result>}), newest first. */
  @Override
  public List<Landing> landings(String itemId, int limit) {
    return jdbc.query("SELECT at, kind, payload FROM events WHERE item_id = ? AND kind IN ('workspace.integrated', "
        + "'workspace.integration_failed', 'workspace.deferred', 'workspace.pushed', 'workspace.awaiting_checks', "
        + "'workspace.skipped') ORDER BY id DESC LIMIT ?", rs -> {
          Map<String, Object> p = JsonText.parseScalars(rs.getString(3));
          return new Landing(java.time.Instant.ofEpochMilli(rs.getLong(1)),
              rs.getString(2).substring("workspace.".length()), text(p.get("message")), number(p.get("round")),
              text(p.get("base_commit")), text(p.get("tested_commit")), text(p.get("gates")),
              number(p.get("gates_ms")));
        }, itemId, limit);
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }

  private static Long number(Object value) {
    return value instanceof Number n ? n.longValue() : null;
  }
}
