package dev.orchestrate.state.sqlite;

import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateStore;
import java.time.Instant;
import java.util.Optional;

/**
 * The embedded backend: {@code state.db} in the state directory, and the run lease as an OS file
 * lock on {@code run.lock} beside it (released by the kernel when the process dies).
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
    return SqliteStateStore.open(directory.database(), mode);
  }

  @Override
  public RunLease acquireLease(Instant now) {
    return RunLock.acquire(directory, now)::close;
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
