package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.Priority;

import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A session's items by id, in backlog order, with what action selection needs kept up to date on
 * every change, so that a decision never walks the whole backlog (issue 33). Every write to the
 * items goes through {@link #put}, {@link #remove} or {@link #clear} (the views are read-only),
 * and each one updates:
 * <ul>
 *   <li>for each item, how many of its dependencies are not done (an unknown id counts), and for
 *       each id, the items that depend on it: an item becoming done, or no longer done, adjusts
 *       its dependents' counts;
 *   <li>the listed items that could be promoted or taken into scoping but for a running job: ready
 *       ones, new ones of a pipeline without pre-phases, new ones of a pipeline with pre-phases,
 *       each ordered by priority then backlog order, holding only those whose dependencies are
 *       all done and that the filter's {@code --only} criteria admit;
 *   <li>the items in a phase (scoping or in progress), and the listed, unfinished items whose
 *       pipeline the config no longer has ({@link #orphans}).
 * </ul>
 *
 * <p>{@link #frontier} then hands {@link ActionSelection} only the items its decision can depend on:
 * every item in a phase or running, every prerequisite of an item in progress, and the first few
 * of each ordered set. Why that is exact: promotions beyond {@code maxWip} go only to
 * prerequisites, and the others are a prefix, in rank order, of the promotable items that are not
 * prerequisites, at most {@code maxWip} long (both of the conditions that skip one stay true for
 * every later one); the count of ready items that decides whether new items may be taken into
 * scoping matters only up to {@code maxConcurrent}, and the new items with pre-phases ranked
 * before an item matter only up to {@code maxWip} (they are WIP slots kept) and
 * {@code maxConcurrent} (those taken into scoping). So the first {@code maxWip + maxConcurrent}
 * ready items, the first {@code maxWip} new ones without pre-phases and the first
 * {@code max(maxWip, maxConcurrent)} new ones with pre-phases (running and elsewhere ones, and
 * prerequisites, not counted) decide as the whole backlog does. With {@code --target}, only the
 * current target's scope is admitted: the frontier is that scope. {@code SelectionIndexTest}
 * checks the result against a full scan over random backlogs and changes.
 *
 * <p>Owned by the scheduler thread, like the rest of a session's state; not thread-safe.
 */
final class SelectionIndex extends AbstractMap<String, ItemState> {
  /** Priority (high first), then backlog order; the id only makes equal seqs distinct. */
  private static final Comparator<ItemState> RANK = Comparator
      .comparing((ItemState i) -> i.definition().priority()).thenComparingLong(ItemState::seq)
      .thenComparing(ItemState::id);

  private final Map<String, ItemState> items = new LinkedHashMap<>();
  private final Map<String, ItemState> view = Collections.unmodifiableMap(items);
  /** Item id → how many entries of its depends_on are not done (unknown ids included); absent for none. */
  private final Map<String, Integer> unmet = new HashMap<>();
  /** Dependency id → the items whose depends_on names it, with how many times. */
  private final Map<String, Map<String, Integer>> dependents = new HashMap<>();
  /** Items scoping or in progress, listed or not. */
  private final Set<String> inPhases = new HashSet<>();
  private final NavigableSet<ItemState> ready = new TreeSet<>(RANK);
  /** New items of a pipeline without pre-phases. */
  private final NavigableSet<ItemState> direct = new TreeSet<>(RANK);
  /** New items of a pipeline with pre-phases. */
  private final NavigableSet<ItemState> scoped = new TreeSet<>(RANK);
  private final Set<String> orphans = new HashSet<>();
  /**
   * The landing items (the merge queue), each with the number of its turn: the order in which they
   * became landing in this run (after a restart, backlog order). Kept by every writer, whatever the
   * filter: the queue lands what is done, listed or not.
   */
  private final Map<String, Turn> landing = new HashMap<>();
  private final NavigableSet<Turn> landingOrder = new TreeSet<>();
  private long landingTurns;

  /** An item's place in the merge queue: its priority, then the turn it took as it became landing. */
  private record Turn(Priority priority, long turn, String id) implements Comparable<Turn> {
    @Override
    public int compareTo(Turn o) {
      int c = priority.compareTo(o.priority);
      return c != 0 ? c : Long.compare(turn, o.turn);
    }
  }
  /** Pipeline name → whether it has pre-phases, as the sets were filed under; null: none filed yet. */
  private Map<String, Boolean> prePhases;
  /** The filter the sets were filed under. */
  private ItemFilter filter = ItemFilter.ALL;

  @Override
  public ItemState get(Object id) {
    return items.get(id);
  }

  @Override
  public boolean containsKey(Object id) {
    return items.containsKey(id);
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public Set<Entry<String, ItemState>> entrySet() {
    return view.entrySet();
  }

  @Override
  public Set<String> keySet() {
    return view.keySet();
  }

  @Override
  public Collection<ItemState> values() {
    return view.values();
  }

  @Override
  public ItemState put(String id, ItemState item) {
    Objects.requireNonNull(item, "item");
    if (!item.id().equals(id)) {
      throw new IllegalArgumentException("item " + item.id() + " put under id " + id);
    }
    ItemState old = items.put(id, item);
    if (old != null) {
      unfile(old);
    }
    queue(item);
    boolean wasDone = old != null && old.status() == ItemStatus.DONE;
    boolean done = item.status() == ItemStatus.DONE;
    if (wasDone != done) {
      releaseDependents(id, done ? -1 : 1);
    }
    if (old == null || !old.definition().dependsOn().equals(item.definition().dependsOn())) {
      if (old != null) {
        unlink(old);
      }
      link(item);
    }
    file(item);
    return old;
  }

  @Override
  public ItemState remove(Object id) {
    ItemState old = items.remove(id);
    if (old == null) {
      return null;
    }
    unfile(old);
    dequeue(old.id());
    if (old.status() == ItemStatus.DONE) {
      releaseDependents(old.id(), 1);
    }
    unlink(old);
    unmet.remove(old.id());
    return old;
  }

  @Override
  public void clear() {
    items.clear();
    landing.clear();
    landingOrder.clear();
    unmet.clear();
    dependents.clear();
    unfileAll();
    prePhases = null;
  }

  /**
   * Replaces every item with {@code all} (in backlog order) at once: what {@link #clear} then a
   * {@link #put} of each would leave, in time linear in the items (a run's start over a million
   * items). The sets are filed at the next {@link #frontier} or {@link #orphans}, when the
   * pipelines are known.
   */
  void load(Collection<ItemState> all) {
    clear();
    for (ItemState item : all) {
      if (items.put(item.id(), item) != null) {
        throw new IllegalArgumentException("item " + item.id() + " given twice");
      }
      queue(item);
    }
    for (ItemState item : all) {
      if (!item.definition().dependsOn().isEmpty()) {
        link(item);
      }
    }
  }

  /**
   * Keeps the merge queue: an item that becomes landing takes the next turn, one that stops leaves,
   * one whose priority was edited keeps its turn at its new priority.
   */
  private void queue(ItemState item) {
    boolean is = item.status() == ItemStatus.LANDING;
    Turn turn = landing.get(item.id());
    if (!is) {
      dequeue(item.id());
    } else if (turn == null) {
      enqueue(new Turn(item.definition().priority(), ++landingTurns, item.id()));
    } else if (turn.priority() != item.definition().priority()) {
      dequeue(item.id());
      enqueue(new Turn(item.definition().priority(), turn.turn(), item.id()));
    }
  }

  private void enqueue(Turn turn) {
    landing.put(turn.id(), turn);
    landingOrder.add(turn);
  }

  private void dequeue(String id) {
    Turn turn = landing.remove(id);
    if (turn != null) {
      landingOrder.remove(turn);
    }
  }

  /**
   * The merge queue: the landing items in the order they land, by priority (high first), then by
   * readiness (the turn each took as it became landing; after a restart, backlog order).
   */
  /** The ids of the items running their phases (in_progress, scoping): a few, bounded by the WIP. */
  Set<String> inPhases() {
    return java.util.Collections.unmodifiableSet(inPhases);
  }

  List<ItemState> landingQueue() {
    List<ItemState> out = new ArrayList<>(landingOrder.size());
    landingOrder.forEach(turn -> out.add(items.get(turn.id())));
    return out;
  }

  /**
   * The listed, unfinished items whose pipeline is not in {@code pipelines}, in backlog order
   * (usually none: follow-ups of a pipeline the config has dropped since).
   */
  List<ItemState> orphans(Map<String, Pipeline> pipelines, ItemFilter filter) {
    sync(pipelines, filter);
    List<ItemState> out = new ArrayList<>();
    for (String id : orphans) {
      out.add(items.get(id));
    }
    out.sort(Comparator.comparingLong(ItemState::seq));
    return out;
  }

  /**
   * The snapshot of one round: the items {@link ActionSelection} needs (see the class comment)
   * and the rest of what it decides from. Select with {@link ActionSelection#select(Snapshot, Map)}
   * and this map.
   */
  Snapshot frontier(Map<String, Pipeline> pipelines, int maxWip, int maxConcurrent, Map<String, Boolean> running,
      ItemFilter filter, Set<String> elsewhere) {
    sync(pipelines, filter);
    Map<String, ItemState> out = new HashMap<>();
    for (String id : inPhases) {
      out.put(id, items.get(id));
    }
    for (String id : running.keySet()) {
      add(out, id);
    }
    if (filter.hasTargets()) {
      for (String id : filter.targetScope(view).orElseThrow()) {
        add(out, id);
      }
    } else {
      Set<String> prerequisites = prerequisites();
      for (String id : prerequisites) {
        add(out, id);
      }
      take(ready, maxWip + maxConcurrent, prerequisites, running, elsewhere, out);
      take(direct, maxWip, prerequisites, running, elsewhere, out);
      take(scoped, Math.max(maxWip, maxConcurrent), Set.of(), running, elsewhere, out);
    }
    return new Snapshot(new ArrayList<>(out.values()), pipelines, maxWip, maxConcurrent, running, filter, elsewhere);
  }

  /** Adds the first {@code count} items of {@code ranked} that are not busy (those in {@code uncounted} aside). */
  private static void take(NavigableSet<ItemState> ranked, int count, Set<String> uncounted,
      Map<String, Boolean> running, Set<String> elsewhere, Map<String, ItemState> out) {
    int taken = 0;
    for (ItemState item : ranked) {
      if (taken >= count) {
        return;
      }
      if (running.containsKey(item.id()) || elsewhere.contains(item.id())) {
        continue;
      }
      out.put(item.id(), item);
      if (!uncounted.contains(item.id())) {
        taken++;
      }
    }
  }

  private void add(Map<String, ItemState> out, String id) {
    ItemState item = items.get(id);
    if (item != null) {
      out.put(id, item);
    }
  }

  /**
   * The unfinished items that items in progress wait on, directly or through other unfinished
   * items: a superset of the prerequisites selection lends WIP slots to (it counts only the held
   * items that hold WIP).
   */
  private Set<String> prerequisites() {
    Set<String> out = new LinkedHashSet<>();
    List<String> open = new ArrayList<>();
    for (String id : inPhases) {
      ItemState item = items.get(id);
      if (item.status() == ItemStatus.IN_PROGRESS && unmet.getOrDefault(id, 0) > 0) {
        open.addAll(item.definition().dependsOn());
      }
    }
    while (!open.isEmpty()) {
      String id = open.remove(open.size() - 1);
      ItemState dep = items.get(id);
      if (dep != null && !dep.status().isTerminal() && out.add(id)) {
        open.addAll(dep.definition().dependsOn());
      }
    }
    return out;
  }

  /**
   * Files every item again when the pipelines' shapes or the filter changed (once per run, as a
   * rule), in time linear in the items: each ranked set is built from its items in rank order.
   */
  private void sync(Map<String, Pipeline> pipelines, ItemFilter filter) {
    Map<String, Boolean> shapes = new HashMap<>();
    pipelines.forEach((name, p) -> shapes.put(name, !p.prePhases().isEmpty()));
    if (shapes.equals(prePhases) && filter == this.filter) {
      return;
    }
    prePhases = shapes;
    this.filter = filter;
    unfileAll();
    Ranked readyIn = new Ranked();
    Ranked directIn = new Ranked();
    Ranked scopedIn = new Ranked();
    for (ItemState item : items.values()) {
      NavigableSet<ItemState> ranked = place(item);
      if (ranked != null) {
        (ranked == ready ? readyIn : ranked == scoped ? scopedIn : directIn).add(item);
      }
    }
    ready.addAll(readyIn.sorted());
    direct.addAll(directIn.sorted());
    scoped.addAll(scopedIn.sorted());
  }

  private void unfileAll() {
    inPhases.clear();
    ready.clear();
    direct.clear();
    scoped.clear();
    orphans.clear();
  }

  /**
   * Items bound for a ranked set, in buckets by priority: items come in backlog order, so each
   * bucket is in rank order already as a rule (it is sorted when not), and the buckets in priority
   * order are the set's order. {@link #sorted} is a {@link SortedSet} of {@link #RANK}, which an
   * empty {@link TreeSet} of the same comparator takes in linear time.
   */
  private static final class Ranked {
    private final Map<Priority, List<ItemState>> buckets = new java.util.EnumMap<>(
        Priority.class);

    void add(ItemState item) {
      buckets.computeIfAbsent(item.definition().priority(), p -> new ArrayList<>()).add(item);
    }

    SortedSet<ItemState> sorted() {
      List<ItemState> all = new ArrayList<>();
      for (List<ItemState> bucket : buckets.values()) {
        for (int i = 1; i < bucket.size(); i++) {
          if (RANK.compare(bucket.get(i - 1), bucket.get(i)) >= 0) {
            bucket.sort(RANK);
            break;
          }
        }
        all.addAll(bucket);
      }
      return new SortedList(all);
    }
  }

  /** A list in {@link #RANK} order, without duplicates, seen as a sorted set (iteration and size). */
  private static final class SortedList extends java.util.AbstractSet<ItemState> implements SortedSet<ItemState> {
    private final List<ItemState> items;

    SortedList(List<ItemState> items) {
      this.items = items;
    }

    @Override
    public java.util.Iterator<ItemState> iterator() {
      return Collections.unmodifiableList(items).iterator();
    }

    @Override
    public int size() {
      return items.size();
    }

    @Override
    public Comparator<? super ItemState> comparator() {
      return RANK;
    }

    @Override
    public SortedSet<ItemState> subSet(ItemState from, ItemState to) {
      throw new UnsupportedOperationException();
    }

    @Override
    public SortedSet<ItemState> headSet(ItemState to) {
      throw new UnsupportedOperationException();
    }

    @Override
    public SortedSet<ItemState> tailSet(ItemState from) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ItemState first() {
      return items.get(0);
    }

    @Override
    public ItemState last() {
      return items.get(items.size() - 1);
    }
  }

  private void releaseDependents(String id, int delta) {
    Map<String, Integer> waiting = dependents.get(id);
    if (waiting == null) {
      return;
    }
    for (Map.Entry<String, Integer> e : waiting.entrySet()) {
      String dependent = e.getKey();
      ItemState item = items.get(dependent);
      boolean self = dependent.equals(id); // filed by put, after this
      if (!self) {
        unfile(item);
      }
      unmet.merge(dependent, delta * e.getValue(), SelectionIndex::sumOrNone);
      if (!self) {
        file(item);
      }
    }
  }

  private void link(ItemState item) {
    int count = 0;
    for (String dep : item.definition().dependsOn()) {
      dependents.computeIfAbsent(dep, d -> new HashMap<>()).merge(item.id(), 1, Integer::sum);
      ItemState d = items.get(dep);
      if (d == null || d.status() != ItemStatus.DONE) {
        count++;
      }
    }
    if (count > 0) {
      unmet.put(item.id(), count);
    } else {
      unmet.remove(item.id());
    }
  }

  /** Counts of zero are not kept: most items wait on nothing. */
  private static Integer sumOrNone(int a, int b) {
    return a + b == 0 ? null : a + b;
  }

  private void unlink(ItemState item) {
    for (String dep : item.definition().dependsOn()) {
      Map<String, Integer> waiting = dependents.get(dep);
      if (waiting != null && waiting.computeIfPresent(item.id(), (id, n) -> n == 1 ? null : n - 1) == null
          && waiting.isEmpty()) {
        dependents.remove(dep);
      }
    }
  }

  private void file(ItemState item) {
    if (prePhases == null) {
      return; // filed all at once at the next sync
    }
    NavigableSet<ItemState> ranked = place(item);
    if (ranked != null) {
      ranked.add(item);
    }
  }

  /**
   * Files {@code item} in {@link #inPhases} and {@link #orphans} where it belongs, and says which
   * ranked set it belongs in: {@link #ready}, {@link #direct}, {@link #scoped}, or null for none.
   */
  private NavigableSet<ItemState> place(ItemState item) {
    String id = item.id();
    ItemStatus status = item.status();
    if (status.isRunningPhases()) {
      inPhases.add(id);
    }
    if (!item.inBacklog() || status.isTerminal()) {
      return null;
    }
    Boolean pre = prePhases.get(item.definition().pipeline());
    if (pre == null) {
      orphans.add(id);
      return null;
    }
    if (unmet.getOrDefault(id, 0) > 0 || !filter.matches(item)) {
      return null;
    }
    if (status == ItemStatus.READY) {
      return ready;
    }
    if (status == ItemStatus.NEW) {
      return pre ? scoped : direct;
    }
    return null;
  }

  private void unfile(ItemState item) {
    inPhases.remove(item.id());
    orphans.remove(item.id());
    ready.remove(item);
    direct.remove(item);
    scoped.remove(item);
  }
}
