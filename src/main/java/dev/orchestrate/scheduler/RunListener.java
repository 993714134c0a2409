package dev.orchestrate.scheduler;

import dev.orchestrate.jobs.AgentOutcome;

/** Progress callbacks for the user interface; called on the scheduler thread. */
public interface RunListener {
  RunListener NONE = new RunListener() {
  };

  default void jobStarted(ItemState item, String phase, int attempt) {
  }

  default void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
  }

  default void statusChanged(ItemState before, ItemState after) {
  }

  /** A follow-up an agent reported became a new item (see {@link ItemState#origin()}). */
  default void itemAdded(ItemState item) {
  }
}
