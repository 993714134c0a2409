package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanTest {
  /** design, build (destructive) */
  private static final Pipeline P = new Pipeline("feature", List.of(),
      List.of(phase("design"), new PhaseDef("build", "Build.", null, true)));

  private static List<ItemState> fresh(BacklogItem... items) {
    return Plan.preview(List.of(), List.of(items));
  }

  private static List<String> waves(Plan plan) {
    List<String> out = new ArrayList<>();
    for (Plan.PlanStep step : plan.steps()) {
      out.add(step.wave() + " " + step.itemId() + " " + step.phase());
    }
    return out;
  }

  @Test
  void parallel_phases_share_a_wave_and_a_destructive_phase_runs_alone() {
    Plan plan = Plan.simulate(fresh(item("A"), item("B")), Map.of("feature", P), 2, 2, ItemFilter.ALL, 100);
    assertEquals(List.of("1 A design", "1 B design", "2 A build", "3 B build"), waves(plan));
    assertTrue(plan.untouched().isEmpty());
    assertFalse(plan.capped());
  }

  @Test
  void the_cap_cuts_the_plan_and_says_so() {
    Plan plan = Plan.simulate(fresh(item("A"), item("B")), Map.of("feature", P), 1, 1, ItemFilter.ALL, 3);
    assertEquals(3, plan.steps().size());
    assertTrue(plan.capped());
    assertEquals(List.of("B"), plan.untouched());
  }

  @Test
  void a_blocked_dependency_holds_its_dependents_out_of_the_plan() {
    Plan plan = Plan.simulate(fresh(item("A", InitialStatus.BLOCKED), item("B", "A"), item("C")),
        Map.of("feature", P), 1, 1, ItemFilter.ALL, 100);
    assertEquals(List.of("1 C design", "2 C build"), waves(plan));
    assertEquals(List.of("B"), plan.untouched());
  }

  @Test
  void preview_keeps_stored_progress_appends_new_items_and_unlists_vanished_ones() {
    ItemState stored = new ItemState(item("A"), 1, true,
        new Progress(ItemStatus.IN_PROGRESS, "build", 1, null, null, "err", "s", null));
    ItemState gone = new ItemState(item("Z"), 2, true, Progress.of(ItemStatus.NEW));
    List<ItemState> items = Plan.preview(List.of(stored, gone), List.of(item("A"), item("B")));
    assertEquals(List.of("A", "Z", "B"), items.stream().map(ItemState::id).toList());
    assertEquals(ItemStatus.IN_PROGRESS, items.get(0).status());
    assertFalse(items.get(1).inBacklog());
    assertEquals(3, items.get(2).seq());
    Plan plan = Plan.simulate(items, Map.of("feature", P), 1, 1, ItemFilter.ALL, 100);
    assertEquals(List.of("1 A build", "2 B design", "3 B build"), waves(plan));
  }
}
