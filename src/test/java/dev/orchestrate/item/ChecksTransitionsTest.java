package dev.orchestrate.item;

import static dev.orchestrate.testing.Fixtures.feature;
import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.Pipeline;
import java.util.List;
import org.junit.jupiter.api.Test;

/** execution.checks' transitions: done → awaiting_checks, then done (green), back (red) or blocked. */
class ChecksTransitionsTest {
  private static final Pipeline PIPELINE = feature();

  private static ItemState at(ItemStatus status) {
    return new ItemState(item("A"), 1, true, Progress.of(status));
  }

  private static String last() {
    List<dev.orchestrate.config.PhaseDef> phases = PIPELINE.phases();
    return phases.get(phases.size() - 1).name();
  }

  @Test
  void a_pushed_done_item_awaits_its_checks_and_green_makes_it_done() {
    Step wait = Transitions.awaitChecks(at(ItemStatus.DONE), "pushed");
    assertEquals(ItemStatus.AWAITING_CHECKS, wait.next().status());
    assertTrue(wait.next().status().isTerminal(), "no agent works on it");
    assertEquals(List.of(Event.statusChange("A", ItemStatus.DONE, ItemStatus.AWAITING_CHECKS, null, "pushed")),
        wait.events());
    Step green = Transitions.checksGreen(wait.next(), "checks green");
    assertEquals(Progress.of(ItemStatus.DONE), green.next().progress());
    assertThrows(InvalidTransitionException.class, () -> Transitions.awaitChecks(at(ItemStatus.READY), "x"));
    assertThrows(InvalidTransitionException.class, () -> Transitions.checksGreen(at(ItemStatus.DONE), "x"));
  }

  @Test
  void red_goes_back_to_the_named_phase_or_the_last_with_the_report_as_its_previous_failure() {
    String first = PIPELINE.phases().get(0).name();
    Step red = Transitions.checksRed(at(ItemStatus.AWAITING_CHECKS), PIPELINE, first, "FAILED test_login", 1);
    assertEquals(ItemStatus.IN_PROGRESS, red.next().status());
    assertEquals(first, red.next().progress().phase());
    assertEquals(0, red.next().progress().attempts());
    assertTrue(red.next().progress().lastFailure().contains("FAILED test_login"));
    assertTrue(red.next().progress().lastFailure().contains("round 1"));
    assertEquals(List.of(Event.statusChange("A", ItemStatus.AWAITING_CHECKS, ItemStatus.IN_PROGRESS, first,
        "checks red (round 1)")), red.events());

    assertEquals(last(), Transitions.checksRed(at(ItemStatus.AWAITING_CHECKS), PIPELINE, null, "r", 2).next()
        .progress().phase());
    assertEquals(last(), Transitions.checksRed(at(ItemStatus.AWAITING_CHECKS), PIPELINE, "nosuch", "r", 2).next()
        .progress().phase());
    Step capped = Transitions.checksRed(at(ItemStatus.AWAITING_CHECKS), PIPELINE, null, "x".repeat(100_000), 1);
    assertTrue(capped.truncatedValues() > 0);
  }

  @Test
  void blocked_checks_block_the_item_as_done_so_unblock_pushes_and_waits_again() {
    Step blocked = Transitions.checksBlocked(at(ItemStatus.AWAITING_CHECKS), "checks red 3 times");
    assertEquals(ItemStatus.BLOCKED, blocked.next().status());
    assertEquals(ItemStatus.DONE, blocked.next().progress().blockedFrom());
    assertEquals("checks red 3 times", blocked.next().progress().blockedReason());
    assertEquals(ItemStatus.DONE, Transitions.unblock(blocked.next(), "fixed the flaky test").next().status());
  }
}
