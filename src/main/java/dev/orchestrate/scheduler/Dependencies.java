package dev.orchestrate.scheduler;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Dependency checks shared by the scheduler and {@code status}. */
public final class Dependencies {
  private Dependencies() {
  }

  /** The ids of {@code item}'s dependencies that are not done, with their status, e.g. {@code WRK-4 (blocked)}. */
  public static List<String> unmet(ItemState item, Map<String, ItemState> byId) {
    List<String> out = new ArrayList<>();
    for (String dep : item.definition().dependsOn()) {
      ItemState d = byId.get(dep);
      if (d == null) {
        out.add(dep + " (unknown)");
      } else if (d.status() != ItemStatus.DONE) {
        out.add(dep + " (" + d.status().key() + ")");
      }
    }
    return out;
  }
}
