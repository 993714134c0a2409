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
   * Whether this process can write the state where it is: not so for a SQLite state directory on a
   * read-only mount, immutable, or without write permission. The commands that only read
   * ({@code status}, {@code jobs}, {@code stats}) open it {@link StateStore.Mode#READ_ONLY} then,
   * as {@code serve} always does, instead of failing to open it for writing.
   */
  default boolean writable() {
    return true;
  }

  /**
   * The store a command that only reads opens: read-write where it can (so that an older schema
   * is migrated first), read-only where nothing can be written ({@link #writable()}).
   */
  default StateStore openToRead() {
    return open(writable() ? StateStore.Mode.READ_WRITE : StateStore.Mode.READ_ONLY);
  }

  /**
   * Takes the run lease: one {@code run} (or {@code unblock}) at a time works on this state, or,
   * when it is {@link #shared()}, registers this runner beside the others.
   *
   * @throws StateLockedException when another process holds it (never on a shared state)
   */
  RunLease acquireLease(Instant now);

  /**
   * Takes the run lease with {@code leaseTimeout}: how long a runner of a shared state may go
   * without a heartbeat before others take it for dead (unused where one run holds the state).
   */
  default RunLease acquireLease(Instant now, java.time.Duration leaseTimeout) {
    return acquireLease(now);
  }

  /**
   * Takes the run lease for a person's decision on items ({@code approve}, {@code reject},
   * {@code unblock}): as {@link #acquireLease}, but while another such command holds it this waits
   * for it to finish (they take turns, each finding the items as the one before left them), so that
   * a refusal means a run holds the state, never a command deciding beside it (issue 43).
   *
   * @throws StateLockedException when a run holds it (never on a shared state)
   */
  default RunLease acquireDecisionLease(Instant now) {
    return acquireLease(now);
  }

  /**
   * Whether several runners share this state, each claiming items ({@code scheduler.ItemLeases}):
   * then a run never refuses another, and {@code unblock} needs no lease (its writes are
   * conditional on the items' state).
   */
  default boolean shared() {
    return false;
  }

  /** Whether some process holds the run lease now (a run is active). */
  boolean leaseHeld();

  /** Bytes the state takes on disk (0 when there is none). */
  long bytes();
}
