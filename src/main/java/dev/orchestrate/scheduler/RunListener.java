package dev.orchestrate.scheduler;

import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.SyncResult;

import dev.orchestrate.outcome.AgentOutcome;
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

  /** The run is recorded in the state as run {@code runId} (before {@link #runStarted}). */
  default void runRecorded(long runId) {
  }

  default void jobStarted(ItemState item, String phase, int attempt) {
  }

  /**
   * {@link #jobStarted(ItemState, String, int)} with the agent profile that runs the attempt
   * ({@code profile}: the config's name for it, a fallback's while the first choice is paused). By
   * default the profile is dropped.
   */
  default void jobStarted(ItemState item, String phase, int attempt, String profile) {
    jobStarted(item, phase, attempt);
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
   * A provider's limit paused agent profile {@code profile} ({@code pause}: why and until when);
   * called with {@link #providerLimit}, which says it in words.
   */
  default void profilePaused(AgentPauses.Pause pause) {
  }

  /**
   * A pause an earlier run (or another runner) recorded is in force as this run starts:
   * {@code message} says which profile, until when and what the run does meanwhile. By default told
   * as a limit met now ({@link #providerLimit}, then {@link #profilePaused}); a listener that
   * announces pauses elsewhere (notifications) overrides it, so that one pause is announced once.
   */
  default void pausedAtStart(AgentPauses.Pause pause, String message) {
    providerLimit(message);
    profilePaused(pause);
  }

  /** An attempt of {@code profile} started after its pause got through: the pause is over. */
  default void pauseEnded(String profile) {
  }

  /**
   * A budget crossed a warning threshold ({@link Budget#WARN_AT}): {@code message} says which, with
   * the flag or key that set it and what was spent. Once per budget and threshold.
   */
  default void budgetWarning(String message) {
  }

  /**
   * {@link #budgetWarning(String)} with the budget it is about ({@code budget}: the flag or key that
   * set it, and its window's start for a window) and the threshold crossed (80 or 95). By default
   * the message alone.
   */
  default void budgetWarning(String budget, int percent, String message) {
    budgetWarning(message);
  }

  /**
   * The run has nothing to start but something to wait for (checks, the merge queue, a paused agent
   * profile, another runner): what, and until when when that is known. Said when it changes, and at
   * least once a minute while it lasts.
   */
  default void waiting(String what) {
  }

  /**
   * Both listeners, {@code first} then {@code second}, told everything: a run's progress and
   * whatever else listens (the notifications).
   */
  static RunListener both(RunListener first, RunListener second) {
    return new RunListener() {
      @Override
      public void runStarted(List<ItemState> items, ItemFilter filter) {
        first.runStarted(items, filter);
        second.runStarted(items, filter);
      }

      @Override
      public void runRecorded(long runId) {
        first.runRecorded(runId);
        second.runRecorded(runId);
      }

      @Override
      public void jobStarted(ItemState item, String phase, int attempt) {
        first.jobStarted(item, phase, attempt);
        second.jobStarted(item, phase, attempt);
      }

      @Override
      public void jobStarted(ItemState item, String phase, int attempt, String profile) {
        first.jobStarted(item, phase, attempt, profile);
        second.jobStarted(item, phase, attempt, profile);
      }

      @Override
      public void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
        first.jobFinished(before, after, outcome);
        second.jobFinished(before, after, outcome);
      }

      @Override
      public void statusChanged(ItemState before, ItemState after) {
        first.statusChanged(before, after);
        second.statusChanged(before, after);
      }

      @Override
      public void itemAdded(ItemState item) {
        first.itemAdded(item);
        second.itemAdded(item);
      }

      @Override
      public void backlogReloaded(SyncResult changes) {
        first.backlogReloaded(changes);
        second.backlogReloaded(changes);
      }

      @Override
      public void backlogRejected(List<Problem> problems) {
        first.backlogRejected(problems);
        second.backlogRejected(problems);
      }

      @Override
      public void providerLimit(String message) {
        first.providerLimit(message);
        second.providerLimit(message);
      }

      @Override
      public void profilePaused(AgentPauses.Pause pause) {
        first.profilePaused(pause);
        second.profilePaused(pause);
      }

      @Override
      public void pausedAtStart(AgentPauses.Pause pause, String message) {
        first.pausedAtStart(pause, message);
        second.pausedAtStart(pause, message);
      }

      @Override
      public void pauseEnded(String profile) {
        first.pauseEnded(profile);
        second.pauseEnded(profile);
      }

      @Override
      public void budgetWarning(String message) {
        first.budgetWarning(message);
        second.budgetWarning(message);
      }

      @Override
      public void budgetWarning(String budget, int percent, String message) {
        first.budgetWarning(budget, percent, message);
        second.budgetWarning(budget, percent, message);
      }

      @Override
      public void waiting(String what) {
        first.waiting(what);
        second.waiting(what);
      }
    };
  }
}
