package dev.orchestrate.state.postgres;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStoreContract;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.util.Map;

/**
 * The PostgreSQL backend passes the store contract: each test on a schema of its own in one
 * embedded server, its job logs in the test's directory. No environment and no home directory are
 * read: the server lets its user in without a password.
 */
class PostgresStateStoreContractTest extends StateStoreContract {
  @Override
  protected StateBackend backend(Path dir) {
    String location = EmbeddedPostgresServer.location(EmbeddedPostgresServer.freshSchema("contract"));
    return new PostgresBackend(location, new StateDirectory(dir), Map.of(), dir.resolve("home"), line -> {
      throw new AssertionError("unexpected warning: " + line);
    });
  }
}
