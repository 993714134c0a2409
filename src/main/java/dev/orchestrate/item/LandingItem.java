package dev.orchestrate.item;

import dev.orchestrate.config.ProjectCommand;
import java.util.List;

/**
 * One item of a landing batch ({@link ItemLanding#integrateBatch}).
 *
 * @param gates the gates its work must pass on top of the base's tip (its pipeline's integration gates)
 */
public record LandingItem(String itemId, String title, List<ProjectCommand> gates) {
  public LandingItem {
    gates = List.copyOf(gates);
  }
}
