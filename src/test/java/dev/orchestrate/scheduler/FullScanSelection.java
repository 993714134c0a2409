package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Transitions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The oracle of {@link SelectionIndexTest}: action selection as it was before {@link SelectionIndex}
 * (issue 33), a full scan over every item of the snapshot, kept verbatim. {@link ActionSelection}'s
 * class comment is the contract both follow; production selects from a frontier of the items.
 */
final class FullScanSelection {
  private FullScanSelection() {
  }

  public static List<Action> select(Snapshot snapshot) {
    return new Round(snapshot).select();
  }

  /** The mutable working state of one call; never escapes it. */
  private static final class Round {
    private final Snapshot snapshot;
    private final Map<String, ItemState> original;
    /** States as they will be once the actions chosen so far are applied. */
    private final Map<String, ItemState> now;
    private final Set<String> admitted = new HashSet<>();
    private final List<Action> actions = new ArrayList<>();

    Round(Snapshot snapshot) {
      this.snapshot = snapshot;
      this.original = snapshot.byId();
      this.now = new LinkedHashMap<>(original);
      Predicate<ItemState> admission = snapshot.filter().admission(original);
      for (ItemState item : snapshot.items()) {
        if (admission.test(item)) {
          admitted.add(item.id());
        }
      }
    }

    List<Action> select() {
      repair();
      promote();
      fillSlots();
      return List.copyOf(actions);
    }

    private void repair() {
      for (ItemState item : List.copyOf(now.values())) {
        if (eligible(item) && item.status().isRunningPhases()
            && Transitions.currentPhase(item, pipeline(item)) == null) {
          apply(new Action.Realign(item.id()), Transitions.realign(item, pipeline(item)).next());
        }
      }
    }

    private void promote() {
      int wip = 0;
      List<ItemState> held = new ArrayList<>();
      for (ItemState item : now.values()) {
        if (item.inBacklog() && item.status() == ItemStatus.IN_PROGRESS
            && (busy(item) || admitted.contains(item.id()))) {
          wip++;
          if (waitsOnUnfinished(item)) {
            held.add(item);
          }
        }
      }
      Set<String> prerequisites = prerequisitesOf(held);
      if (wip >= snapshot.maxWip() && prerequisites.isEmpty()) {
        return;
      }
      List<ItemState> promotable = new ArrayList<>();
      for (ItemState item : now.values()) {
        boolean readyLike = item.status() == ItemStatus.READY
            || (item.status() == ItemStatus.NEW && pipeline(item) != null && pipeline(item).prePhases().isEmpty());
        if (readyLike && eligible(item)) {
          promotable.add(item);
        }
      }
      if (promotable.isEmpty()) {
        return;
      }
      promotable.sort(BY_PRIORITY_THEN_ORDER);
      List<ItemState> onTheirWay = onTheirWayToReady();
      int before = 0;
      int newBefore = 0;
      for (ItemState item : promotable) {
        while (before < onTheirWay.size() && BY_PRIORITY_THEN_ORDER.compare(onTheirWay.get(before), item) < 0) {
          newBefore += onTheirWay.get(before).status() == ItemStatus.NEW ? 1 : 0;
          before++;
        }
        int keptFromIt = item.status() == ItemStatus.NEW ? before : before - newBefore;
        // Beyond max_wip, only a held item's prerequisite, one per held item (it lends its slot).
        if (wip >= snapshot.maxWip()
            && (!prerequisites.contains(item.id()) || wip >= snapshot.maxWip() + held.size())) {
          continue;
        }
        // Pre-phases never jump the queue: each item ranked before this one that is still on
        // its way to ready keeps a WIP slot for when it gets there (see the class comment).
        if (wip + keptFromIt >= snapshot.maxWip() && !prerequisites.contains(item.id())) {
          continue;
        }
        ItemState ready = item;
        if (item.status() == ItemStatus.NEW) {
          ready = Transitions.advance(item, pipeline(item)).next();
          apply(new Action.Advance(item.id()), ready);
        }
        apply(new Action.Promote(item.id(), wip >= snapshot.maxWip()),
            Transitions.advance(ready, pipeline(ready)).next());
        wip++;
      }
    }

    /**
     * Items on their way to {@code ready} through their pre-phases, by priority then backlog
     * order: new (with pre-phases) and eligible, or scoping and eligible or running a pre-phase.
     * A new one keeps a WIP slot from the new items without pre-phases ranked after it, a scoping
     * one also from the ready items ranked after it. (A new one cannot hold ready items: it may
     * be waiting for a scoping slot that they take up, see {@link #newItems}.)
     */
    private List<ItemState> onTheirWayToReady() {
      // The snapshot keeps items in backlog order: one list per priority avoids a sort per round.
      Map<Priority, List<ItemState>> byPriority = new EnumMap<>(Priority.class);
      for (ItemState item : now.values()) {
        boolean scoping = item.status() == ItemStatus.SCOPING
            && (snapshot.running().containsKey(item.id()) || eligible(item));
        boolean newWithPrePhases = item.status() == ItemStatus.NEW && eligible(item)
            && pipeline(item) != null && !pipeline(item).prePhases().isEmpty();
        if (scoping || newWithPrePhases) {
          byPriority.computeIfAbsent(item.definition().priority(), p -> new ArrayList<>()).add(item);
        }
      }
      List<ItemState> out = new ArrayList<>();
      byPriority.values().forEach(out::addAll);
      return out;
    }

    /** Whether one of the item's dependencies is neither done nor blocked (so it may still be done). */
    private boolean waitsOnUnfinished(ItemState item) {
      for (String dep : item.definition().dependsOn()) {
        ItemState d = original.get(dep);
        if (d != null && !d.status().isTerminal()) {
          return true;
        }
      }
      return false;
    }

    /**
     * The unfinished items that the held items wait on, directly or through other unfinished
     * items. A held item keeps its WIP slot, and lends it to one of these at a time: without that,
     * a backlog edit giving an in_progress item a dependency on a ready item while WIP is full
     * would stall both for good. A blocked prerequisite cannot be promoted: it holds its dependents.
     */
    private Set<String> prerequisitesOf(List<ItemState> held) {
      Set<String> out = new HashSet<>();
      List<String> open = new ArrayList<>();
      for (ItemState item : held) {
        open.addAll(item.definition().dependsOn());
      }
      while (!open.isEmpty()) {
        String id = open.remove(open.size() - 1);
        ItemState dep = original.get(id);
        if (dep != null && !dep.status().isTerminal() && out.add(id)) {
          open.addAll(dep.definition().dependsOn());
        }
      }
      return out;
    }

    private void fillSlots() {
      int slots = snapshot.maxConcurrent() - snapshot.running().size();
      if (slots <= 0 || snapshot.running().containsValue(Boolean.TRUE)) {
        return;
      }
      List<Candidate> candidates = new ArrayList<>();
      candidates.addAll(inPhases(ItemStatus.IN_PROGRESS));
      candidates.addAll(inPhases(ItemStatus.SCOPING));
      candidates.addAll(newItems());

      for (Candidate c : candidates) {
        if (c.phase().destructive()) {
          if (snapshot.running().isEmpty()) {
            start(c);
          }
          return;
        }
      }
      for (Candidate c : candidates.subList(0, Math.min(slots, candidates.size()))) {
        start(c);
      }
    }

    /** Eligible items in {@code status}, furthest along first. */
    private List<Candidate> inPhases(ItemStatus status) {
      List<Candidate> out = new ArrayList<>();
      for (ItemState item : now.values()) {
        if (item.status() == status && eligible(item)) {
          Pipeline pipeline = pipeline(item);
          List<PhaseDef> stage = status == ItemStatus.SCOPING ? pipeline.prePhases() : pipeline.phases();
          PhaseDef phase = Transitions.currentPhase(item, pipeline);
          out.add(new Candidate(item, phase, stage.indexOf(phase)));
        }
      }
      out.sort(Comparator.comparingInt(Candidate::index).reversed()
          .thenComparing(Candidate::item, BY_PRIORITY_THEN_ORDER));
      return out;
    }

    /** New items that may be taken into scoping this round, by priority then backlog order. */
    private List<Candidate> newItems() {
      int waiting = 0;
      for (ItemState item : now.values()) {
        boolean scoping = item.status() == ItemStatus.SCOPING
            && (snapshot.running().containsKey(item.id()) || eligible(item));
        boolean ready = item.status() == ItemStatus.READY && eligible(item);
        if (scoping || ready) {
          waiting++;
        }
      }
      int room = snapshot.maxConcurrent() - waiting;
      List<Candidate> out = new ArrayList<>();
      if (room <= 0) {
        return out;
      }
      // Items are in backlog order already: one pass per priority avoids sorting every new item.
      Map<Priority, List<ItemState>> byPriority = new EnumMap<>(Priority.class);
      for (ItemState item : now.values()) {
        if (item.status() == ItemStatus.NEW && eligible(item) && !pipeline(item).prePhases().isEmpty()) {
          byPriority.computeIfAbsent(item.definition().priority(), p -> new ArrayList<>()).add(item);
        }
      }
      for (List<ItemState> items : byPriority.values()) {
        for (ItemState item : items) {
          if (out.size() == room) {
            return out;
          }
          out.add(new Candidate(item, pipeline(item).prePhases().get(0), 0));
        }
      }
      return out;
    }

    private void start(Candidate c) {
      ItemState item = c.item();
      if (item.status() == ItemStatus.NEW) {
        item = Transitions.advance(item, pipeline(item)).next();
        apply(new Action.Advance(item.id()), item);
      }
      actions.add(new Action.RunPhase(item.id(), c.phase().name(), c.phase().destructive()));
    }

    private void apply(Action action, ItemState next) {
      actions.add(action);
      now.put(next.id(), next);
    }

    /** Running a job here, or held by another runner. */
    private boolean busy(ItemState item) {
      return snapshot.running().containsKey(item.id()) || snapshot.elsewhere().contains(item.id());
    }

    private boolean eligible(ItemState item) {
      if (!item.inBacklog() || item.status().isTerminal() || busy(item) || !admitted.contains(item.id())) {
        return false;
      }
      for (String dep : item.definition().dependsOn()) {
        ItemState d = original.get(dep);
        if (d == null || d.status() != ItemStatus.DONE) {
          return false;
        }
      }
      return true;
    }

    private Pipeline pipeline(ItemState item) {
      return snapshot.pipelines().get(item.definition().pipeline());
    }
  }

  private static final Comparator<ItemState> BY_PRIORITY_THEN_ORDER = Comparator
      .comparing((ItemState i) -> i.definition().priority()).thenComparingLong(ItemState::seq);

  private record Candidate(ItemState item, PhaseDef phase, int index) {
  }
}
