package dev.orchestrate.app;

import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StoreException;

/** {@code init}'s work on a database state: create or migrate its schema. */
public final class StatePreparation {
  private StatePreparation() {
  }

  /**
   * Opens the state read-write (which creates and migrates the schema); its schema version.
   *
   * @throws StoreException when the database cannot be reached or refuses, saying init wrote nothing
   */
  public static int prepare(StateBackend backend) {
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      return store.schemaVersion();
    } catch (StoreException e) {
      throw new StoreException("init wrote nothing: " + e.getMessage(), e);
    }
  }
}
