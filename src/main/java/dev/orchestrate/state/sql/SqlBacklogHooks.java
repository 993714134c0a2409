package dev.orchestrate.state.sql;

import dev.orchestrate.item.BacklogHooks;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

/** The {@link BacklogHooks} of the SQL backends, on the state repository's connection. */
final class SqlBacklogHooks implements BacklogHooks {
  private final Jdbc jdbc;

  SqlBacklogHooks(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public Set<String> called(String hook) {
    if (!jdbc.dialect().hasColumn(jdbc, "backlog_hooks", "hook")) {
      return Set.of(); // a state read without migrating, older than the table
    }
    return new HashSet<>(jdbc.query("SELECT item_id FROM backlog_hooks WHERE hook = ?", rs -> rs.getString(1), hook));
  }

  @Override
  public void recordCalled(String itemId, String hook, Instant at) {
    jdbc.inTransaction(() -> {
      int updated = jdbc.execute("UPDATE backlog_hooks SET called_at = ? WHERE item_id = ? AND hook = ?",
          at.toEpochMilli(), itemId, hook);
      if (updated == 0) {
        jdbc.execute("INSERT INTO backlog_hooks (item_id, hook, called_at) VALUES (?, ?, ?)", itemId, hook,
            at.toEpochMilli());
      }
    });
  }

  @Override
  public void clear(String itemId, String hook) {
    jdbc.execute("DELETE FROM backlog_hooks WHERE item_id = ? AND hook = ?", itemId, hook);
  }
}
