package dev.orchestrate.item;

import static dev.orchestrate.testing.Fixtures.feature;
import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.Pipeline;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.testing.ConfigWithers;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The review gate's transitions: awaiting_review after the last phase, approve, reject. */
class ReviewTransitionsTest {
  private static final Pipeline REVIEWED = feature().withReview(Pipeline.Review.REQUIRED);

  private static ItemState at(ItemStatus status, String phase) {
    return new ItemState(item("A"), 1, true, Progress.of(ItemStatus.NEW).atPhase(status, phase));
  }

  private static ItemState awaiting() {
    return Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "review"), REVIEWED,
        outcome(AgentResult.PHASE_COMPLETE, "all reviewed", ""), 2).next();
  }

  @Test
  void the_last_phases_success_awaits_review_when_the_pipeline_requires_it_and_is_done_when_not() {
    Step step = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "review"), REVIEWED,
        outcome(AgentResult.PHASE_COMPLETE, "all reviewed", ""), 2);
    assertEquals(ItemStatus.AWAITING_REVIEW, step.next().status());
    assertEquals("review", step.next().progress().phase());
    assertEquals("all reviewed", step.next().progress().phaseSummary(), "kept for the reviewer");
    assertEquals(Event.statusChange("A", ItemStatus.IN_PROGRESS, ItemStatus.AWAITING_REVIEW, "review", null),
        step.events().get(1));
    assertTrue(step.next().status().isTerminal(), "no run works on it");

    assertEquals(ItemStatus.DONE, Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "review"), feature(),
        outcome(AgentResult.PHASE_COMPLETE, "all reviewed", ""), 2).next().status());
    assertEquals(ItemStatus.IN_PROGRESS, Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "design"), REVIEWED,
        outcome(AgentResult.PHASE_COMPLETE, "designed", ""), 2).next().status(), "only the last phase awaits");
    assertEquals(ItemStatus.READY, Transitions.afterAttempt(at(ItemStatus.SCOPING, "scope"), REVIEWED,
        outcome(AgentResult.PHASE_COMPLETE, "scoped", ""), 2).next().status(), "nor does scoping's end");
  }

  @Test
  void approve_makes_an_awaiting_item_done() {
    Step step = Transitions.approve(awaiting());
    assertEquals(Progress.of(ItemStatus.DONE), step.next().progress());
    assertEquals(List.of(Event.statusChange("A", ItemStatus.AWAITING_REVIEW, ItemStatus.DONE, null, "approved")),
        step.events());
  }

  @Test
  void reject_returns_to_the_last_phase_by_default_or_the_named_one_with_the_notes_and_no_attempts() {
    Step step = Transitions.reject(awaiting(), REVIEWED, "  rename the flag  ", null);
    assertEquals(new Progress(ItemStatus.IN_PROGRESS, "review", 0, null, null, null, null, "rename the flag"),
        step.next().progress());
    assertEquals(List.of(Event.statusChange("A", ItemStatus.AWAITING_REVIEW, ItemStatus.IN_PROGRESS, "review",
        "rejected with notes")), step.events());

    Progress design = Transitions.reject(awaiting(), REVIEWED, "redo the design", "design").next().progress();
    assertEquals(ItemStatus.IN_PROGRESS, design.status());
    assertEquals("design", design.phase());
    Progress scope = Transitions.reject(awaiting(), REVIEWED, "scope it again", "scope").next().progress();
    assertEquals(ItemStatus.SCOPING, scope.status());
    assertEquals("scope", scope.phase());
  }

  @Test
  void the_notes_are_capped_like_unblocks_and_cleared_once_the_phase_succeeds() {
    Step step = Transitions.reject(awaiting(), REVIEWED, "x".repeat(Transitions.UNBLOCK_NOTES_MAX_CHARS + 10), null);
    assertEquals(1, step.truncatedValues());
    Progress after = Transitions
        .afterAttempt(step.next(), REVIEWED, outcome(AgentResult.PHASE_COMPLETE, "fixed", ""), 2)
        .next().progress();
    assertEquals(ItemStatus.AWAITING_REVIEW, after.status());
    assertNull(after.unblockNotes());
  }

  @Test
  void only_an_awaiting_item_is_approved_or_rejected_and_reject_needs_notes_and_a_known_phase() {
    for (ItemState item : List.of(at(ItemStatus.IN_PROGRESS, "review"),
        new ItemState(item("A"), 1, true, Progress.of(ItemStatus.DONE)))) {
      InvalidTransitionException e = assertThrows(InvalidTransitionException.class, () -> Transitions.approve(item));
      assertTrue(e.getMessage().contains("not awaiting_review; only items awaiting review can be approved"),
          e.getMessage());
      assertThrows(InvalidTransitionException.class, () -> Transitions.reject(item, REVIEWED, "notes", null));
    }
    assertEquals("reject needs notes for the agent", assertThrows(InvalidTransitionException.class,
        () -> Transitions.reject(awaiting(), REVIEWED, " ", null)).getMessage());
    assertEquals("pipeline feature of item A has no phase 'deploy': its phases are scope, design, build, review",
        assertThrows(InvalidTransitionException.class,
            () -> Transitions.reject(awaiting(), REVIEWED, "notes", "deploy")).getMessage());
    assertThrows(InvalidTransitionException.class, () -> Transitions.block(awaiting(), "a reason"));
  }

  @Test
  void a_review_timeout_applies_its_action_once_the_wait_has_lasted_that_long_and_not_before() {
    java.time.Instant since = java.time.Instant.parse("2026-11-26T10:00:00Z");
    java.time.Duration hour = java.time.Duration.ofHours(1);
    Pipeline approve = ConfigWithers.withReviewTimeout(REVIEWED,
        new Pipeline.ReviewTimeout(hour, Pipeline.TimeoutAction.APPROVE));
    assertNull(Transitions.reviewTimedOut(awaiting(), approve, since, since.plus(hour).minusMillis(1)));
    assertNull(Transitions.reviewTimedOut(awaiting(), REVIEWED, since, since.plus(hour.multipliedBy(9))),
        "no timeout configured");
    assertNull(Transitions.reviewTimedOut(at(ItemStatus.IN_PROGRESS, "review"), approve, since, since.plus(hour)));

    Step approved = Transitions.reviewTimedOut(awaiting(), approve, since, since.plus(hour));
    assertEquals(ItemStatus.DONE, approved.next().status());
    assertEquals("approved by on_review_timeout: awaited review longer than review_timeout 1h",
        approved.events().get(0).payload().get("reason"));

    Step rejected = Transitions.reviewTimedOut(awaiting(),
        ConfigWithers.withReviewTimeout(REVIEWED, new Pipeline.ReviewTimeout(hour, Pipeline.TimeoutAction.REJECT)),
        since,
        since.plus(hour));
    assertEquals(ItemStatus.IN_PROGRESS, rejected.next().status());
    assertEquals("review", rejected.next().progress().phase());
    assertTrue(rejected.next().progress().unblockNotes().startsWith("Nobody reviewed this item's work in time"));

    Step blocked = Transitions.reviewTimedOut(awaiting(),
        ConfigWithers.withReviewTimeout(REVIEWED, new Pipeline.ReviewTimeout(hour, Pipeline.TimeoutAction.BLOCK)),
        since,
        since.plus(hour));
    assertEquals(ItemStatus.BLOCKED, blocked.next().status());
    Step unblocked = Transitions.unblock(blocked.next(), "waiting again");
    assertEquals(ItemStatus.AWAITING_REVIEW, unblocked.next().status(), "unblock returns it to await review");
  }
}
