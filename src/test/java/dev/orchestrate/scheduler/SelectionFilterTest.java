package dev.orchestrate.scheduler;

import static dev.orchestrate.item.ItemStatus.DONE;
import static dev.orchestrate.item.ItemStatus.IN_PROGRESS;
import static dev.orchestrate.item.ItemStatus.NEW;
import static dev.orchestrate.item.ItemStatus.READY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.ItemStatus;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Action selection under {@code --only} and {@code --target}. */
class SelectionFilterTest {
  private static final Priority MEDIUM = Priority.MEDIUM;

  /** Runs rounds (every running job completes each round) until nothing happens; returns the items in the order they got done. */
  private static List<String> runToQuiet(SelectionWorld w) {
    List<String> done = new ArrayList<>();
    for (int round = 0; round < 1_000; round++) {
      List<Action> actions = w.step();
      if (actions.isEmpty() && w.running.isEmpty()) {
        return done;
      }
      for (String id : List.copyOf(w.running.keySet())) {
        w.complete(id);
        if (w.status(id) == DONE) {
          done.add(id);
        }
      }
    }
    throw new AssertionError("no quiet state after 1000 rounds");
  }

  @Test
  void only_matching_items_get_actions() {
    SelectionWorld w = new SelectionWorld(2, 2)
        .add(SelectionWorld.definition("UI", "feature", MEDIUM, List.of(), List.of("ui")), READY, null)
        .add(SelectionWorld.definition("DB", "feature", Priority.HIGH, List.of(), List.of("db")), READY, null);
    w.filter = ItemFilter.parse(List.of("tag=ui"), List.of());
    assertEquals(List.of(new Action.Promote("UI"), new Action.RunPhase("UI", "design", false)), w.select());
  }

  @Test
  void a_status_filter_pinned_at_run_start_keeps_working_on_items_as_their_status_changes() {
    SelectionWorld w = new SelectionWorld(1, 1).add("A").add("B", "feature", MEDIUM, READY, null);
    w.filter = ItemFilter.parse(List.of("status=new"), List.of()).asOfRunStart(w.items.values());
    assertEquals(List.of("A"), runToQuiet(w));
    assertEquals(READY, w.status("B"));
  }

  @Test
  void items_left_out_by_the_filter_do_not_hold_wip() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("OLD", "feature", MEDIUM, IN_PROGRESS, "build")
        .add(SelectionWorld.definition("T", "feature", MEDIUM, List.of(), List.of("x")), READY, null);
    w.filter = ItemFilter.parse(List.of("tag=x"), List.of());
    assertEquals(List.of(new Action.Promote("T"), new Action.RunPhase("T", "design", false)), w.select());
  }

  @Test
  void a_target_runs_with_its_dependencies_and_nothing_else_then_the_next_target() {
    SelectionWorld w = new SelectionWorld(2, 2)
        .add("OTHER").add("BASE").add("LIB", "BASE").add("T1", "LIB").add("T2").add("AFTER");
    w.filter = ItemFilter.parse(List.of(), List.of("T1", "T2")).checkTargets(w.items.keySet());
    assertEquals(List.of("BASE", "LIB", "T1", "T2"), runToQuiet(w));
    assertEquals(NEW, w.status("OTHER"));
    assertEquals(NEW, w.status("AFTER"));
    assertTrue(w.filter.targetsFinished(w.items));
  }

  @Test
  void while_the_first_target_runs_the_second_gets_nothing() {
    SelectionWorld w = new SelectionWorld(3, 3).add("T1").add("T2");
    w.filter = ItemFilter.parse(List.of(), List.of("T1", "T2"));
    List<Action> actions = w.step();
    assertEquals(List.of(new Action.Advance("T1"), new Action.RunPhase("T1", "scope", false)), actions);
  }

  @Test
  void a_target_held_by_a_blocked_dependency_is_not_skipped() {
    SelectionWorld w = new SelectionWorld(2, 2)
        .add("X", "feature", MEDIUM, ItemStatus.BLOCKED, "build").add("T1", "X").add("T2");
    w.filter = ItemFilter.parse(List.of(), List.of("T1", "T2"));
    assertEquals(List.of(), w.select());
    assertEquals(java.util.Optional.of("T1"), w.filter.currentTarget(w.items));
  }

  @Test
  void only_and_target_together_must_both_hold() {
    SelectionWorld w = new SelectionWorld(2, 2)
        .add(SelectionWorld.definition("BASE", "direct", MEDIUM, List.of(), List.of()), NEW, null)
        .add(SelectionWorld.definition("T", "feature", MEDIUM, List.of("BASE"), List.of()), NEW, null);
    w.filter = ItemFilter.parse(List.of("pipeline=feature"), List.of("T"));
    assertEquals(List.of(), w.select(), "BASE is outside --only, so T waits on it");
  }
}
