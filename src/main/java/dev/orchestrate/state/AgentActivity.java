package dev.orchestrate.state;

import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the agent profiles did, as {@code orchestrate agents} shows it: their spend over a window and
 * their last outcomes, read from the jobs each profile ran (every runner's). Read-only, on the
 * store's connection.
 */
public interface AgentActivity {
  /**
   * One ended job of a profile: its id, item and phase, its outcome class and when it ended.
   */
  record Outcome(long jobId, String itemId, String phase, OutcomeClass outcome, Instant endedAt) {
    public Outcome {
      java.util.Objects.requireNonNull(outcome, "outcome");
    }
  }

  /**
   * The usage of the jobs that ended at or after {@code since}, summed per agent profile (jobs
   * recorded without one, before schema 10, are left out); unknown figures stay null. Jobs retention
   * pruned are not counted, as in a budget window's spend.
   */
  Map<String, Usage> usageSince(Instant since);

  /**
   * The outcome classes of the {@code limit} most recently started jobs of {@code profile} that
   * have one (ended), newest first: read through an index, so its cost is {@code limit} rows
   * however many jobs the state keeps.
   */
  List<Outcome> recentOutcomes(String profile, int limit);
}
