package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory stand-in for the run loop, for selection tests: it holds the items, the running
 * jobs (in start order), applies actions through {@link Transitions} and finishes jobs on demand.
 */
final class SelectionWorld {
  /** scope | design, build, review */
  static final Pipeline FEATURE = pipeline("feature", List.of("scope"), List.of("design", "build", "review"));
  /** (no pre-phases) | build */
  static final Pipeline DIRECT = pipeline("direct", List.of(), List.of("build"));
  /** scope | build, deploy! */
  static final Pipeline DEPLOY = new Pipeline("deploy", List.of(phase("scope", false)),
      List.of(phase("build", false), phase("deploy", true)));

  /** The items, indexed as a run session's are: selection goes through its frontier. */
  final SelectionIndex items = new SelectionIndex();
  final Map<String, Pipeline> pipelines = new HashMap<>();
  /** item id → destructive, in start order. */
  final Map<String, Boolean> running = new LinkedHashMap<>();
  int maxWip;
  int maxConcurrent;
  ItemFilter filter = ItemFilter.ALL;
  private long seq;

  SelectionWorld(int maxWip, int maxConcurrent) {
    this.maxWip = maxWip;
    this.maxConcurrent = maxConcurrent;
    for (Pipeline p : List.of(FEATURE, DIRECT, DEPLOY)) {
      pipelines.put(p.name(), p);
    }
  }

  static PhaseDef phase(String name, boolean destructive) {
    return new PhaseDef(name, "Do " + name + ".", null, destructive);
  }

  static Pipeline pipeline(String name, List<String> pre, List<String> phases) {
    return new Pipeline(name, pre.stream().map(n -> phase(n, false)).toList(),
        phases.stream().map(n -> phase(n, false)).toList());
  }

  static BacklogItem definition(String id, String pipeline, Priority priority, List<String> deps, List<String> tags) {
    return new BacklogItem(id, "Title of " + id, pipeline, priority, deps, tags, "", InitialStatus.NEW);
  }

  /** A new item of the feature pipeline, medium priority. */
  SelectionWorld add(String id, String... deps) {
    return add(definition(id, "feature", Priority.MEDIUM, List.of(deps), List.of()), ItemStatus.NEW, null);
  }

  SelectionWorld add(String id, String pipeline, Priority priority, ItemStatus status, String phase, String... deps) {
    return add(definition(id, pipeline, priority, List.of(deps), List.of()), status, phase);
  }

  SelectionWorld add(BacklogItem definition, ItemStatus status, String phase) {
    Progress progress = switch (status) {
      case BLOCKED -> Progress.blocked(ItemStatus.IN_PROGRESS, phase, "test");
      case SCOPING, IN_PROGRESS -> Progress.of(ItemStatus.NEW).atPhase(status, phase);
      default -> Progress.of(status);
    };
    items.put(definition.id(), new ItemState(definition, ++seq, true, progress));
    return this;
  }

  SelectionWorld unlisted(String id) {
    ItemState s = items.get(id);
    items.put(id, new ItemState(s.definition(), s.seq(), false, s.progress()));
    return this;
  }

  SelectionWorld running(String id, boolean destructive) {
    running.put(id, destructive);
    return this;
  }

  ItemState state(String id) {
    return items.get(id);
  }

  ItemStatus status(String id) {
    return items.get(id).status();
  }

  Snapshot snapshot() {
    return new Snapshot(new ArrayList<>(items.values()), pipelines, maxWip, maxConcurrent, running, filter);
  }

  /** What production selects (from the index's frontier), checked against the full scan of every item. */
  List<Action> select() {
    List<Action> actions = ActionSelection.select(
        items.frontier(pipelines, maxWip, maxConcurrent, running, filter, java.util.Set.of()), items);
    assertEquals(ActionSelection.select(snapshot()), actions, "the frontier decides as the full scan does");
    return actions;
  }

  /** Selects and applies; returns what was applied. */
  List<Action> step() {
    List<Action> actions = select();
    apply(actions);
    return actions;
  }

  void apply(List<Action> actions) {
    for (Action a : actions) {
      ItemState item = items.get(a.itemId());
      Pipeline p = pipelines.get(item.definition().pipeline());
      assertFalse(running.containsKey(a.itemId()), "an action for running item " + a.itemId() + ": " + a);
      if (a instanceof Action.Realign) {
        items.put(item.id(), Transitions.realign(item, p).next());
      } else if (a instanceof Action.Advance || a instanceof Action.Promote) {
        ItemState next = Transitions.advance(item, p).next();
        assertEquals(a instanceof Action.Promote, next.status() == ItemStatus.IN_PROGRESS, a.toString());
        items.put(item.id(), next);
      } else if (a instanceof Action.RunPhase run) {
        PhaseDef phase = Transitions.currentPhase(item, p);
        assertEquals(phase.name(), run.phase(), "the phase the item is at");
        assertEquals(phase.destructive(), run.destructive());
        running.put(item.id(), run.destructive());
      }
    }
  }

  void complete(String id) {
    finish(id, AgentResult.PHASE_COMPLETE);
  }

  void finish(String id, AgentResult result) {
    if (running.remove(id) == null) {
      throw new IllegalStateException(id + " is not running");
    }
    ItemState item = items.get(id);
    items.put(id, Transitions.afterAttempt(item, pipelines.get(item.definition().pipeline()),
        Fixtures.outcome(result, "did " + item.progress().phase(), "why"), 0).next());
  }

  /** The id of the job started first among those running. */
  String oldestRunning() {
    return running.keySet().iterator().next();
  }

  long count(ItemStatus status) {
    return items.values().stream().filter(i -> i.status() == status).count();
  }
}
