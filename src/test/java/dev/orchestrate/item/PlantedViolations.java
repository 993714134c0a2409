package dev.orchestrate.item;

import dev.orchestrate.scheduler.PlantedCycle;
import dev.orchestrate.scheduler.Scheduler;

/**
 * Violations of {@code ArchitectureTest}'s rules, planted in the model for {@code
 * ArchitectureRulesTest} (test code, which the rules themselves never scan).
 */
public final class PlantedViolations {
  private PlantedViolations() {
  }

  /** The model using the run loop: an arrow up, and the scheduler used from below. */
  public static final class UsesTheScheduler {
    public Class<?> loop() {
      return Scheduler.class;
    }
  }

  /** One half of a cycle: the model uses the scheduler's planted class, which uses this one. */
  public static final class HalfOfACycle {
    public Object other() {
      return new PlantedCycle();
    }
  }
}
