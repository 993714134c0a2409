package dev.orchestrate.state.select;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.sqlite.SqliteBackend;

/**
 * The one place that chooses a backend by the state location, and so the one file outside
 * {@code state/sqlite} that names it. Today every location is a directory with a SQLite database.
 */
public final class StateBackends {
  private StateBackends() {
  }

  /** The backend for the state directory {@code directory}. */
  public static StateBackend at(StateDirectory directory) {
    return new SqliteBackend(directory);
  }
}
