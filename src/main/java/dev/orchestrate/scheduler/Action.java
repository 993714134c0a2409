package dev.orchestrate.scheduler;

import dev.orchestrate.item.Transitions;

import java.util.Objects;

/**
 * One decision of {@link ActionSelection}. The run loop applies the actions of a round in list
 * order: an item's status actions ({@link Realign}, {@link Advance}, {@link Promote}) always come
 * before its {@link RunPhase}, which names the phase the item is at once they are applied.
 */
public sealed interface Action permits Action.Realign, Action.Advance, Action.Promote, Action.RunPhase {
  String itemId();

  /** The item's phase no longer exists in its pipeline: {@link Transitions#realign} restarts its stage. */
  record Realign(String itemId) implements Action {
    public Realign {
      Objects.requireNonNull(itemId, "itemId");
    }
  }

  /** {@code new → scoping} (first pre-phase), or {@code new → ready} when the pipeline has no pre-phases. */
  record Advance(String itemId) implements Action {
    public Advance {
      Objects.requireNonNull(itemId, "itemId");
    }
  }

  /**
   * {@code ready → in_progress} at the first phase.
   *
   * @param lent whether WIP is full and the item takes the slot a held item lends its
   *             prerequisite (so a cross-runner WIP check must not refuse it)
   */
  record Promote(String itemId, boolean lent) implements Action {
    public Promote {
      Objects.requireNonNull(itemId, "itemId");
    }

    public Promote(String itemId) {
      this(itemId, false);
    }
  }

  /** Start a job for the item's current phase (or pre-phase). */
  record RunPhase(String itemId, String phase, boolean destructive) implements Action {
    public RunPhase {
      Objects.requireNonNull(itemId, "itemId");
      Objects.requireNonNull(phase, "phase");
    }
  }
}
