package dev.orchestrate.outcome;

import java.util.Locale;
import java.util.Optional;

/** The four results an agent can report (docs/agents.md). */
public enum AgentResult {
  PHASE_COMPLETE, SUBPHASE_COMPLETE, FAILED, BLOCKED;

  /** The wire spelling, e.g. {@code phase_complete}. */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<AgentResult> parse(String text) {
    for (AgentResult r : values()) {
      if (r.key().equals(text)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }
}
