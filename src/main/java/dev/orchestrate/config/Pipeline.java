package dev.orchestrate.config;

import java.util.List;

/** A named pipeline: pre-phases run while an item is {@code scoping}, phases while {@code in_progress}. */
public record Pipeline(String name, List<PhaseDef> prePhases, List<PhaseDef> phases) {
  public Pipeline {
    prePhases = List.copyOf(prePhases);
    phases = List.copyOf(phases);
  }
}
