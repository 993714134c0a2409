package dev.orchestrate.scheduler;

import static dev.orchestrate.item.ItemStatus.BLOCKED;
import static dev.orchestrate.item.ItemStatus.DONE;
import static dev.orchestrate.item.ItemStatus.IN_PROGRESS;
import static dev.orchestrate.item.ItemStatus.NEW;
import static dev.orchestrate.item.ItemStatus.READY;
import static dev.orchestrate.item.ItemStatus.SCOPING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ActionSelectionTest {
  private static final Priority HIGH = Priority.HIGH;
  private static final Priority MEDIUM = Priority.MEDIUM;
  private static final Priority LOW = Priority.LOW;

  private static Action promote(String id) {
    return new Action.Promote(id);
  }

  /** A promotion into the WIP slot a held item lends its prerequisite. */
  private static Action lent(String id) {
    return new Action.Promote(id, true);
  }

  private static Action advance(String id) {
    return new Action.Advance(id);
  }

  private static Action run(String id, String phase) {
    return new Action.RunPhase(id, phase, false);
  }

  private static Action runAlone(String id, String phase) {
    return new Action.RunPhase(id, phase, true);
  }

  // --- promotion and WIP -------------------------------------------------------------------

  @Test
  void ready_items_are_promoted_while_in_progress_is_below_max_wip() {
    SelectionWorld w = new SelectionWorld(2, 1)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build").running("A", false)
        .add("B", "feature", MEDIUM, READY, null)
        .add("C", "feature", MEDIUM, READY, null);
    assertEquals(List.of(promote("B")), w.select());
  }

  @Test
  void nothing_is_promoted_when_wip_is_full_even_with_free_slots() {
    SelectionWorld w = new SelectionWorld(1, 3)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build").running("A", false)
        .add("B", "feature", MEDIUM, READY, null);
    assertEquals(List.of(), w.select());
  }

  @Test
  void promotion_goes_by_priority_then_backlog_order() {
    SelectionWorld w = new SelectionWorld(3, 3)
        .add("L", "feature", LOW, READY, null)
        .add("M1", "feature", MEDIUM, READY, null)
        .add("H", "feature", HIGH, READY, null)
        .add("M2", "feature", MEDIUM, READY, null);
    List<Action> actions = w.select();
    assertEquals(List.of(promote("H"), promote("M1"), promote("M2")),
        actions.stream().filter(a -> a instanceof Action.Promote).toList());
  }

  @Test
  void a_promoted_item_starts_its_first_phase_in_the_same_round_after_its_promotion() {
    SelectionWorld w = new SelectionWorld(1, 1).add("A", "feature", MEDIUM, READY, null);
    assertEquals(List.of(promote("A"), run("A", "design")), w.select());
  }

  @Test
  void a_new_item_without_pre_phases_is_advanced_and_promoted_only_when_wip_has_room() {
    SelectionWorld w = new SelectionWorld(1, 2)
        .add("A", "direct", MEDIUM, IN_PROGRESS, "build").running("A", false)
        .add("B", "direct", HIGH, NEW, null);
    assertEquals(List.of(), w.select(), "WIP is full: B stays new");
    w.complete("A");
    assertEquals(List.of(advance("B"), promote("B"), run("B", "build")), w.select());
  }

  @Test
  void a_new_item_without_pre_phases_competes_with_ready_items_by_priority() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("R", "feature", LOW, READY, null)
        .add("N", "direct", HIGH, NEW, null);
    assertEquals(List.of(advance("N"), promote("N"), run("N", "build")), w.select());
  }

  // --- priority across pipelines with and without pre-phases ---------------------------------

  @Test
  void a_high_item_that_needs_a_pre_phase_starts_before_a_medium_item_without_pre_phases() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("H", "feature", HIGH, NEW, null)
        .add("M", "direct", MEDIUM, NEW, null);
    assertEquals(List.of(advance("H"), run("H", "scope")), w.step(),
        "H is ranked first: M, which needs no scoping, does not take the only WIP slot");
    w.complete("H");
    assertEquals(List.of(promote("H"), run("H", "design")), w.step());
  }

  @Test
  void with_one_slot_each_item_runs_to_the_end_in_priority_then_backlog_order_whatever_its_pipeline() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("M1", "direct", MEDIUM, NEW, null)
        .add("H1", "feature", HIGH, NEW, null)
        .add("L1", "direct", LOW, NEW, null)
        .add("M2", "feature", MEDIUM, NEW, null)
        .add("H2", "direct", HIGH, NEW, null)
        .add("M3", "direct", MEDIUM, NEW, null);
    assertEquals(List.of("H1", "H2", "M1", "M2", "M3", "L1"), itemsInTheOrderTheyRan(w));
  }

  @Test
  void the_shipped_examples_items_run_high_first_then_in_backlog_order() {
    // examples/backlog.yaml with its two pipelines: feature (a scope pre-phase) and bugfix (none).
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("WRK-001", "feature", HIGH, NEW, null)
        .add("WRK-002", "direct", HIGH, NEW, null)
        .add("WRK-003", "feature", MEDIUM, NEW, null, "WRK-001")
        .add("WRK-004", "direct", MEDIUM, NEW, null)
        .add("WRK-005", "feature", LOW, NEW, null)
        .add("WRK-006", "feature", MEDIUM, NEW, null)
        .add("WRK-007", "direct", LOW, READY, null)
        .add("WRK-008", "feature", LOW, NEW, null, "WRK-006");
    // WRK-007 is listed as `status: ready`: scoped already, it goes before items still to scope.
    assertEquals(List.of("WRK-007", "WRK-001", "WRK-002", "WRK-003", "WRK-004", "WRK-006", "WRK-005", "WRK-008"),
        itemsInTheOrderTheyRan(w));
  }

  @Test
  void a_ready_item_waits_for_a_higher_item_that_is_scoping() {
    SelectionWorld w = new SelectionWorld(1, 2)
        .add("H", "feature", HIGH, SCOPING, "scope").running("H", false)
        .add("R", "feature", LOW, READY, null);
    assertEquals(List.of(), w.select(), "H keeps the WIP slot while it scopes");
    w.complete("H");
    assertEquals(List.of(promote("H"), run("H", "design")), w.select());
  }

  @Test
  void items_still_to_scope_keep_only_as_many_wip_slots_as_there_are_of_them() {
    SelectionWorld w = new SelectionWorld(3, 1)
        .add("H", "feature", HIGH, NEW, null)
        .add("M1", "direct", MEDIUM, NEW, null)
        .add("M2", "direct", MEDIUM, NEW, null)
        .add("M3", "direct", MEDIUM, NEW, null);
    List<Action> actions = w.select();
    assertEquals(List.of(advance("M1"), promote("M1"), advance("M2"), promote("M2")),
        actions.stream().filter(a -> !(a instanceof Action.RunPhase)).toList(), "H keeps the third slot");
  }

  /** Runs the world to the end, one job ending per round, and lists the items by their first job. */
  private static List<String> itemsInTheOrderTheyRan(SelectionWorld w) {
    List<String> order = new java.util.ArrayList<>();
    for (int round = 0; round < 1_000 && !(w.running.isEmpty() && round > 0 && w.select().isEmpty()); round++) {
      for (Action a : w.step()) {
        if (a instanceof Action.RunPhase && !order.contains(a.itemId())) {
          order.add(a.itemId());
        }
      }
      if (!w.running.isEmpty()) {
        w.complete(w.oldestRunning());
      }
    }
    return order;
  }

  @Test
  void an_in_progress_item_held_by_a_dependency_still_counts_toward_wip() {
    SelectionWorld w = new SelectionWorld(1, 2)
        .add("X", "feature", MEDIUM, BLOCKED, "build")
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build", "X")
        .add("B", "feature", MEDIUM, READY, null);
    assertEquals(List.of(), w.select());
  }

  @Test
  void an_in_progress_item_held_by_a_ready_dependency_lends_it_its_wip_slot() {
    // A backlog edit gave A, already in progress, a dependency on B while WIP (1) was full.
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build", "B")
        .add("C", "feature", HIGH, READY, null)
        .add("B", "feature", LOW, READY, null);
    assertEquals(List.of(lent("B"), run("B", "design")), w.select(),
        "B is promoted past WIP (and past C, of higher priority: C waits for a free slot)");
  }

  @Test
  void a_held_item_lends_one_slot_not_one_per_prerequisite() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build", "B", "C", "D")
        .add("B", "feature", MEDIUM, READY, null)
        .add("C", "feature", MEDIUM, READY, null)
        .add("D", "feature", MEDIUM, READY, null);
    assertEquals(List.of(lent("B"), run("B", "design")), w.select(), "max_wip 1 + 1 held: B only");
  }

  @Test
  void a_held_item_lends_its_slot_down_a_chain_of_unfinished_dependencies() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build", "B")
        .add("B", "feature", MEDIUM, READY, null, "C")
        .add("C", "feature", MEDIUM, READY, null);
    assertEquals(List.of(lent("C"), run("C", "design")), w.select(), "C first: B waits on it");
  }

  @Test
  void promotion_happens_even_while_a_destructive_phase_runs_but_no_job_starts() {
    SelectionWorld w = new SelectionWorld(2, 2)
        .add("D", "deploy", MEDIUM, IN_PROGRESS, "deploy").running("D", true)
        .add("B", "feature", MEDIUM, READY, null);
    assertEquals(List.of(promote("B")), w.select());
  }

  // --- slots and furthest-along first --------------------------------------------------------

  @Test
  void free_slots_go_to_in_progress_items_with_the_later_phase_first() {
    SelectionWorld w = new SelectionWorld(3, 2)
        .add("A", "feature", HIGH, IN_PROGRESS, "design")
        .add("B", "feature", LOW, IN_PROGRESS, "review")
        .add("C", "feature", MEDIUM, IN_PROGRESS, "build");
    assertEquals(List.of(run("B", "review"), run("C", "build")), w.select());
  }

  @Test
  void at_the_same_phase_priority_then_backlog_order_decides() {
    SelectionWorld w = new SelectionWorld(4, 3)
        .add("A", "feature", LOW, IN_PROGRESS, "build")
        .add("B", "feature", MEDIUM, IN_PROGRESS, "build")
        .add("C", "feature", HIGH, IN_PROGRESS, "build")
        .add("D", "feature", MEDIUM, IN_PROGRESS, "build");
    assertEquals(List.of(run("C", "build"), run("B", "build"), run("D", "build")), w.select());
  }

  @Test
  void in_progress_items_come_before_scoping_items_which_come_before_new_ones() {
    SelectionWorld w = new SelectionWorld(1, 3)
        .add("N", "feature", HIGH, NEW, null)
        .add("S", "feature", HIGH, SCOPING, "scope")
        .add("P", "feature", LOW, IN_PROGRESS, "design");
    assertEquals(List.of(run("P", "design"), run("S", "scope"), advance("N"), run("N", "scope")), w.select());
  }

  @Test
  void scoping_items_go_later_pre_phase_first() {
    Pipeline twoStep = SelectionWorld.pipeline("two", List.of("scope", "plan"), List.of("build"));
    SelectionWorld w = new SelectionWorld(1, 1);
    w.pipelines.put("two", twoStep);
    w.add("A", "two", HIGH, SCOPING, "scope").add("B", "two", LOW, SCOPING, "plan");
    assertEquals(List.of(run("B", "plan")), w.select());
  }

  @Test
  void the_number_of_jobs_started_is_max_concurrent_minus_running() {
    SelectionWorld w = new SelectionWorld(5, 3)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build").running("A", false)
        .add("B", "feature", MEDIUM, IN_PROGRESS, "build")
        .add("C", "feature", MEDIUM, IN_PROGRESS, "build")
        .add("D", "feature", MEDIUM, IN_PROGRESS, "build");
    assertEquals(List.of(run("B", "build"), run("C", "build")), w.select());
  }

  @Test
  void nothing_starts_when_more_jobs_run_than_max_concurrent_allows() {
    SelectionWorld w = new SelectionWorld(3, 1)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build").running("A", false)
        .add("B", "feature", MEDIUM, IN_PROGRESS, "build").running("B", false)
        .add("C", "feature", MEDIUM, IN_PROGRESS, "build");
    assertEquals(List.of(), w.select());
  }

  @Test
  void an_item_with_a_running_job_never_gets_a_second_one() {
    SelectionWorld w = new SelectionWorld(2, 4)
        .add("A", "feature", HIGH, IN_PROGRESS, "review").running("A", false)
        .add("B", "feature", LOW, IN_PROGRESS, "design");
    assertEquals(List.of(run("B", "design")), w.select());
  }

  @Test
  void new_items_enter_scoping_only_while_fewer_than_max_concurrent_are_scoping_or_ready() {
    SelectionWorld w = new SelectionWorld(1, 3)
        .add("P", "feature", MEDIUM, IN_PROGRESS, "build").running("P", false)
        .add("R", "feature", MEDIUM, READY, null)
        .add("S", "feature", MEDIUM, SCOPING, "scope").running("S", false)
        .add("N1").add("N2");
    assertEquals(List.of(advance("N1"), run("N1", "scope")), w.select(), "R and S wait: room for one more");
  }

  @Test
  void new_items_are_left_alone_when_no_slot_is_free() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("P", "feature", MEDIUM, IN_PROGRESS, "build").running("P", false)
        .add("N");
    assertEquals(List.of(), w.select());
    assertEquals(NEW, w.status("N"));
  }

  @Test
  void new_items_enter_scoping_by_priority_then_backlog_order() {
    SelectionWorld w = new SelectionWorld(1, 2)
        .add("L", "feature", LOW, NEW, null)
        .add("M", "feature", MEDIUM, NEW, null)
        .add("H", "feature", HIGH, NEW, null);
    assertEquals(List.of(advance("H"), run("H", "scope"), advance("M"), run("M", "scope")), w.select());
  }

  // --- dependencies ----------------------------------------------------------------------------

  @Test
  void items_with_unmet_dependencies_are_skipped() {
    SelectionWorld w = new SelectionWorld(2, 2)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build").running("A", false)
        .add("B", "feature", HIGH, READY, null, "A")
        .add("C", "feature", LOW, READY, null);
    assertEquals(List.of(promote("C"), run("C", "design")), w.select());
  }

  @Test
  void a_done_dependency_releases_its_dependent() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("A", "feature", MEDIUM, DONE, null)
        .add("B", "feature", MEDIUM, READY, null, "A");
    assertEquals(List.of(promote("B"), run("B", "design")), w.select());
  }

  @Test
  void a_blocked_dependency_holds_its_dependents_at_every_status() {
    SelectionWorld w = new SelectionWorld(3, 3)
        .add("X", "feature", MEDIUM, BLOCKED, "build")
        .add("N", "feature", MEDIUM, NEW, null, "X")
        .add("D", "direct", MEDIUM, NEW, null, "X")
        .add("S", "feature", MEDIUM, SCOPING, "scope", "X")
        .add("R", "feature", MEDIUM, READY, null, "X")
        .add("P", "feature", MEDIUM, IN_PROGRESS, "build", "X");
    assertEquals(List.of(), w.select());
  }

  @Test
  void an_unknown_dependency_holds_its_dependent() {
    SelectionWorld w = new SelectionWorld(1, 1).add("A", "feature", MEDIUM, READY, null, "GHOST");
    assertEquals(List.of(), w.select());
  }

  @Test
  void a_chain_of_dependencies_runs_in_dependency_order() {
    SelectionWorld w = new SelectionWorld(3, 3).add("C", "B").add("B", "A").add("A");
    List<String> finished = new java.util.ArrayList<>();
    for (int round = 0; round < 100 && w.count(DONE) < 3; round++) {
      w.step();
      for (String id : List.copyOf(w.running.keySet())) {
        w.complete(id);
        if (w.status(id) == DONE) {
          finished.add(id);
        }
      }
    }
    assertEquals(List.of("A", "B", "C"), finished);
  }

  // --- who never gets actions ------------------------------------------------------------------

  @Test
  void items_not_in_the_backlog_get_no_actions_and_do_not_hold_wip() {
    SelectionWorld w = new SelectionWorld(1, 2)
        .add("GONE", "feature", MEDIUM, IN_PROGRESS, "build").unlisted("GONE")
        .add("GONE2", "feature", MEDIUM, READY, null).unlisted("GONE2")
        .add("B", "feature", MEDIUM, READY, null);
    assertEquals(List.of(promote("B"), run("B", "design")), w.select());
  }

  @Test
  void done_and_blocked_items_get_no_actions() {
    SelectionWorld w = new SelectionWorld(2, 2)
        .add("A", "feature", MEDIUM, DONE, null)
        .add("B", "feature", MEDIUM, BLOCKED, "design");
    assertEquals(List.of(), w.select());
  }

  @Test
  void an_item_whose_phase_no_longer_exists_is_realigned_then_run() {
    SelectionWorld w = new SelectionWorld(1, 1).add("A", "feature", MEDIUM, IN_PROGRESS, "polish");
    assertEquals(List.of(new Action.Realign("A"), run("A", "design")), w.select());
  }

  @Test
  void a_scoping_item_whose_pre_phases_were_removed_is_realigned_to_ready_and_promoted() {
    SelectionWorld w = new SelectionWorld(1, 1).add("A", "direct", MEDIUM, SCOPING, "scope");
    assertEquals(List.of(new Action.Realign("A"), promote("A"), run("A", "build")), w.select());
  }

  // --- destructive phases ----------------------------------------------------------------------

  @Test
  void nothing_starts_while_a_destructive_phase_runs() {
    SelectionWorld w = new SelectionWorld(3, 3)
        .add("D", "deploy", MEDIUM, IN_PROGRESS, "deploy").running("D", true)
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build")
        .add("N");
    assertEquals(List.of(), w.select());
  }

  @Test
  void a_destructive_phase_starts_alone_when_nothing_runs() {
    SelectionWorld w = new SelectionWorld(3, 3)
        .add("D", "deploy", HIGH, IN_PROGRESS, "deploy")
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build")
        .add("B", "feature", MEDIUM, IN_PROGRESS, "design");
    assertEquals(List.of(runAlone("D", "deploy")), w.select());
  }

  @Test
  void a_destructive_first_candidate_lets_running_work_drain_and_starts_nothing_new() {
    SelectionWorld w = new SelectionWorld(3, 3)
        .add("D", "deploy", HIGH, IN_PROGRESS, "deploy")
        .add("A", "feature", MEDIUM, IN_PROGRESS, "build").running("A", false)
        .add("B", "feature", MEDIUM, IN_PROGRESS, "design");
    assertEquals(List.of(), w.select(), "B does not start while D waits");
    w.complete("A");
    assertEquals(List.of(runAlone("D", "deploy")), w.select());
  }

  @Test
  void a_destructive_candidate_ranked_behind_others_still_goes_first_once_nothing_runs() {
    SelectionWorld w = new SelectionWorld(3, 3)
        .add("A", "feature", HIGH, IN_PROGRESS, "review")
        .add("D", "deploy", LOW, IN_PROGRESS, "deploy");
    assertEquals(List.of(runAlone("D", "deploy")), w.select());
  }

  @Test
  void a_new_item_whose_first_pre_phase_is_destructive_is_advanced_with_its_job_alone() {
    Pipeline risky = new Pipeline("risky", List.of(SelectionWorld.phase("wipe", true)),
        List.of(SelectionWorld.phase("build", false)));
    SelectionWorld w = new SelectionWorld(2, 2);
    w.pipelines.put("risky", risky);
    w.add("N", "risky", MEDIUM, NEW, null).add("M");
    assertEquals(List.of(advance("N"), runAlone("N", "wipe")), w.select());
  }

  @Test
  void a_destructive_phase_is_not_starved_by_a_stream_of_higher_priority_work() {
    // D (low) reaches its destructive phase while high-priority items keep arriving ready.
    SelectionWorld w = new SelectionWorld(3, 2).add("D", "deploy", LOW, IN_PROGRESS, "deploy");
    int next = 0;
    for (; next < 4; next++) {
      w.add("H" + next, "feature", HIGH, READY, null);
    }
    w.add("R", "feature", HIGH, IN_PROGRESS, "build").running("R", false);
    Integer deployedAt = null;
    for (int round = 0; round < 200 && deployedAt == null; round++) {
      List<Action> actions = w.step();
      if (actions.contains(runAlone("D", "deploy"))) {
        assertEquals(Map.of("D", true), w.running, "the destructive phase runs alone");
        deployedAt = round;
      }
      if (!w.running.isEmpty() && deployedAt == null) {
        w.complete(w.oldestRunning());
      }
      w.add("H" + next++, "feature", HIGH, READY, null); // the stream never dries up
    }
    assertTrue(deployedAt != null && deployedAt <= 2, "deployed at round " + deployedAt);
  }

  @Test
  void a_destructive_pre_phase_of_a_scoping_item_is_not_starved_by_in_progress_work() {
    Pipeline risky = new Pipeline("risky", List.of(SelectionWorld.phase("wipe", true)),
        List.of(SelectionWorld.phase("build", false)));
    SelectionWorld w = new SelectionWorld(2, 2);
    w.pipelines.put("risky", risky);
    w.add("S", "risky", LOW, SCOPING, "wipe")
        .add("A", "feature", HIGH, IN_PROGRESS, "design").running("A", false)
        .add("B", "feature", HIGH, IN_PROGRESS, "design").running("B", false);
    for (int i = 0; i < 10; i++) {
      w.add("H" + i, "feature", HIGH, READY, null);
    }
    assertEquals(List.of(), w.step());
    w.complete("A");
    assertEquals(List.of(), w.step(), "A's next phase waits behind the wipe");
    w.complete("B");
    assertEquals(List.of(runAlone("S", "wipe")), w.step());
  }

  @Test
  void while_a_destructive_phase_waits_no_new_non_destructive_job_starts_over_several_rounds() {
    SelectionWorld w = new SelectionWorld(4, 3)
        .add("D", "deploy", MEDIUM, IN_PROGRESS, "deploy")
        .add("A", "feature", MEDIUM, IN_PROGRESS, "design").running("A", false)
        .add("B", "feature", MEDIUM, IN_PROGRESS, "design").running("B", false)
        .add("C", "feature", HIGH, IN_PROGRESS, "review");
    assertEquals(List.of(), w.step());
    w.complete("A");
    assertEquals(List.of(), w.step(), "A's next phase waits too");
    w.complete("B");
    assertEquals(List.of(runAlone("D", "deploy")), w.step());
    assertEquals(List.of(), w.step());
    w.complete("D");
    assertEquals(DONE, w.status("D"));
    assertEquals(List.of(run("C", "review"), run("A", "build"), run("B", "build")), w.step());
  }

  // --- the snapshot ----------------------------------------------------------------------------

  @Test
  void a_snapshot_rejects_impossible_limits_duplicate_ids_and_missing_pipelines() {
    SelectionWorld w = new SelectionWorld(1, 1).add("A");
    List<ItemState> items = List.copyOf(w.items.values());
    assertThrows(IllegalArgumentException.class, () -> new Snapshot(items, w.pipelines, 0, 1, Map.of()));
    assertThrows(IllegalArgumentException.class, () -> new Snapshot(items, w.pipelines, 1, 0, Map.of()));
    assertThrows(IllegalArgumentException.class,
        () -> new Snapshot(List.of(items.get(0), items.get(0)), w.pipelines, 1, 1, Map.of()));
    assertThrows(IllegalArgumentException.class, () -> new Snapshot(items, Map.of(), 1, 1, Map.of()));
  }

  @Test
  void a_snapshot_orders_items_by_backlog_order_whatever_order_they_come_in() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("FIRST", "feature", MEDIUM, READY, null)
        .add("SECOND", "feature", MEDIUM, READY, null);
    Snapshot s = new Snapshot(List.of(w.state("SECOND"), w.state("FIRST")), w.pipelines, 1, 1, Map.of());
    assertEquals(List.of("FIRST", "SECOND"), s.items().stream().map(ItemState::id).toList());
    assertEquals(List.of(promote("FIRST"), run("FIRST", "design")), ActionSelection.select(s));
  }

  @Test
  void selection_is_pure_the_same_snapshot_gives_the_same_actions() {
    SelectionWorld w = new SelectionWorld(2, 2).add("A").add("B").add("C", "feature", HIGH, READY, null);
    Snapshot s = w.snapshot();
    assertEquals(ActionSelection.select(s), ActionSelection.select(s));
    assertEquals(NEW, w.status("A"));
  }
}
