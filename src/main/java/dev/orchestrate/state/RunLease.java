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

  /**
   * Records the checkout this runner works in and returns the other live runners that work in
   * another one (several clones share the state), one line each naming the runner, its host and
   * its checkout; empty when one run holds the state.
   *
   * @param id    the checkout's identity ({@code workspace/Checkout}): equal for every runner in
   *              one checkout, different for two clones even at the same path on two machines
   * @param where where it is, for people ({@code host:path})
   */
  default java.util.List<String> checkout(String id, String where) {
    return java.util.List.of();
  }

  @Override
  void close();
}
