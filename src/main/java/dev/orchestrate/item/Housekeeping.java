package dev.orchestrate.item;

import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * Work the scheduler offers a slot to at the end of every tick (retention maintenance), at the
 * lowest priority: it decides itself whether its interval has elapsed, steps aside as soon as the
 * scheduler has work waiting (a job ended, a stop was requested) and never throws.
 */
@FunctionalInterface
public interface Housekeeping {
  Housekeeping NONE = (now, waiting) -> {
  };

  /**
   * @param waiting true while the scheduler has work waiting: finish the current unit of work and
   *                return, leaving the rest for a later tick
   */
  void afterTick(Instant now, BooleanSupplier waiting);

  /**
   * The run has ended normally (not on a stop) and no agent runs: the last chance to leave the
   * state within its policies. Only a stop (Ctrl-C during this slot) is reason to step aside.
   */
  default void atEnd(Instant now, BooleanSupplier stop) {
  }
}
