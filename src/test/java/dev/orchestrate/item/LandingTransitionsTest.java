package dev.orchestrate.item;

import static dev.orchestrate.testing.Fixtures.feature;
import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.Pipeline;
import dev.orchestrate.testing.ConfigWithers;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The merge queue's transitions: complete work is landing, then done, back to its last phase, or blocked. */
class LandingTransitionsTest {
  private static final Pipeline PIPELINE = feature();

  private static ItemState at(ItemStatus status) {
    return new ItemState(item("A"), 1, true, Progress.of(status));
  }

  private static String last() {
    return PIPELINE.phases().get(PIPELINE.phases().size() - 1).name();
  }

  @Test
  void complete_work_is_landing_not_done_and_its_status_event_says_so() {
    Step done = Transitions.approve(at(ItemStatus.AWAITING_REVIEW));
    Step landing = Transitions.toLand(done);
    assertEquals(ItemStatus.LANDING, landing.next().status());
    assertTrue(landing.next().status().isTerminal(), "no agent works on it");
    assertEquals(List.of(Event.statusChange("A", ItemStatus.AWAITING_REVIEW, ItemStatus.LANDING, null, "approved")),
        landing.events());
    ItemState working = new ItemState(item("A"), 1, true, new Progress(ItemStatus.IN_PROGRESS, last(), 0, null, null,
        null, null, null));
    Step blocked = Transitions.block(working, "why");
    assertTrue(Transitions.toLand(blocked) == blocked, "only a step to done becomes landing");
  }

  @Test
  void landed_work_is_done_and_only_a_landing_item_lands() {
    Step landed = Transitions.afterLanding(at(ItemStatus.LANDING), PIPELINE,
        new IntegrationResult("integrated", "orchestrate/A integrated into main at abc"));
    assertEquals(Progress.of(ItemStatus.DONE), landed.next().progress());
    assertEquals(List.of(Event.statusChange("A", ItemStatus.LANDING, ItemStatus.DONE, null,
        "orchestrate/A integrated into main at abc")), landed.events());
    assertNull(Transitions.afterLanding(at(ItemStatus.DONE), PIPELINE, new IntegrationResult("integrated", "m")),
        "a done item (landed before the queue) stays as it is");
    assertNull(Transitions.afterLanding(at(ItemStatus.LANDING), PIPELINE, new IntegrationResult("deferred", "lock")),
        "a deferred landing leaves it landing, for the next run");
    assertThrows(InvalidTransitionException.class, () -> Transitions.landed(at(ItemStatus.DONE), "m"));
  }

  @Test
  void red_gates_send_it_back_to_its_last_phase_with_the_report_until_its_rounds_run_out() {
    Step red = Transitions.afterLanding(at(ItemStatus.LANDING), PIPELINE,
        new IntegrationResult("integration_failed", "AssertionError: 20 != 2", 1));
    assertEquals(ItemStatus.IN_PROGRESS, red.next().status());
    assertEquals(last(), red.next().progress().phase());
    assertEquals(0, red.next().progress().attempts());
    assertTrue(red.next().progress().lastFailure().contains("AssertionError: 20 != 2"));
    assertTrue(red.next().progress().lastFailure().contains("integration round 1"));
    assertEquals(List.of(Event.statusChange("A", ItemStatus.LANDING, ItemStatus.IN_PROGRESS, last(),
        "integration gates red (round 1)")), red.events());

    Step blocked = Transitions.afterLanding(at(ItemStatus.LANDING), PIPELINE,
        new IntegrationResult("integration_failed", "AssertionError", PIPELINE.integrationMaxRounds()));
    assertEquals(ItemStatus.BLOCKED, blocked.next().status());
    assertEquals(ItemStatus.LANDING, blocked.next().progress().blockedFrom(), "unblock returns it to the queue");
    assertTrue(blocked.next().progress().blockedReason().contains("integration gates red 3 times"),
        blocked.next().progress().blockedReason());

    Step fewer = Transitions.afterLanding(at(ItemStatus.LANDING), ConfigWithers.withIntegrationMaxRounds(PIPELINE, 1),
        new IntegrationResult("integration_failed", "r", 1));
    assertEquals(ItemStatus.BLOCKED, fewer.next().status(), "integration_max_rounds 1: the first red blocks");
  }

  @Test
  void a_conflict_blocks_and_a_push_awaits_its_checks() {
    Step conflict = Transitions.afterLanding(at(ItemStatus.LANDING), PIPELINE,
        new IntegrationResult("conflict", "integration into main conflicts in a.txt"));
    assertEquals(ItemStatus.BLOCKED, conflict.next().status());
    assertEquals(ItemStatus.LANDING, conflict.next().progress().blockedFrom());
    Step checks = Transitions.afterLanding(at(ItemStatus.LANDING), PIPELINE,
        new IntegrationResult("awaiting_checks", "pushed; awaiting its checks"));
    assertEquals(ItemStatus.AWAITING_CHECKS, checks.next().status());
  }
}
