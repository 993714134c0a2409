package dev.orchestrate.cli;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** A command's violations, planted for ArchitectureRulesTest (test code, which the rules never scan). */
final class PlantedCommands {
  private PlantedCommands() {
  }

  /** A command that speaks JDBC itself. */
  static final class UsesJdbc {
    Connection connect() throws SQLException {
      return DriverManager.getConnection("jdbc:sqlite::memory:");
    }
  }

  /** A command that opens the store instead of calling a use case of app. */
  static final class OpensAStore {
    StateStore open(StateBackend backend) {
      return backend.open(StateStore.Mode.READ_ONLY);
    }
  }
}
