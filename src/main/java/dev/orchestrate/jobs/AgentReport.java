package dev.orchestrate.jobs;

import dev.orchestrate.outcome.ProviderFailure;
import dev.orchestrate.outcome.Usage;
import java.util.Objects;

/**
 * What a preset's agent said about its own attempt, read from its machine-readable stdout.
 *
 * @param usage     tokens and cost it reported; {@link Usage#UNKNOWN} when it reported none
 * @param finalText its final answer, null when it gave none
 * @param error     the agent's own error message when it says the attempt failed (an error
 *                  result, a failed turn, a budget or turn limit hit), else null
 * @param provider  its provider ended the attempt (a limit, a refused key, denials), else null
 */
record AgentReport(Usage usage, String finalText, String error, ProviderFailure provider) {
  static final AgentReport NONE = new AgentReport(Usage.UNKNOWN, null, null);

  public AgentReport {
    Objects.requireNonNull(usage, "usage");
  }

  AgentReport(Usage usage, String finalText, String error) {
    this(usage, finalText, error, null);
  }

  boolean failed() {
    return error != null;
  }
}
