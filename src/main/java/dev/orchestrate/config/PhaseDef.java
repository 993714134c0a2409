package dev.orchestrate.config;

import java.util.List;
import java.util.Objects;

/**
 * One phase of a pipeline. Exactly one of {@code instructions} and {@code workflow} is set;
 * {@code workflow} is an absolute path (resolved against the config file's directory).
 * {@code agent} names the agent profile that runs it (null: the pipeline's), {@code fallback} the
 * profiles that take over while it is paused by a provider's limit (empty: the pipeline's).
 * {@code verify} are the gates that must pass before its work is committed (null: the pipeline's
 * {@code verify:}, an empty list: none); {@code changes} whether an attempt that reports success
 * must have changed the worktree (docs/verification.md); {@code changesGates} whether its attempts
 * may change the files its pipeline's gates run and its {@code verify_protected} paths (else such an
 * attempt fails as {@code protected_changed}).
 */
public record PhaseDef(String name, String instructions, String workflow, boolean destructive, String agent,
    List<String> fallback, List<ProjectCommand> verify, Changes changes, boolean changesGates) {
  public PhaseDef {
    Objects.requireNonNull(name, "name");
    fallback = fallback == null ? List.of() : List.copyOf(fallback);
    verify = verify == null ? null : List.copyOf(verify);
    changes = changes == null ? Changes.OPTIONAL : changes;
  }

  public PhaseDef(String name, String instructions, String workflow, boolean destructive, String agent,
      List<String> fallback, List<ProjectCommand> verify, Changes changes) {
    this(name, instructions, workflow, destructive, agent, fallback, verify, changes, false);
  }

  public PhaseDef(String name, String instructions, String workflow, boolean destructive, String agent,
      List<String> fallback) {
    this(name, instructions, workflow, destructive, agent, fallback, null, Changes.OPTIONAL);
  }

  /** A phase run by its pipeline's agent profile. */
  public PhaseDef(String name, String instructions, String workflow, boolean destructive) {
    this(name, instructions, workflow, destructive, null, List.of());
  }

  /** This phase with its own gates and rule on changes. */
  public PhaseDef withVerify(List<ProjectCommand> gates, Changes rule) {
    return new PhaseDef(name, instructions, workflow, destructive, agent, fallback, gates, rule, changesGates);
  }

  /** This phase, allowed ({@code true}) or not to change the files its gates run ({@code changes_gates:}). */
  public PhaseDef withChangesGates(boolean allowed) {
    return new PhaseDef(name, instructions, workflow, destructive, agent, fallback, verify, changes, allowed);
  }

  /** {@code changes:} of a phase. */
  public enum Changes {
    /** An attempt that reports success without changing the worktree fails as {@code no_changes}. */
    REQUIRED,
    /** A phase may succeed without changing anything (a review, a plan). The default. */
    OPTIONAL;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }
}
