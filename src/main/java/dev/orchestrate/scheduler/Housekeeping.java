package dev.orchestrate.scheduler;

import java.time.Instant;

/**
 * Work the scheduler offers a slot to at the end of every tick (retention maintenance): it decides
 * itself whether its interval has elapsed, keeps each call short, and never throws.
 */
@FunctionalInterface
public interface Housekeeping {
  Housekeeping NONE = now -> {
  };

  void afterTick(Instant now);
}
