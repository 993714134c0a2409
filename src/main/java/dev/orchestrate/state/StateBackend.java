package dev.orchestrate.state;

import java.time.Instant;
import java.util.Optional;

/**
 * One state location and the backend that keeps it, chosen by the location
 * ({@code state.select.StateBackends}): it opens {@link StateStore}s and holds the run lease.
 * Job logs and worktrees stay on this runner's disk, under {@link #directory()}.
 */
public interface StateBackend {
  /** This runner's local state directory: job logs, worktrees, and for SQLite the database itself. */
  StateDirectory directory();

  /** Whether any state was ever written here; read-only commands show an empty state when not. */
  boolean exists();

  /** What is wrong with the location (a file where a directory should be, …), if anything. */
  Optional<String> problem();

  /** Opens a store; a {@link StateStore.Mode#READ_WRITE} one creates and migrates the state as needed. */
  StateStore open(StateStore.Mode mode);

  /**
   * Takes the run lease: one {@code run} (or {@code unblock}) at a time works on this state.
   *
   * @throws StateLockedException when another process holds it
   */
  RunLease acquireLease(Instant now);

  /** Whether some process holds the run lease now (a run is active). */
  boolean leaseHeld();

  /** Bytes the state takes on disk (0 when there is none). */
  long bytes();
}
