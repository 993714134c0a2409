package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.testing.Fixtures;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link SelectionIndex}: selection from its frontier returns exactly what the full scan of every
 * item returns ({@link ActionSelection#select(Snapshot)} over a snapshot of all the items: the
 * same rules over the whole backlog, as selection was before the index), over random backlogs and
 * random sequences of transitions and backlog edits applied to the index, and the frontier stays
 * small.
 */
class SelectionIndexTest {
  private static final Pipeline FEATURE = SelectionWorld.FEATURE;
  private static final Pipeline DIRECT = SelectionWorld.DIRECT;
  private static final Pipeline DEPLOY = SelectionWorld.DEPLOY;
  /** (no pre-phases) | wipe! */
  private static final Pipeline WIPE = new Pipeline("wipe", List.of(), List.of(SelectionWorld.phase("wipe", true)));
  private static final Map<String, Pipeline> PIPELINES = Map.of(FEATURE.name(), FEATURE, DIRECT.name(), DIRECT,
      DEPLOY.name(), DEPLOY, WIPE.name(), WIPE);
  private static final List<String> NAMES = List.of(FEATURE.name(), DIRECT.name(), DEPLOY.name(), WIPE.name());
  private static final int SEEDS = 400;
  private static final int STEPS = 40;

  @Test
  void selection_from_the_frontier_is_the_full_scan_over_random_backlogs_and_changes() {
    for (long seed = 1; seed <= SEEDS; seed++) {
      try {
        new Run(new Random(seed)).check();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * A load files its ranked sets in rank order even when the items do not come in backlog order:
   * each priority's bucket is sorted then (items come in backlog order as a rule, and are taken as
   * they are).
   */
  @Test
  void a_load_ranks_items_given_out_of_backlog_order() {
    List<ItemState> items = new ArrayList<>();
    long[] seqs = {5, 3, 9, 1, 7, 2, 8, 4, 6};
    Priority[] priorities = {Priority.LOW, Priority.MEDIUM, Priority.HIGH};
    for (int i = 0; i < seqs.length; i++) {
      items.add(new ItemState(definition("I" + seqs[i], "direct", priorities[i % 3], List.of(), List.of()), seqs[i],
          true, Progress.of(ItemStatus.READY)));
    }
    SelectionIndex index = new SelectionIndex();
    index.load(items);
    Snapshot frontier = index.frontier(PIPELINES, 2, 1, Map.of(), ItemFilter.ALL, Set.of());
    List<Action> picked = ActionSelection.select(frontier, index);
    assertEquals(ActionSelection.select(new Snapshot(items, PIPELINES, 2, 1, Map.of())), picked);
    assertEquals(List.of("I2", "I6"), picked.stream().map(Action::itemId).distinct().toList(),
        "the high ones (given as 9, 2, 6), in backlog order: " + picked);
  }

  @Test
  void the_frontier_of_a_large_backlog_is_bounded_by_max_wip_and_max_concurrent() {
    SelectionIndex index = new SelectionIndex();
    long seq = 0;
    for (int i = 0; i < 20_000; i++) {
      Progress progress = Progress.of(i % 2 == 0 ? ItemStatus.READY : ItemStatus.NEW);
      String pipeline = NAMES.get(i % 3);
      List<String> deps = i % 5 == 0 ? List.of("I" + (i + 1)) : List.of();
      index.put("I" + i, new ItemState(definition("I" + i, pipeline, Priority.MEDIUM, deps, List.of()), ++seq,
          true, progress));
    }
    for (int i = 0; i < 20_000; i += 7) {
      ItemState done = index.get("I" + i);
      index.put(done.id(), done.with(Progress.of(ItemStatus.DONE)));
    }
    Snapshot frontier = index.frontier(PIPELINES, 3, 2, Map.of(), ItemFilter.ALL, Set.of());
    // the first 3 + 2 ready, 3 new without pre-phases, max(3, 2) new with pre-phases
    assertEquals(11, frontier.items().size(), frontier.items().toString());
    assertEquals(ActionSelection.select(new Snapshot(new ArrayList<>(index.values()), PIPELINES, 3, 2, Map.of())),
        ActionSelection.select(frontier, index));
  }

  @Test
  void orphans_are_the_listed_unfinished_items_of_a_pipeline_the_config_lacks_in_backlog_order() {
    SelectionIndex index = new SelectionIndex();
    index.put("B", new ItemState(definition("B", "gone", Priority.HIGH, List.of(), List.of()), 2, true,
        Progress.of(ItemStatus.READY)));
    index.put("A", new ItemState(definition("A", "gone", Priority.LOW, List.of(), List.of()), 1, true,
        Progress.of(ItemStatus.NEW)));
    index.put("C", new ItemState(definition("C", "gone", Priority.LOW, List.of(), List.of()), 3, true,
        Progress.of(ItemStatus.DONE)));
    index.put("D", new ItemState(definition("D", "gone", Priority.LOW, List.of(), List.of()), 4, false,
        Progress.of(ItemStatus.NEW)));
    index.put("E", new ItemState(definition("E", "direct", Priority.LOW, List.of(), List.of()), 5, true,
        Progress.of(ItemStatus.NEW)));
    assertEquals(List.of("A", "B"), index.orphans(PIPELINES, ItemFilter.ALL).stream().map(ItemState::id).toList());
    index.remove("A");
    assertEquals(List.of("B"), index.orphans(PIPELINES, ItemFilter.ALL).stream().map(ItemState::id).toList());
  }

  @Test
  void the_items_change_only_through_the_index() {
    SelectionIndex index = new SelectionIndex();
    index.put("A", new ItemState(definition("A", "direct", Priority.LOW, List.of(), List.of()), 1, true,
        Progress.of(ItemStatus.NEW)));
    assertThrows(UnsupportedOperationException.class, () -> index.values().clear());
    assertThrows(UnsupportedOperationException.class, () -> index.entrySet().iterator().next().setValue(null));
    assertThrows(IllegalArgumentException.class, () -> index.put("B", index.get("A")));
  }

  static BacklogItem definition(String id, String pipeline, Priority priority, List<String> deps, List<String> tags) {
    return new BacklogItem(id, "Title of " + id, pipeline, priority, deps, tags, "", InitialStatus.NEW);
  }

  /** One random backlog and its changes, on the index and on a plain map side by side. */
  private static final class Run {
    private final Random r;
    private final SelectionIndex index = new SelectionIndex();
    private final Map<String, ItemState> truth = new LinkedHashMap<>();
    private final Map<String, Boolean> running = new LinkedHashMap<>();
    private Set<String> elsewhere = new HashSet<>();
    private ItemFilter filter = ItemFilter.ALL;
    private int maxWip;
    private int maxConcurrent;
    private long seq;
    private int ids;

    Run(Random r) {
      this.r = r;
    }

    void check() {
      int n = r.nextBoolean() ? 20 + r.nextInt(80) : 100 + r.nextInt(300);
      for (int i = 0; i < n; i++) {
        put(randomItem(newId(), randomStatus()));
      }
      for (ItemState item : truth.values()) {
        if (item.status().isRunningPhases() && r.nextInt(3) == 0 && phase(item) != null) {
          running.put(item.id(), phase(item).destructive());
        }
      }
      shuffleElsewhere();
      maxWip = 1 + r.nextInt(8);
      maxConcurrent = 1 + r.nextInt(6);
      filter = randomFilter().asOfRunStart(truth.values());
      for (int step = 0; step < STEPS; step++) {
        List<Action> expected = ActionSelection.select(new Snapshot(new ArrayList<>(truth.values()), PIPELINES,
            maxWip, maxConcurrent, running, filter, elsewhere));
        Snapshot frontier = index.frontier(PIPELINES, maxWip, maxConcurrent, running, filter, elsewhere);
        List<Action> actual = ActionSelection.select(frontier, index);
        assertEquals(expected, actual, "step " + step + " (max_wip " + maxWip + ", max_concurrent "
            + maxConcurrent + ", filter " + filter.criteria() + " " + filter.targets() + ")");
        // The index kept up to date change by change is the one built afresh from the same items.
        SelectionIndex fresh = new SelectionIndex();
        fresh.putAll(truth);
        assertEquals(fresh.frontier(PIPELINES, maxWip, maxConcurrent, running, filter, elsewhere).items(),
            frontier.items(), "step " + step + ": the frontier");
        // So is one loaded at once (a run's start, a backlog reload), filed at its first frontier.
        SelectionIndex loaded = new SelectionIndex();
        loaded.load(truth.values());
        assertEquals(frontier.items(), loaded.frontier(PIPELINES, maxWip, maxConcurrent, running, filter, elsewhere)
            .items(), "step " + step + ": the frontier of a loaded index");
        apply(expected);
        if (r.nextInt(5) == 0) {
          index.load(List.copyOf(truth.values())); // and kept up to date change by change from there
        }
        for (int c = 1 + r.nextInt(4); c > 0; c--) {
          change();
        }
      }
      assertEquals(List.copyOf(truth.values()), List.copyOf(index.values()), "the same items in the same order");
    }

    private void apply(List<Action> actions) {
      for (Action a : actions) {
        ItemState item = truth.get(a.itemId());
        Pipeline p = PIPELINES.get(item.definition().pipeline());
        if (a instanceof Action.Realign) {
          put(Transitions.realign(item, p).next());
        } else if (a instanceof Action.Advance || a instanceof Action.Promote) {
          put(Transitions.advance(item, p).next());
        } else if (a instanceof Action.RunPhase run) {
          running.put(item.id(), run.destructive());
        }
      }
    }

    private void change() {
      List<String> known = new ArrayList<>(truth.keySet());
      String id = known.get(r.nextInt(known.size()));
      ItemState item = truth.get(id);
      switch (r.nextInt(13)) {
        case 0, 1, 2 -> finishAJob();
        case 3, 12 -> { // an operator's or an integration's status change
          if (!running.containsKey(id)) {
            put(item.with(progress(randomStatus(), item.definition().pipeline())));
          }
        }
        case 4 -> put(randomItem(newId(), r.nextBoolean() ? ItemStatus.NEW : randomStatus())); // a follow-up
        case 5 -> { // gone from the state
          if (!running.containsKey(id)) {
            truth.remove(id);
            index.remove(id);
          }
        }
        case 6 -> put(new ItemState(item.definition(), item.seq(), !item.inBacklog(), item.progress()));
        case 7 -> put(new ItemState(redefine(item.definition(), randomDeps(), item.definition().priority()),
            item.seq(), item.inBacklog(), item.progress()));
        case 8 -> put(new ItemState(redefine(item.definition(), item.definition().dependsOn(), randomPriority()),
            item.seq(), item.inBacklog(), item.progress()));
        case 9 -> shuffleElsewhere();
        case 10 -> {
          maxWip = 1 + r.nextInt(8);
          maxConcurrent = 1 + r.nextInt(6);
        }
        default -> {
          if (r.nextInt(4) == 0) {
            filter = randomFilter().asOfRunStart(truth.values());
          } else {
            finishAJob();
          }
        }
      }
    }

    private void finishAJob() {
      if (running.isEmpty()) {
        return;
      }
      List<String> ids = new ArrayList<>(running.keySet());
      String id = ids.get(r.nextInt(ids.size()));
      running.remove(id);
      ItemState item = truth.get(id);
      if (item == null || !item.status().isRunningPhases() || phase(item) == null) {
        return;
      }
      AgentResult result = switch (r.nextInt(6)) {
        case 0 -> AgentResult.FAILED;
        case 1 -> AgentResult.BLOCKED;
        default -> AgentResult.PHASE_COMPLETE;
      };
      put(Transitions.afterAttempt(item, PIPELINES.get(item.definition().pipeline()),
          Fixtures.outcome(result, "did " + item.progress().phase(), "why"), r.nextInt(2)).next());
    }

    private void put(ItemState item) {
      truth.put(item.id(), item);
      index.put(item.id(), item);
    }

    private String newId() {
      return "I" + ids++;
    }

    private ItemState randomItem(String id, ItemStatus status) {
      String pipeline = NAMES.get(r.nextInt(NAMES.size()));
      List<String> tags = r.nextBoolean() ? List.of("x") : List.of("y");
      return new ItemState(definition(id, pipeline, randomPriority(), randomDeps(), tags), ++seq, r.nextInt(12) != 0,
          progress(status, pipeline));
    }

    private Progress progress(ItemStatus status, String pipelineName) {
      Pipeline pipeline = PIPELINES.get(pipelineName);
      return switch (status) {
        case BLOCKED -> Progress.blocked(ItemStatus.IN_PROGRESS, pipeline.phases().get(0).name(), "test");
        case SCOPING -> pipeline.prePhases().isEmpty() ? Progress.of(ItemStatus.READY)
            : Progress.of(ItemStatus.NEW).atPhase(status, randomPhase(pipeline.prePhases()));
        case IN_PROGRESS -> Progress.of(ItemStatus.READY).atPhase(status, randomPhase(pipeline.phases()));
        default -> Progress.of(status);
      };
    }

    /** A phase of the list, or now and then one the pipeline no longer has (to be realigned). */
    private String randomPhase(List<PhaseDef> phases) {
      return r.nextInt(10) == 0 ? "gone" : phases.get(r.nextInt(phases.size())).name();
    }

    private PhaseDef phase(ItemState item) {
      return Transitions.currentPhase(item, PIPELINES.get(item.definition().pipeline()));
    }

    private ItemStatus randomStatus() {
      int x = r.nextInt(100);
      if (x < 35) {
        return ItemStatus.NEW;
      } else if (x < 55) {
        return ItemStatus.READY;
      } else if (x < 60) {
        return ItemStatus.SCOPING;
      } else if (x < 70) {
        return ItemStatus.IN_PROGRESS;
      } else if (x < 90) {
        return ItemStatus.DONE;
      } else if (x < 95) {
        return ItemStatus.BLOCKED;
      } else if (x < 98) {
        return ItemStatus.AWAITING_REVIEW;
      }
      return ItemStatus.AWAITING_CHECKS;
    }

    private Priority randomPriority() {
      return Priority.values()[r.nextInt(Priority.values().length)];
    }

    /** Earlier and later items (chains), a few items many depend on, ids not yet added, unknown ids. */
    private List<String> randomDeps() {
      List<String> deps = new ArrayList<>();
      for (int k = r.nextBoolean() ? 1 + r.nextInt(3) : 0; k > 0; k--) {
        int x = r.nextInt(10);
        deps.add(x == 0 ? "U" + r.nextInt(5) : x < 4 ? "I" + r.nextInt(8) : "I" + r.nextInt(ids + (x == 4 ? 20 : 1)));
      }
      return deps;
    }

    private ItemFilter randomFilter() {
      int x = r.nextInt(10);
      List<String> known = new ArrayList<>(truth.keySet());
      if (x < 5) {
        return ItemFilter.ALL;
      } else if (x < 6) {
        return ItemFilter.parse(List.of("priority=high,medium"), List.of());
      } else if (x < 7) {
        return ItemFilter.parse(List.of("tag=x"), List.of());
      } else if (x < 8) {
        return ItemFilter.parse(List.of("status=new,ready,in_progress"), List.of());
      } else if (x < 9) {
        return ItemFilter.parse(List.of(), List.of(known.get(r.nextInt(known.size()))));
      }
      return ItemFilter.parse(List.of("tag=x"),
          List.of(known.get(r.nextInt(known.size())), known.get(r.nextInt(known.size()))));
    }

    private void shuffleElsewhere() {
      elsewhere = new HashSet<>();
      List<String> known = new ArrayList<>(truth.keySet());
      for (int k = r.nextInt(4); k > 0; k--) {
        String id = known.get(r.nextInt(known.size()));
        if (!running.containsKey(id)) {
          elsewhere.add(id);
        }
      }
    }

    private static BacklogItem redefine(BacklogItem d, List<String> deps, Priority priority) {
      return new BacklogItem(d.id(), d.title(), d.pipeline(), priority, deps, d.tags(), d.description(),
          d.initialStatus());
    }
  }
}
