package dev.orchestrate.scheduler;

import static dev.orchestrate.item.ItemStatus.BLOCKED;
import static dev.orchestrate.item.ItemStatus.DONE;
import static dev.orchestrate.item.ItemStatus.IN_PROGRESS;
import static dev.orchestrate.item.ItemStatus.NEW;
import static dev.orchestrate.item.ItemStatus.READY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ItemFilterTest {
  private static ItemFilter only(String... flags) {
    return ItemFilter.parse(List.of(flags), List.of());
  }

  private static ItemFilter targets(String... ids) {
    return ItemFilter.parse(List.of(), List.of(ids));
  }

  /** The part of the filter at fault and the message; the CLI turns the part into its flag. */
  private static String error(Runnable parse) {
    ItemFilterException e = assertThrows(ItemFilterException.class, parse::run);
    return e.part() + ": " + e.getMessage();
  }

  private static ItemState item(String id, ItemStatus status, Priority priority, String pipeline, String... tags) {
    return new SelectionWorld(1, 1)
        .add(SelectionWorld.definition(id, pipeline, priority, List.of(), List.of(tags)), status,
            status.isRunningPhases() ? "build" : null)
        .state(id);
  }

  private static final ItemState NEW_HIGH_UI = item("A", NEW, Priority.HIGH, "feature", "ui", "web");
  private static final ItemState READY_LOW_DB = item("B", READY, Priority.LOW, "direct", "db");
  private static final ItemState BUILDING_MEDIUM = item("C", IN_PROGRESS, Priority.MEDIUM, "feature");

  // --- --only --------------------------------------------------------------------------------

  @Test
  void no_flags_match_every_item() {
    ItemFilter f = ItemFilter.parse(List.of(), List.of());
    assertTrue(f.matches(NEW_HIGH_UI) && f.matches(READY_LOW_DB) && f.matches(BUILDING_MEDIUM));
    assertFalse(f.hasTargets());
    assertTrue(ItemFilter.ALL.matches(NEW_HIGH_UI));
  }

  @Test
  void status_matches_the_item_status_key() {
    ItemFilter f = only("status=in_progress");
    assertTrue(f.matches(BUILDING_MEDIUM));
    assertFalse(f.matches(NEW_HIGH_UI));
  }

  @Test
  void priority_matches_the_item_priority() {
    ItemFilter f = only("priority=high");
    assertTrue(f.matches(NEW_HIGH_UI));
    assertFalse(f.matches(READY_LOW_DB));
  }

  @Test
  void tag_matches_when_any_of_the_item_tags_is_given() {
    ItemFilter f = only("tag=web");
    assertTrue(f.matches(NEW_HIGH_UI));
    assertFalse(f.matches(READY_LOW_DB));
    assertFalse(f.matches(BUILDING_MEDIUM), "no tags at all");
  }

  @Test
  void pipeline_matches_the_item_pipeline() {
    ItemFilter f = only("pipeline=direct");
    assertTrue(f.matches(READY_LOW_DB));
    assertFalse(f.matches(NEW_HIGH_UI));
  }

  @Test
  void values_of_one_flag_are_alternatives() {
    ItemFilter f = only("status=new,ready");
    assertTrue(f.matches(NEW_HIGH_UI));
    assertTrue(f.matches(READY_LOW_DB));
    assertFalse(f.matches(BUILDING_MEDIUM));
    assertTrue(only("tag=db, ui").matches(NEW_HIGH_UI), "spaces around values are ignored");
  }

  @Test
  void repeated_flags_must_all_hold() {
    ItemFilter f = only("status=new,ready", "priority=low,medium");
    assertTrue(f.matches(READY_LOW_DB));
    assertFalse(f.matches(NEW_HIGH_UI), "new but high");
    assertFalse(f.matches(BUILDING_MEDIUM), "medium but in_progress");
    assertFalse(only("status=new", "status=ready").matches(NEW_HIGH_UI), "the same key twice is an AND too");
  }

  @Test
  void status_can_be_pinned_to_what_items_were_when_the_run_began() {
    ItemFilter f = only("status=new").asOfRunStart(List.of(NEW_HIGH_UI));
    ItemState scoped = NEW_HIGH_UI.with(Progress.of(NEW).atPhase(ItemStatus.SCOPING, "scope"));
    assertTrue(f.matches(scoped), "was new at the start");
    assertTrue(f.matches(item("LATE", NEW, Priority.LOW, "feature")), "an item seen later: its own status");
    assertFalse(only("status=new").matches(scoped));
  }

  // --- parse errors -----------------------------------------------------------------------------

  @Test
  void a_flag_without_an_equals_sign_is_rejected() {
    assertEquals("CRITERION: expected KEY=VALUE, got 'status'", error(() -> only("status")));
    assertEquals("CRITERION: expected KEY=VALUE, got '=new'", error(() -> only("=new")));
  }

  @Test
  void an_unknown_key_is_rejected_with_the_known_ones() {
    assertEquals("CRITERION: unknown key 'colour' (use status, priority, tag or pipeline)",
        error(() -> only("colour=red")));
  }

  @Test
  void a_bad_priority_is_rejected_with_the_known_ones() {
    assertEquals("CRITERION: bad value 'urgent' for priority (use high, medium or low)",
        error(() -> only("priority=high,urgent")));
  }

  @Test
  void a_bad_status_is_rejected_with_the_known_ones() {
    assertEquals(
        "CRITERION: bad value 'doing' for status (use new, scoping, ready, in_progress, awaiting_review, awaiting_checks, done, blocked or landing)",
        error(() -> only("status=doing")));
  }

  @Test
  void an_empty_value_is_rejected() {
    assertEquals("CRITERION: empty value in 'status=' (expected KEY=VALUE[,VALUE])", error(() -> only("status=")));
    assertEquals("CRITERION: empty value in 'tag=a,,b' (expected KEY=VALUE[,VALUE])", error(() -> only("tag=a,,b")));
  }

  @Test
  void every_error_message_is_one_line() {
    for (String bad : List.of("status", "colour=red", "priority=urgent", "status=", "=x")) {
      assertFalse(error(() -> only(bad)).contains("\n"), bad);
    }
  }

  @Test
  void an_unknown_pipeline_is_rejected_when_checked_against_the_config() {
    assertEquals("CRITERION: unknown pipeline 'fast' (use direct or feature)",
        error(() -> only("pipeline=feature,fast").checkPipelines(Set.of("feature", "direct"))));
    ItemFilter ok = only("pipeline=feature");
    assertEquals(ok, ok.checkPipelines(Set.of("feature")));
  }

  // --- --target ---------------------------------------------------------------------------------

  @Test
  void an_empty_target_is_rejected() {
    assertEquals("TARGET: expected an item id, got ''", error(() -> targets("")));
  }

  @Test
  void an_unknown_target_is_rejected_when_checked_against_the_known_ids() {
    assertEquals("TARGET: unknown item 'X'", error(() -> targets("A", "X").checkTargets(Set.of("A", "B"))));
    ItemFilter ok = targets("A");
    assertEquals(ok, ok.checkTargets(Set.of("A")));
  }

  @Test
  void a_target_given_twice_counts_once() {
    assertEquals(List.of("A", "B"), targets("A", "B", "A").targets());
  }

  @Test
  void only_the_first_unfinished_target_and_its_unmet_dependencies_are_admitted() {
    SelectionWorld w = new SelectionWorld(1, 1)
        .add("BASE").add("DONE_DEP", "feature", Priority.MEDIUM, DONE, null)
        .add("LIB", "BASE").add("T1", "LIB", "DONE_DEP").add("OTHER").add("T2");
    ItemFilter f = targets("T1", "T2");
    assertEquals(Optional.of("T1"), f.currentTarget(w.items));
    assertEquals(Set.of("T1", "LIB", "BASE"), f.targetScope(w.items).orElseThrow(), "DONE_DEP is done");
    var admitted = f.admission(w.items);
    assertTrue(admitted.test(w.state("BASE")));
    assertFalse(admitted.test(w.state("OTHER")));
    assertFalse(admitted.test(w.state("T2")));
  }

  @Test
  void a_done_or_blocked_target_hands_over_to_the_next_and_the_last_one_finishes_the_targets() {
    SelectionWorld w = new SelectionWorld(1, 1).add("T1").add("T2").add("T3");
    ItemFilter f = targets("T1", "T2", "T3");
    assertFalse(f.targetsFinished(w.items));
    w.add("T1", "feature", Priority.MEDIUM, DONE, null);
    assertEquals(Optional.of("T2"), f.currentTarget(w.items));
    w.add("T2", "feature", Priority.MEDIUM, BLOCKED, "design");
    assertEquals(Optional.of("T3"), f.currentTarget(w.items));
    assertFalse(f.targetsFinished(w.items));
    w.unlisted("T3");
    assertTrue(f.targetsFinished(w.items), "a target no longer in the backlog is finished");
    assertEquals(Optional.of(Set.of()), f.targetScope(w.items));
  }

  @Test
  void without_targets_the_targets_are_never_finished() {
    assertFalse(ItemFilter.ALL.targetsFinished(new SelectionWorld(1, 1).add("A").items));
    assertEquals(Optional.empty(), ItemFilter.ALL.targetScope(new SelectionWorld(1, 1).items));
  }

  @Test
  void a_dependency_cycle_does_not_loop_forever() {
    SelectionWorld w = new SelectionWorld(1, 1).add("A", "B").add("B", "A");
    assertEquals(Set.of("A", "B"), targets("A").targetScope(w.items).orElseThrow());
  }
}
