package dev.orchestrate.state.sql;

import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.outcome.OutcomeClass;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The {@link AgentPauses} of the SQL backends, on the state repository's connection. */
final class SqlAgentPauses implements AgentPauses {
  private final Jdbc jdbc;

  SqlAgentPauses(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public List<Pause> all() {
    if (!jdbc.dialect().hasColumn(jdbc, "agent_pauses", "profile")) {
      return List.of(); // a state read without migrating, older than the table
    }
    return jdbc.query("SELECT * FROM agent_pauses ORDER BY profile", SqlAgentPauses::pause).stream()
        .filter(p -> p != null).toList();
  }

  @Override
  public void put(Pause p) {
    jdbc.inTransaction(() -> {
      int updated = jdbc.execute(
          "UPDATE agent_pauses SET kind = ?, until_at = ?, message = ?, since_at = ?, strikes = ?"
              + " WHERE profile = ?",
          p.kind().key(), p.until() == null ? null : p.until().toEpochMilli(), p.message(),
          p.since().toEpochMilli(), p.strikes(), p.profile());
      if (updated == 0) {
        jdbc.execute(
            "INSERT INTO agent_pauses (profile, kind, until_at, message, since_at, strikes) VALUES (?, ?, ?, ?, ?, ?)",
            p.profile(), p.kind().key(), p.until() == null ? null : p.until().toEpochMilli(), p.message(),
            p.since().toEpochMilli(), p.strikes());
      }
    });
  }

  @Override
  public void clear(String profile) {
    jdbc.execute("DELETE FROM agent_pauses WHERE profile = ?", profile);
  }

  @Override
  public Optional<Pause> remove(String profile) {
    if (!jdbc.dialect().hasColumn(jdbc, "agent_pauses", "profile")) {
      return Optional.empty(); // older than the table: nothing was ever paused
    }
    return jdbc.inTransaction(() -> {
      Optional<Pause> found = jdbc.query("SELECT * FROM agent_pauses WHERE profile = ?", SqlAgentPauses::pause,
          profile).stream().filter(p -> p != null).findFirst();
      // a row of a kind this version cannot read (a newer one's) goes too: the person wants the profile to work
      jdbc.execute("DELETE FROM agent_pauses WHERE profile = ?", profile);
      return found;
    });
  }

  /** A row of a kind this version does not know (a newer orchestrate's) is skipped, not misread. */
  private static Pause pause(ResultSet rs) throws SQLException {
    OutcomeClass kind = OutcomeClass.of(rs.getString("kind"));
    if (kind == null) {
      return null;
    }
    return new Pause(rs.getString("profile"), kind, Columns.instantOrNull(rs, "until_at"), rs.getString("message"),
        java.time.Instant.ofEpochMilli(rs.getLong("since_at")), rs.getInt("strikes"));
  }
}
