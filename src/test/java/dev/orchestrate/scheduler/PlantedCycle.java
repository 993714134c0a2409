package dev.orchestrate.scheduler;

import dev.orchestrate.item.PlantedViolations;

/** The other half of the cycle {@link PlantedViolations.HalfOfACycle} starts (ArchitectureRulesTest). */
public final class PlantedCycle {
  public Object other() {
    return new PlantedViolations.HalfOfACycle();
  }
}
