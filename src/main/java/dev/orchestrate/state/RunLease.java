package dev.orchestrate.state;

/**
 * The run lease a {@link StateBackend} granted; released on close, or when the process dies. On a
 * state one run holds at a time (SQLite) it names no runner; on a state several runners share
 * (PostgreSQL) it is this runner's registration and heartbeat.
 */
public interface RunLease extends AutoCloseable {
  /** This runner's id ({@code host:pid:start-ms}) when runners share the state; null when one run holds it. */
  default String runnerId() {
    return null;
  }

  /** The host this runner runs on, as its id names it; null when one run holds the state. */
  default String host() {
    return null;
  }

  /** Whether this runner is the one that runs retention during runs (always, when it holds the state alone). */
  default boolean maintains() {
    return true;
  }

  @Override
  void close();
}
