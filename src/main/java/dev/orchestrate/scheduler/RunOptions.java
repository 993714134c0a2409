package dev.orchestrate.scheduler;

import java.util.Objects;

/**
 * What one {@code run} is asked to do, besides the config.
 *
 * @param phaseCap phase executions this run may start (at least 1)
 * @param filter   {@code --only} and {@code --target}; {@link ItemFilter#ALL} for everything. The
 *                 scheduler pins its statuses at the start of the run.
 */
public record RunOptions(int phaseCap, ItemFilter filter) {
  public RunOptions {
    Objects.requireNonNull(filter, "filter");
    if (phaseCap < 1) {
      throw new IllegalArgumentException("phaseCap must be >= 1, got " + phaseCap);
    }
  }

  public static RunOptions cap(int phaseCap) {
    return new RunOptions(phaseCap, ItemFilter.ALL);
  }
}
