package dev.orchestrate.jobs;

import dev.orchestrate.outcome.AgentOutcome;

import java.util.concurrent.CompletionStage;

/** A started attempt, as the scheduler sees it. Safe to share between threads. */
public interface AgentHandle {
  /** Completes once, with the attempt's outcome, on whichever thread saw it end. */
  CompletionStage<AgentOutcome> finished();

  /**
   * Stops the attempt (TERM, then KILL after the grace period); returns at once. Calling it again
   * during the grace period kills at once; after the attempt is over it does nothing.
   */
  void cancel();
}
