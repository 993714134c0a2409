package dev.orchestrate.state.sql;

import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.AgentActivity;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@link AgentActivity} of the SQL backends: the {@code agent} and {@code outcome} columns of {@code jobs} (schema 10). */
final class SqlAgentActivity implements AgentActivity {
  private final Jdbc jdbc;

  SqlAgentActivity(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public Map<String, Usage> usageSince(Instant since) {
    Map<String, Usage> out = new LinkedHashMap<>();
    if (!recordsAgents()) {
      return out;
    }
    // SUM of only NULLs is NULL: a figure no job of the profile reported stays unknown.
    jdbc.query("SELECT agent, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,"
        + " SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,"
        + " SUM(cost_usd) AS cost_usd FROM jobs WHERE ended_at >= ? AND agent IS NOT NULL GROUP BY agent"
        + " ORDER BY agent", rs -> out.put(rs.getString("agent"), UsageRows.read(rs)), since.toEpochMilli());
    return out;
  }

  @Override
  public List<Outcome> recentOutcomes(String profile, int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    if (!recordsAgents()) {
      return List.of();
    }
    // jobs_by_agent (schema 22, PostgreSQL 14) walks the profile's jobs from the newest: limit rows read
    return jdbc.query("SELECT id, item_id, phase, outcome, ended_at FROM jobs WHERE agent = ? AND outcome IS NOT NULL"
        + " ORDER BY id DESC LIMIT ?", SqlAgentActivity::outcome, profile, limit).stream()
        .filter(o -> o != null).toList();
  }

  /** A class of a newer orchestrate's is left out (null), not misread. */
  private static Outcome outcome(ResultSet rs) throws SQLException {
    OutcomeClass kind = OutcomeClass.of(rs.getString("outcome"));
    return kind == null ? null : new Outcome(rs.getLong("id"), rs.getString("item_id"), rs.getString("phase"), kind,
        Columns.instantOrNull(rs, "ended_at"));
  }

  /** Whether the state has the columns (schema 10): one read without migrating may be older. */
  private boolean recordsAgents() {
    return jdbc.dialect().hasColumn(jdbc, "jobs", "agent");
  }
}
