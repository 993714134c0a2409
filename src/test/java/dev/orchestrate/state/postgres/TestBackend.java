package dev.orchestrate.state.postgres;

import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.util.Map;

/** The backends this package's tests open on the embedded server. */
final class TestBackend {
  private TestBackend() {
  }

  /**
   * The backend of {@code schema} on host {@code host} (its {@code HOSTNAME}), with this runner's
   * local state in {@code dir/state}, no password and no warnings shown.
   */
  static PostgresBackend on(String schema, String host, Path dir) {
    return new PostgresBackend(EmbeddedPostgresServer.location(schema), new StateDirectory(dir.resolve("state")),
        Map.of("HOSTNAME", host), dir.resolve("home"), line -> {});
  }
}
