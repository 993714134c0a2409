package dev.orchestrate.testing;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.select.StateBackends;
import java.nio.file.Path;

/** The state of a test's state directory, through the port as the commands reach it. */
public final class TestStores {
  private TestStores() {
  }

  /** The backend of the state directory {@code stateDir} (which need not exist yet). */
  public static StateBackend backend(Path stateDir) {
    return StateBackends.at(new StateDirectory(stateDir));
  }

  /** The store of {@code stateDir}, opened for reading and writing (created and migrated as needed). */
  public static StateStore open(Path stateDir) {
    return backend(stateDir).open(StateStore.Mode.READ_WRITE);
  }
}
