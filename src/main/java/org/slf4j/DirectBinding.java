package org.slf4j;

import org.slf4j.spi.SLF4JServiceProvider;

/**
 * Binds SLF4J to a provider directly, as its own {@code bind} would once it found the provider,
 * without the search. Lives in SLF4J's package (orchestrate's jar puts both on the class path, one
 * class loader) to reach {@link LoggerFactory}'s package-private state; no reflection.
 *
 * <p>Why: orchestrate chose its provider through the {@code slf4j.provider} property, and SLF4J 2.0's
 * lookup of a named provider formats its log line with {@code String.format} before it checks the
 * verbosity, so every command initialised {@link java.util.Formatter}, which compiles a regular
 * expression, then loaded the provider by reflection and checked versions: about 5-7 % of a short
 * command's main thread (docs/benchmarks.md, issue 46, item 5). {@code DirectBindingTest} binds a
 * provider through it in a JVM of its own and checks loggers and the MDC come from it, so an SLF4J
 * upgrade that changes these fields fails the build (or, renamed, its compilation).
 */
public final class DirectBinding {
  private DirectBinding() {
  }

  /**
   * Makes {@code provider} SLF4J's, initialised, unless SLF4J was initialised already (or is
   * initialising): then nothing changes.
   *
   * @return whether {@code provider} was bound
   */
  public static boolean bind(SLF4JServiceProvider provider) {
    synchronized (LoggerFactory.class) {
      if (LoggerFactory.INITIALIZATION_STATE != LoggerFactory.UNINITIALIZED) {
        return false;
      }
      provider.initialize();
      LoggerFactory.PROVIDER = provider;
      MDC.setMDCAdapter(provider.getMDCAdapter());
      LoggerFactory.INITIALIZATION_STATE = LoggerFactory.SUCCESSFUL_INITIALIZATION;
      return true;
    }
  }
}
