package dev.orchestrate.item;

import dev.orchestrate.outcome.Usage;
import java.time.Instant;
import java.util.Optional;

/**
 * The runs of the state: a run's start and end, and what it spent and notified, for {@code stats}. Part of the run's port, {@link StateRepository}: each method is one transaction.
 */
public interface RunRepository {

  /** The most recent run session, if any. */
  Optional<RunRecord> lastRun();

  /** Records the start of a run session and returns its id. */
  long runStarted(Instant now, long pid);

  /** Records the end of a run session. */
  default void runEnded(long runId, Instant now, String haltReason) {
    runEnded(runId, now, haltReason, RunFigures.NONE);
  }

  /** Records the end of a run session with the figures of its in-memory structures. */
  void runEnded(long runId, Instant now, String haltReason, RunFigures figures);

  /**
   * Records what a run spent (the usage its agents reported) and the budget it ran under (null:
   * no limit), for {@code stats}. Written at its end, before {@link #runEnded}.
   */
  default void runSpend(long runId, Usage spend, Double maxCostUsd, Long maxTokens) {
  }

  /**
   * Records what the run's notifications came to (docs/notifications.md), for {@code stats}:
   * documents delivered, failed after their retries, and lost (dropped from a full queue or left
   * when the run ended); {@code lastError} is the last failure's text, masked (null: none).
   */
  default void runNotified(long runId, long delivered, long failed, long lost, String lastError) {
  }
}
