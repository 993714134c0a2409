package dev.orchestrate.config;

import java.util.Objects;

/**
 * One phase of a pipeline. Exactly one of {@code instructions} and {@code workflow} is set;
 * {@code workflow} is an absolute path (resolved against the config file's directory).
 * {@code agent} names the agent profile that runs it (null: the pipeline's), {@code fallback} the
 * profiles that take over while it is paused by a provider's limit (empty: the pipeline's).
 */
public record PhaseDef(String name, String instructions, String workflow, boolean destructive, String agent,
    java.util.List<String> fallback) {
  public PhaseDef {
    Objects.requireNonNull(name, "name");
    fallback = fallback == null ? java.util.List.of() : java.util.List.copyOf(fallback);
  }

  /** A phase run by its pipeline's agent profile. */
  public PhaseDef(String name, String instructions, String workflow, boolean destructive) {
    this(name, instructions, workflow, destructive, null, java.util.List.of());
  }
}
