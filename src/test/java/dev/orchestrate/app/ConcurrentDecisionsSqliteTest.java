package dev.orchestrate.app;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;

/** {@link ConcurrentDecisionsContract} on a SQLite state directory: threads of one JVM on one file. */
class ConcurrentDecisionsSqliteTest extends ConcurrentDecisionsContract {
  @Override
  protected StateBackend backend(Path dir) {
    return TestStores.backend(dir.resolve("state"));
  }
}
