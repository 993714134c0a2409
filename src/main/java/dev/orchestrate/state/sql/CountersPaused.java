package dev.orchestrate.state.sql;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * SQLite row-counting triggers dropped for a bulk insert and created again from their own text
 * once the caller has added what they would have counted to {@code structures}, all inside the
 * caller's transaction: the counters stay exact (a failure or a crash rolls the drop back with the
 * rest), and a million rows are spared a million trigger runs. PostgreSQL's counting triggers run
 * once per statement already: nothing is paused there. Used by a bulk backlog sync
 * ({@code BacklogSync}) and by {@code memory import} ({@code SqlMemoryRepository.importAll}).
 */
final class CountersPaused {
  private final Jdbc jdbc;
  private final List<String> definitions;

  private CountersPaused(Jdbc jdbc, List<String> definitions) {
    this.jdbc = jdbc;
    this.definitions = definitions;
  }

  /**
   * Drops {@code triggers}, inside the caller's transaction; null (nothing paused, the triggers
   * count as usual) unless the database is SQLite and has every one of them.
   */
  static CountersPaused pause(Jdbc jdbc, List<String> triggers) {
    try {
      if (!"SQLite".equals(jdbc.connection().getMetaData().getDatabaseProductName())) {
        return null;
      }
    } catch (SQLException e) {
      throw jdbc.failure("database product", e);
    }
    List<String> definitions = new ArrayList<>();
    for (String name : triggers) {
      jdbc.queryOne("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", rs -> rs.getString(1), name)
          .ifPresent(definitions::add);
    }
    if (definitions.size() != triggers.size()) {
      return null;
    }
    triggers.forEach(name -> jdbc.execute("DROP TRIGGER " + name));
    return new CountersPaused(jdbc, definitions);
  }

  /** Creates the triggers again; the caller has counted what they would have. */
  void resume() {
    definitions.forEach(jdbc::execute);
  }
}
