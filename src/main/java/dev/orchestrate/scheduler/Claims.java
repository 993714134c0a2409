package dev.orchestrate.scheduler;

import dev.orchestrate.config.Config;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemRepository;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.jobs.AgentLauncher;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The claim protocol of a runner that shares its state with other runners ({@link ItemLeases}):
 * every action's item is claimed first, the items and the others' leases are read again every
 * {@link #REFRESH_MS} (sooner when a claim found an item changed), dead runners are taken over, and
 * what the others hold ({@link #elsewhere}) is what the run loop waits for rather than halts on.
 * With {@link ItemLeases#SOLE} every call is a no-op that lets everything through.
 *
 * <p>Used by the scheduler thread only, like the rest of a session's state.
 */
final class Claims {
  /** The run's log lines keep the category they always had (log configurations and tests name it). */
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  /**
   * How often a runner of a shared state reads the items and the other runners' leases again (and
   * takes dead runners over), at most: sooner when a claim found an item changed.
   */
  static final long REFRESH_MS = 250;
  /**
   * A periodic refresh waits at least this many times what the last one took: reading every item
   * again is O(items) (about a third of a second at 100,000 on PostgreSQL), so without it a large
   * shared backlog would keep the scheduler thread reading. A stale picture is read at once.
   */
  static final int REFRESH_SHARE = 10;

  private final ItemLeases leases;
  private final ItemRepository store;
  private final Config config;
  private final AgentLauncher launcher;
  private final RunListener listener;
  /** Items other runners hold, as of {@link #lastRefresh}. */
  private Set<String> elsewhere = Set.of();
  private long lastRefresh;
  /** How long the last refresh took, in nanoseconds. */
  private long lastRefreshTook;
  /** A claim or a wait says the items may have changed: read them again before the next round. */
  private boolean stale;
  /** The items whose claim was refused this round, and in the round before. */
  private Set<String> refused = new HashSet<>();
  private Set<String> refusedBefore = Set.of();
  /** A claim of this round found its item changed since it was read, or refused only by a row lock. */
  private boolean changed;
  /**
   * Since when (nanoTime) each item's claims have been refused only by a row lock, refusal after
   * refusal: past the lease timeout the lock is another connection's that stopped (a runner frozen
   * in a write), and the refusal counts as any other. Emptied when it reaches {@link #CAP}.
   */
  private final Map<String, Long> lockedSince = new HashMap<>();
  /** The most items {@link #lockedSince} keeps: claims are tried on the frontier's few items. */
  static final int CAP = 1_000;
  /** In {@link #lockedSince}: the lock outlasted the lease timeout, and that was said. */
  private static final long GAVE_UP = Long.MIN_VALUE;

  Claims(ItemLeases leases, ItemRepository store, Config config, AgentLauncher launcher, RunListener listener) {
    this.leases = leases;
    this.store = store;
    this.config = config;
    this.launcher = launcher;
    this.listener = listener;
  }

  /** Whether other runners may share the state (claims are needed). */
  boolean shared() {
    return leases.shared();
  }

  String runnerId() {
    return leases.runnerId();
  }

  /**
   * The first read of a run: dead runners are taken over first, so that their running jobs count as
   * interrupted. Returns how many jobs they had running.
   */
  int start() {
    ItemLeases.Refresh first = leases.refresh();
    int jobs = tookOver(first);
    elsewhere = first.heldElsewhere();
    lastRefresh = System.nanoTime();
    stale = false;
    return jobs;
  }

  /** Items other runners hold, as of the last read. */
  Set<String> elsewhere() {
    return elsewhere;
  }

  /** The items may have changed (a claim, a lost lease, a wait): read them again before the next round. */
  void markStale() {
    stale |= leases.shared();
  }

  /** A new round of actions: what its claims find is told by {@link #contradicted}. */
  void newRound() {
    refusedBefore = refused;
    refused = new HashSet<>();
    changed = false;
  }

  /**
   * Whether this round's claims contradicted the picture it was decided on: an item found changed,
   * a claim refused only by another runner's write of its row at that moment ({@link
   * ItemLeases#refusalWasTransient}), or a claim refused that was not refused in the round before.
   * A refresh reads the leases before the items, so an item another runner takes in between looks free here, and its claim is
   * refused: the run must read again rather than halt. The same refusal once more after a fresh
   * read is not news: the claim's WIP check across all runners (in-progress items nobody holds,
   * which this run's filter leaves out) refuses it, and waiting would change nothing.
   */
  boolean contradicted() {
    if (changed) {
      return true;
    }
    for (String id : refused) {
      if (!refusedBefore.contains(id)) {
        return true;
      }
    }
    return false;
  }

  /**
   * What a shared runner's halt for want of work was decided on, for its log: the remaining items
   * (none held by another runner, or it would wait), the items in progress in its picture against
   * {@code max_wip}, and the claims refused in this round as in the one before (up to ten named).
   */
  String haltPicture(List<String> remaining, Map<String, ItemState> items) {
    int inProgress = 0;
    for (ItemState item : items.values()) {
      if (item.inBacklog() && item.status() == ItemStatus.IN_PROGRESS) {
        inProgress++;
      }
    }
    List<String> again = refused.stream().sorted().toList();
    return remaining.size() + " item(s) remain, none held by another runner; " + inProgress
        + " in progress against max_wip " + config.execution().maxWip() + "; claims refused again after a fresh read: "
        + (again.isEmpty() ? "none" : String.join(", ", again.subList(0, Math.min(10, again.size())))
            + (again.size() > 10 ? " and " + (again.size() - 10) + " more" : ""));
  }

  /** Releases every item this runner holds (the end of its run). */
  void releaseAll() {
    leases.releaseAll();
  }

  /**
   * The WIP limit this runner selects under: {@code max_wip}, and when runners share the state,
   * no more than the items in progress elsewhere plus this runner's {@code max_concurrent}, so that
   * a runner takes into progress only what it can run and leaves the rest of the WIP to the
   * others (the claim still checks {@code max_wip} across all runners).
   */
  int wipLimit(Map<String, ItemState> items) {
    int maxWip = config.execution().maxWip();
    if (!leases.shared()) {
      return maxWip;
    }
    int inProgressElsewhere = 0;
    for (String id : elsewhere) {
      ItemState item = items.get(id);
      if (item != null && item.inBacklog() && item.status() == ItemStatus.IN_PROGRESS) {
        inProgressElsewhere++;
      }
    }
    return Math.max(1, Math.min(maxWip, inProgressElsewhere + config.execution().maxConcurrent()));
  }

  /**
   * Claims the item of {@code action} when the state is shared, and says whether the action may go
   * on: not when another runner holds the item, when its promotion would take WIP across all
   * runners beyond {@code max_wip}, or when the item changed since this runner read it (then the
   * fresh state is taken in, and the next round decides again).
   */
  boolean claim(Map<String, ItemState> items, Action action) {
    String id = action.itemId();
    int wipLimit = action instanceof Action.Promote p && !p.lent() ? config.execution().maxWip() : 0;
    if (!leases.shared() || (wipLimit == 0 && leases.holds(id))) {
      return true;
    }
    Optional<ItemState> fresh = leases.claim(id, wipLimit);
    if (fresh.isEmpty()) {
      refused.add(id);
      // refused for a row lock of a write beside it, the item free: no picture to halt on
      changed |= lockedForAMoment(id);
      stale = true;
      return false;
    }
    lockedSince.remove(id);
    if (!fresh.get().equals(items.get(id))) {
      items.put(id, fresh.get());
      if (!fresh.get().status().isRunningPhases()) {
        leases.release(id);
      }
      changed = true;
      stale = true;
      return false;
    }
    return true;
  }

  /**
   * Whether the refused claim of {@code id} was refused only by a row lock, and not for longer than
   * the lease timeout: a lock held that long is a stopped writer's, which the run must not wait on
   * for ever (it is said once, and the refusal counts as a lease's).
   */
  private boolean lockedForAMoment(String id) {
    if (!leases.refusalWasTransient()) {
      lockedSince.remove(id);
      return false;
    }
    if (lockedSince.size() >= CAP) {
      lockedSince.clear();
    }
    long now = System.nanoTime();
    Long since = lockedSince.get(id);
    if (since == null) {
      lockedSince.put(id, now);
      return true;
    }
    if (since == GAVE_UP) {
      return false;
    }
    if (now - since <= config.state().leaseTimeout().toNanos()) {
      return true;
    }
    lockedSince.put(id, GAVE_UP);
    log.warn("{}: its row has stayed locked by another connection for more than {} s (state.lease_timeout);"
        + " this runner takes the item for held", id, config.state().leaseTimeout().toSeconds());
    return false;
  }

  /**
   * The time between two periodic refreshes: {@link #REFRESH_MS}, or {@link #REFRESH_SHARE} times
   * what the last one took when that is longer, so that periodic reads take at most about a tenth
   * of the scheduler thread whatever the backlog holds.
   */
  static long refreshIntervalNanos(long lastTookNanos) {
    return Math.max(TimeUnit.MILLISECONDS.toNanos(REFRESH_MS), REFRESH_SHARE * lastTookNanos);
  }

  /**
   * Reads the items and the other runners' leases again, when the state is shared: at most every
   * {@link #refreshIntervalNanos}, at once after a claim found something changed (or before a
   * halt). Dead runners are taken over here (their agents left on this host are stopped).
   */
  void refresh(Map<String, ItemState> items, Map<String, Boolean> running) {
    if (!leases.shared()
        || (!stale && System.nanoTime() - lastRefresh < refreshIntervalNanos(lastRefreshTook))) {
      return;
    }
    long began = System.nanoTime();
    ItemLeases.Refresh refresh = leases.refresh();
    tookOver(refresh);
    elsewhere = refresh.heldElsewhere();
    lastRefresh = System.nanoTime();
    stale = false;
    for (ItemState item : store.items()) {
      ItemState known = items.get(item.id());
      if (known == null) {
        items.put(item.id(), item);
        listener.itemAdded(item);
      } else if (!known.equals(item) && !running.containsKey(item.id())) {
        items.put(item.id(), item);
        if (known.status() != item.status()) {
          listener.statusChanged(known, item);
        }
      }
    }
    lastRefreshTook = System.nanoTime() - began;
  }

  /** Stops what taken-over runners of this host left running; returns how many jobs they had running. */
  private int tookOver(ItemLeases.Refresh refresh) {
    int jobs = 0;
    for (ItemLeases.DeadRunner dead : refresh.takenOver()) {
      log.warn("runner {} stopped renewing its heartbeat: took over its {} item(s), its {} running job(s) are"
          + " interrupted and re-run", dead.id(), dead.items(), dead.jobs());
      if (dead.sameHost()) {
        launcher.stopLeftovers(dead.logs(), dead.id(), config.agent().killGrace());
      }
      jobs += dead.jobs();
    }
    return jobs;
  }

  /** Whether another runner holds an unfinished item this run may work on (it waits for them, then). */
  boolean othersWorkOn(List<String> remaining) {
    if (!leases.shared()) {
      return false;
    }
    for (String id : remaining) {
      if (elsewhere.contains(id)) {
        return true;
      }
    }
    return false;
  }
}
