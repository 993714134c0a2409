package dev.orchestrate.scheduler;

import java.util.Locale;

/** Why a run stopped. */
public enum HaltReason {
  ALL_DONE("every item is done or blocked"), WAITING_ON_BLOCKED(
      "the remaining items wait on blocked items (or on items this run leaves out)"), PHASE_CAP(
          "the phase cap was reached"), TARGETS_DONE("every target is done or blocked"), CIRCUIT_BREAKER(
              "the circuit breaker tripped: too many items in a row exhausted their retries"), BUDGET(
                  "the budget was reached: no more jobs fit within it"), USAGE_LIMIT(
                      "an agent's usage limit was reached"), AGENT_AUTH(
                          "an agent's provider refused its key, its billing or its plan"), AGENT_SANDBOX(
                              "an agent's own sandbox could not start its commands"), INTERRUPTED(
                                  "interrupted");

  private final String description;

  HaltReason(String description) {
    this.description = description;
  }

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public String description() {
    return description;
  }
}
