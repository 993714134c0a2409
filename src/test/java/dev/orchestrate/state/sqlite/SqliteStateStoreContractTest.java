package dev.orchestrate.state.sqlite;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStoreContract;
import java.nio.file.Path;

/** The embedded backend passes the store contract: {@code state.db} and {@code run.lock} in a state directory. */
class SqliteStateStoreContractTest extends StateStoreContract {
  @Override
  protected StateBackend backend(Path dir) {
    return new SqliteBackend(new StateDirectory(dir));
  }
}
