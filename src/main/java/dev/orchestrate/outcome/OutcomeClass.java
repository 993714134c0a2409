package dev.orchestrate.outcome;

import java.util.Locale;

/**
 * How an attempt ended, as the class that decides what happens next (docs/agents.md, "Outcome
 * classes"): never the exit code alone. An agent's own failure is retried with feedback and
 * counted; a provider's limit is waited out and never counted; a refused key halts the run
 * without blocking anything.
 */
public enum OutcomeClass {
  /** The phase (or subphase) is complete. */
  SUCCEEDED,
  /** The agent's work failed: retried with the failure in the next prompt, counted. */
  FAILED,
  /** The agent reported success, but a {@code verify:} gate failed: retried with the gate's output, counted. */
  VERIFY_FAILED,
  /** The agent reported success without changing the worktree of a {@code changes: required} phase: counted. */
  NO_CHANGES,
  /**
   * The agent reported success having changed a file its gates run (or a {@code verify_protected}
   * path) in a phase that may not ({@code changes_gates}): its work is not kept; retried with the
   * list of files, counted.
   */
  PROTECTED_CHANGED,
  /** The agent reported it is blocked and needs a person (or the worktree's set-up failed). */
  BLOCKED,
  /** The account's usage quota is spent: the agent profile pauses until its reset. */
  USAGE_LIMIT,
  /** A transient 429/529 or overload the CLI gave up on: retried with backoff, not counted. */
  RATE_LIMITED,
  /** An invalid or revoked key, an exhausted credit balance or a plan that forbids this use: the run halts. */
  AUTH,
  /**
   * The agent's own sandbox could not start its commands (Codex's bubblewrap): no work could be done,
   * and none will until the machine or the agent's flags change. The run halts; not counted.
   */
  SANDBOX,
  /** Permission denials stopped the work (Claude Code's permission_denials). */
  DENIED,
  /**
   * The agent's own budget flag ended it (Claude Code's {@code --max-budget-usd}: an
   * {@code error_max_budget_usd} result, {@code terminal_reason: budget_exhausted}): a cut, not the
   * agent's failure. Not counted, never blocks; the item keeps its place and the phase runs again
   * when the run's budget lets a job start.
   */
  BUDGET_EXHAUSTED,
  /** No output for agent.stall_timeout. */
  STALLED,
  /** Past agent.timeout. */
  TIMED_OUT,
  /** Stopped by Ctrl-C or a cancel. */
  CANCELLED,
  /** The program could not be started. */
  SPAWN_FAILED;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The agent's provider answered, whatever orchestrate made of the answer (a red gate, no changes,
   * a denial, a budget cut included: the model answered every turn it was asked): a pause of its
   * profile that began before is over. Not so for a stall, a timeout, a cancel, a failed start or a
   * limit.
   */
  public boolean providerAnswered() {
    return switch (this) {
      case SUCCEEDED, FAILED, VERIFY_FAILED, NO_CHANGES, PROTECTED_CHANGED, BLOCKED, DENIED, BUDGET_EXHAUSTED -> true;
      default -> false;
    };
  }

  /** A provider's limit: costs no retry, no phase of the cap, no step of the circuit breaker, and never blocks. */
  public boolean isLimit() {
    return this == USAGE_LIMIT || this == RATE_LIMITED;
  }

  /**
   * An attempt that is not held against its phase: no attempt counted towards {@code max_retries},
   * no step of the circuit breaker, never a block. A provider's limit ({@link #isLimit()}, which
   * also costs no phase of the cap and pauses the profile) and a cut by the agent's own budget flag
   * ({@link #BUDGET_EXHAUSTED}, which did spend, so it counts in the cap).
   */
  public boolean uncounted() {
    return isLimit() || this == BUDGET_EXHAUSTED;
  }

  /** The class named by {@code key}, or null for a key this version does not know (a newer state). */
  public static OutcomeClass of(String key) {
    if (key == null) {
      return null;
    }
    for (OutcomeClass c : values()) {
      if (c.key().equals(key)) {
        return c;
      }
    }
    return null;
  }
}
