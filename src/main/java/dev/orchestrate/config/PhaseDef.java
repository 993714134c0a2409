package dev.orchestrate.config;

import java.util.Objects;

/**
 * One phase of a pipeline. Exactly one of {@code instructions} and {@code workflow} is set;
 * {@code workflow} is an absolute path (resolved against the config file's directory).
 */
public record PhaseDef(String name, String instructions, String workflow, boolean destructive) {
  public PhaseDef {
    Objects.requireNonNull(name, "name");
  }
}
