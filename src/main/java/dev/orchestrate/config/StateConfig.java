package dev.orchestrate.config;

import java.time.Duration;

/**
 * Where the state is kept and how runners that share it treat each other ({@code state} in the
 * config).
 *
 * @param url          the state's location when the command line and {@code ORCHESTRATE_STATE}
 *                     name none: a directory, or {@code postgresql://user@host:5432/db}; null for
 *                     the default ({@code ./.orchestrate})
 * @param leaseTimeout how old a runner's heartbeat may get before other runners of a shared state
 *                     take it for dead and take its items over
 */
public record StateConfig(String url, Duration leaseTimeout) {
  public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofSeconds(30);

  public StateConfig {
    if (leaseTimeout == null || leaseTimeout.isNegative() || leaseTimeout.isZero()) {
      throw new IllegalArgumentException("lease_timeout must be more than zero, got " + leaseTimeout);
    }
  }

  public static StateConfig defaults() {
    return new StateConfig(null, DEFAULT_LEASE_TIMEOUT);
  }
}
