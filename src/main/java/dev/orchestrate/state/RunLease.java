package dev.orchestrate.state;

/** The run lease a {@link StateBackend} granted; released on close, or when the process dies. */
public interface RunLease extends AutoCloseable {
  @Override
  void close();
}
