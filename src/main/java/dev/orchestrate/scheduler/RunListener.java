package dev.orchestrate.scheduler;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.SyncResult;

import dev.orchestrate.jobs.AgentOutcome;
import dev.orchestrate.yaml.Problem;
import java.util.List;

/** Progress callbacks for the user interface; called on the scheduler thread. */
public interface RunListener {
  RunListener NONE = new RunListener() {
  };

  /**
   * The backlog is loaded into the state and the run begins: {@code items} are every stored item,
   * {@code filter} is what the run works on (its {@code --only} statuses as of now).
   */
  default void runStarted(List<ItemState> items, ItemFilter filter) {
  }

  default void jobStarted(ItemState item, String phase, int attempt) {
  }

  default void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
  }

  default void statusChanged(ItemState before, ItemState after) {
  }

  /** A follow-up an agent reported became a new item (see {@link ItemState#origin()}). */
  default void itemAdded(ItemState item) {
  }

  /** The backlog file changed during the run and the new version was synced into the state. */
  default void backlogReloaded(SyncResult changes) {
  }

  /** The backlog file changed during the run but is invalid (or gone); the run goes on without it. */
  default void backlogRejected(List<Problem> problems) {
  }

  /**
   * A provider's limit paused an agent profile or halts the run: {@code message} says which, why
   * and until when ("claude paused until 03:00 (UTC), usage limit").
   */
  default void providerLimit(String message) {
  }

  /**
   * A budget crossed a warning threshold ({@link Budget#WARN_AT}): {@code message} says which, with
   * the flag or key that set it and what was spent. Once per budget and threshold.
   */
  default void budgetWarning(String message) {
  }
}
