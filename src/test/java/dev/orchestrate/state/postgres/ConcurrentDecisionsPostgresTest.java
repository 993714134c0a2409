package dev.orchestrate.state.postgres;

import dev.orchestrate.app.ConcurrentDecisionsContract;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import java.nio.file.Path;

/**
 * {@link ConcurrentDecisionsContract} on a shared PostgreSQL state: with no live runner the
 * decisions are written at once, beside one (its registration held) they are queued.
 */
class ConcurrentDecisionsPostgresTest extends ConcurrentDecisionsContract {
  @Override
  protected StateBackend backend(Path dir) {
    return TestBackend.on(EmbeddedPostgresServer.freshSchema("decisions"), "host-a", dir);
  }
}
