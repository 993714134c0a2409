package dev.orchestrate.scheduler;

import static dev.orchestrate.item.ItemStatus.BLOCKED;
import static dev.orchestrate.item.ItemStatus.DONE;
import static dev.orchestrate.item.ItemStatus.IN_PROGRESS;
import static dev.orchestrate.item.ItemStatus.READY;
import static dev.orchestrate.item.ItemStatus.SCOPING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.outcome.AgentResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Many rounds of select, apply and finish jobs, checking the limits after every round. */
class SelectionSimulationTest {

  private static void assertLimits(SelectionWorld w, List<Action> actions) {
    assertTrue(w.running.size() <= w.maxConcurrent, "running " + w.running.size());
    long inProgress = w.count(IN_PROGRESS);
    assertTrue(inProgress <= w.maxWip, "in_progress " + inProgress);
    long waiting = w.count(SCOPING) + w.count(READY);
    assertTrue(inProgress + waiting <= w.maxWip + w.maxConcurrent, "active " + (inProgress + waiting));
    if (w.running.containsValue(true)) {
      assertEquals(1, w.running.size(), "a destructive phase runs alone: " + w.running);
    }
    Set<String> started = new HashSet<>();
    for (Action a : actions) {
      if (a instanceof Action.RunPhase) {
        assertTrue(started.add(a.itemId()), "two jobs for " + a.itemId());
      }
    }
  }

  @Test
  void two_thousand_items_at_max_wip_2_and_max_concurrent_2_all_finish_within_the_limits() {
    SelectionWorld w = new SelectionWorld(2, 2);
    Priority[] priorities = Priority.values();
    for (int i = 0; i < 2_000; i++) {
      String pipeline = i % 7 == 0 ? "direct" : i % 50 == 0 ? "deploy" : "feature";
      w.add(SelectionWorld.definition(String.format("WRK-%04d", i), pipeline, priorities[i % 3], List.of(), List.of()),
          ItemStatus.NEW, null);
    }
    int rounds = 0;
    int jobs = 0;
    while (w.count(DONE) < 2_000) {
      assertTrue(++rounds < 20_000, "stuck after " + rounds + " rounds, " + w.count(DONE) + " done");
      List<Action> actions = w.step();
      jobs += (int) actions.stream().filter(a -> a instanceof Action.RunPhase).count();
      assertLimits(w, actions);
      assertFalse(w.running.isEmpty(), "nothing runs and not everything is done");
      w.complete(w.oldestRunning()); // one job ends per round, oldest first
    }
    assertEquals(List.of(), w.select());
    assertTrue(jobs >= 2_000 * 2, "jobs " + jobs);
  }

  @Test
  void random_backlogs_with_dependencies_failures_and_destructive_phases_keep_every_rule() {
    for (long seed = 1; seed <= 40; seed++) {
      Random random = new Random(seed);
      SelectionWorld w = new SelectionWorld(1 + random.nextInt(3), 1 + random.nextInt(4));
      int n = 20 + random.nextInt(60);
      String[] pipelines = {"feature", "direct", "deploy"};
      for (int i = 0; i < n; i++) {
        List<String> deps = new ArrayList<>();
        if (i > 0 && random.nextInt(3) == 0) {
          deps.add("I" + random.nextInt(i));
        }
        w.add(SelectionWorld.definition("I" + i, pipelines[random.nextInt(3)],
            Priority.values()[random.nextInt(3)], deps, List.of()), ItemStatus.NEW, null);
      }
      simulate(w, random, seed);
    }
  }

  private static void simulate(SelectionWorld w, Random random, long seed) {
    for (int round = 0; round < 10_000; round++) {
      List<Action> actions = w.step();
      assertLimits(w, actions);
      for (Action a : actions) {
        for (String dep : w.state(a.itemId()).definition().dependsOn()) {
          assertEquals(DONE, w.status(dep), "seed " + seed + ": " + a + " with an unmet dependency");
        }
      }
      if (w.running.isEmpty()) {
        assertTrue(actions.isEmpty(), "seed " + seed + ": status actions only, yet nothing runs");
        for (ItemState item : w.items.values()) {
          boolean finished = item.status() == DONE || item.status() == BLOCKED;
          assertTrue(finished || heldByBlocked(w, item.id(), new HashSet<>()),
              "seed " + seed + ": " + item.id() + " is " + item.status().key() + " and not held");
        }
        return;
      }
      // A random running job ends; one in ten fails for good.
      List<String> ids = List.copyOf(w.running.keySet());
      String id = ids.get(random.nextInt(ids.size()));
      w.finish(id, random.nextInt(10) == 0 ? AgentResult.FAILED : AgentResult.PHASE_COMPLETE);
    }
    throw new AssertionError("seed " + seed + ": did not settle");
  }

  private static boolean heldByBlocked(SelectionWorld w, String id, Set<String> seen) {
    if (!seen.add(id)) {
      return false;
    }
    for (String dep : w.state(id).definition().dependsOn()) {
      if (w.status(dep) == BLOCKED || heldByBlocked(w, dep, seen)) {
        return true;
      }
    }
    return false;
  }
}
