package dev.orchestrate.state.sql;

import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.sqlite.SqliteBackend;
import java.nio.file.Path;

/**
 * The shared store code on SQLite, as the tests of this package exercise it: the store of a
 * {@code state.db}, opened through the SQLite backend, and its parts as their own classes.
 */
final class SqliteStores {
  private SqliteStores() {
  }

  /** The store of {@code file} (a {@code state.db}), opened as {@code mode} asks. */
  static SqlStateStore open(Path file, StateStore.Mode mode) {
    if (!file.getFileName().toString().equals("state.db")) {
      throw new IllegalArgumentException("a state database is named state.db, not " + file.getFileName());
    }
    return (SqlStateStore) new SqliteBackend(new StateDirectory(file.getParent())).open(mode);
  }

  /** The store of {@code file}, opened for reading and writing (created and migrated as needed). */
  static SqlStateStore open(Path file) {
    return open(file, StateStore.Mode.READ_WRITE);
  }

  /** The items repository of a read-write store of {@code file}; closing it closes the store's connection. */
  static SqlStateRepository repository(Path file) {
    return open(file).repository();
  }

  /** The memory of a maintenance store of {@code file}; closing it closes the store's connection. */
  static SqlMemoryRepository memory(Path file) {
    return new SqlMemoryRepository(open(file, StateStore.Mode.MAINTENANCE).jdbc(), true);
  }
}
