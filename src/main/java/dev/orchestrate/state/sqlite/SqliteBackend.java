package dev.orchestrate.state.sqlite;

import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.sql.Jdbc;
import dev.orchestrate.state.sql.SqlStateStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Instant;
import java.util.Optional;

/**
 * The embedded backend: {@code state.db} in the state directory, and the run lease as an OS file
 * lock on {@code run.lock} beside it (released by the kernel when the process dies). Its stores are
 * the shared {@link SqlStateStore} speaking {@link SqliteDialect}.
 */
public final class SqliteBackend implements StateBackend {
  private final StateDirectory directory;

  public SqliteBackend(StateDirectory directory) {
    this.directory = directory;
  }

  @Override
  public StateDirectory directory() {
    return directory;
  }

  @Override
  public boolean exists() {
    return directory.hasDatabase();
  }

  @Override
  public Optional<String> problem() {
    return directory.problem();
  }

  @Override
  public StateStore open(StateStore.Mode mode) {
    return store(directory.database(), mode);
  }

  /**
   * The store of the database {@code file}, opened as {@code mode} asks: read-only (no migration,
   * no file created), read-write (created and migrated) or maintenance (with the bulk settings).
   */
  static SqlStateStore store(Path file, StateStore.Mode mode) {
    Connection connection = switch (mode) {
      case READ_ONLY -> Database.openReadOnly(file);
      case READ_WRITE -> Database.open(file);
      case MAINTENANCE -> Database.openForMaintenance(file);
    };
    return SqlStateStore.open(new Jdbc(connection, new SqliteDialect(file, !Database.inMemory(connection))),
        file.toAbsolutePath().getParent());
  }

  /**
   * Takes {@code run.lock}, once an existing database has been opened read-only: a database that
   * is not one, or of a newer schema, is refused before the lock file is created, so a refused run
   * leaves nothing behind. (Removing the file afterwards could free a lock another process had just
   * opened, unlocked, while a third created a new one.)
   */
  @Override
  public RunLease acquireLease(Instant now) {
    if (exists()) {
      Database.closeQuietly(Database.openReadOnly(directory.database()));
    }
    return RunLock.acquire(directory, now)::close;
  }

  /**
   * The run lock, taken in turn with the other commands deciding on items: {@code decisions.lock}
   * first, waited for ({@link RunLock#turn}), so that only a run can hold {@code run.lock} when a
   * decision finds it held.
   */
  @Override
  public RunLease acquireDecisionLease(Instant now) {
    RunLease turn = RunLock.turn(directory);
    try {
      RunLease run = acquireLease(now);
      return () -> {
        try {
          run.close();
        } finally {
          turn.close();
        }
      };
    } catch (RuntimeException e) {
      turn.close();
      throw e;
    }
  }

  /** The directory (where SQLite makes its {@code -wal} and {@code -shm} files) and the database file. */
  @Override
  public boolean writable() {
    Path db = directory.database();
    return Files.isWritable(directory.root()) && (!Files.exists(db) || Files.isWritable(db));
  }

  @Override
  public boolean leaseHeld() {
    return RunLock.isHeld(directory);
  }

  @Override
  public long bytes() {
    return Database.bytes(directory.database());
  }
}
