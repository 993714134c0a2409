package dev.orchestrate.item;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which runner works on which item, when several runners share one state (PostgreSQL). A runner
 * claims an item before it changes it and holds it while the item runs phases (scoping,
 * in_progress); the store releases it at each transition out of those (ready, done, blocked) and
 * at the end of the run. Every write to a held item is conditional on the version the claim read,
 * so a runner whose lease was taken over can never overwrite the new holder's progress: the write
 * fails with {@link LeaseLostException} instead.
 *
 * <p>A state with one runner at a time (SQLite, under its run lease) has {@link #SOLE}: the one
 * run holds every item, nothing is claimed.
 */
public interface ItemLeases {
  /** One runner at a time: every item is this run's. */
  ItemLeases SOLE = new ItemLeases() {
    @Override
    public boolean shared() {
      return false;
    }

    @Override
    public String runnerId() {
      return null;
    }

    @Override
    public Refresh refresh() {
      return Refresh.NONE;
    }

    @Override
    public boolean holds(String itemId) {
      return true;
    }

    @Override
    public Optional<ItemState> claim(String itemId, int wipLimit) {
      throw new UnsupportedOperationException("one runner at a time holds every item");
    }

    @Override
    public void release(String itemId) {
    }

    @Override
    public void releaseAll() {
    }
  };

  /** Whether several runners may share the state (claims are needed). */
  boolean shared();

  /** This runner's id ({@code host:pid:start-ms}), or null under {@link #SOLE}. */
  String runnerId();

  /**
   * Takes over the runners whose heartbeat is older than the lease timeout (their running jobs are
   * recorded as interrupted, their items released, to be claimed again and their interrupted
   * phases re-run as after a {@code kill -9}), then reads which items the other live runners hold.
   */
  Refresh refresh();

  /** Whether this runner holds the item now (as of its last claim, write or refresh). */
  boolean holds(String itemId);

  /**
   * Claims the item for this runner (again, when it holds it already) and returns it as stored
   * now; empty when another live runner holds it. With {@code wipLimit} above 0 the claim also
   * needs fewer than that many other items in progress across all runners (ready items being
   * promoted count), so that {@code max_wip} holds for the whole backlog; 0 checks nothing.
   */
  Optional<ItemState> claim(String itemId, int wipLimit);

  /**
   * Whether the last claim that was refused found, read again without a lock, its item free (or
   * this runner's) and within the WIP limit it was asked under: a claim never waits for a row, so
   * another runner's write of the item at that moment refuses it too, and that refusal says nothing
   * about who holds the item or how full the WIP is. A run then reads again rather than halting on it.
   */
  default boolean refusalWasTransient() {
    return false;
  }

  /** Releases the item, if this runner holds it. */
  void release(String itemId);

  /** Releases every item this runner holds (the end of its run). */
  void releaseAll();

  /**
   * What a refresh found.
   *
   * @param heldElsewhere the items other live runners hold
   * @param takenOver     the dead runners this refresh took over
   */
  record Refresh(Set<String> heldElsewhere, List<DeadRunner> takenOver) {
    public static final Refresh NONE = new Refresh(Set.of(), List.of());

    public Refresh {
      heldElsewhere = Set.copyOf(heldElsewhere);
      takenOver = List.copyOf(takenOver);
    }
  }

  /**
   * A runner taken over.
   *
   * @param id           its id
   * @param host         the host it ran on
   * @param logs         its job log directory, on that host
   * @param jobs         its running jobs, now recorded as interrupted
   * @param items        the items it held, now released
   * @param sameHost     whether it ran on this runner's host (its leftover agents can be stopped)
   */
  record DeadRunner(String id, String host, Path logs, int jobs, int items, boolean sameHost) {
  }
}
