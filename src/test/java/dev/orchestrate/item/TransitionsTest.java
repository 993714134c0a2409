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
import dev.orchestrate.outcome.OutcomeClass;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransitionsTest {
  private static final Pipeline FEATURE = feature();
  private static final Pipeline NO_PRE = new Pipeline("p", List.of(), FEATURE.phases());

  private static ItemState at(ItemStatus status, String phase) {
    return new ItemState(item("A"), 1, true, Progress.of(ItemStatus.NEW).atPhase(status, phase));
  }

  @Test
  void a_new_item_enters_scoping_at_the_first_pre_phase() {
    Step step = Transitions.advance(new ItemState(item("A"), 1, true, Progress.of(ItemStatus.NEW)), FEATURE);
    assertEquals(ItemStatus.SCOPING, step.next().status());
    assertEquals("scope", step.next().progress().phase());
    assertEquals(List.of(Event.statusChange("A", ItemStatus.NEW, ItemStatus.SCOPING, "scope", null)), step.events());
  }

  @Test
  void a_new_item_of_a_pipeline_without_pre_phases_becomes_ready() {
    Step step = Transitions.advance(new ItemState(item("A"), 1, true, Progress.of(ItemStatus.NEW)), NO_PRE);
    assertEquals(ItemStatus.READY, step.next().status());
    assertNull(step.next().progress().phase());
  }

  @Test
  void a_ready_item_enters_in_progress_at_the_first_phase() {
    Step step = Transitions.advance(new ItemState(item("A"), 1, true, Progress.of(ItemStatus.READY)), FEATURE);
    assertEquals(ItemStatus.IN_PROGRESS, step.next().status());
    assertEquals("design", step.next().progress().phase());
  }

  @Test
  void only_new_and_ready_items_advance() {
    assertThrows(InvalidTransitionException.class,
        () -> Transitions.advance(at(ItemStatus.IN_PROGRESS, "design"), FEATURE));
    assertThrows(InvalidTransitionException.class,
        () -> Transitions.advance(new ItemState(item("A"), 1, true, Progress.of(ItemStatus.DONE)), FEATURE));
  }

  @Test
  void only_an_item_in_a_phase_takes_an_attempts_outcome() {
    for (ItemStatus status : List.of(ItemStatus.NEW, ItemStatus.READY, ItemStatus.DONE)) {
      assertThrows(InvalidTransitionException.class, () -> Transitions.afterAttempt(
          new ItemState(item("A"), 1, true, Progress.of(status)), FEATURE,
          outcome(AgentResult.PHASE_COMPLETE, "done", ""), 2), status.key());
    }
  }

  @Test
  void a_done_or_blocked_item_cannot_be_blocked_again_and_any_other_item_can() {
    assertThrows(InvalidTransitionException.class,
        () -> Transitions.block(new ItemState(item("A"), 1, true, Progress.of(ItemStatus.DONE)), "why"));
    InvalidTransitionException e = assertThrows(InvalidTransitionException.class,
        () -> Transitions.block(blockedAt(ItemStatus.IN_PROGRESS, "build"), "why"));
    assertEquals("item A is blocked; a done or blocked item cannot be blocked", e.getMessage());
    for (ItemStatus status : List.of(ItemStatus.NEW, ItemStatus.READY)) {
      assertEquals(ItemStatus.BLOCKED,
          Transitions.block(new ItemState(item("A"), 1, true, Progress.of(status)), "why").next().status());
    }
    assertEquals(ItemStatus.BLOCKED, Transitions.block(at(ItemStatus.IN_PROGRESS, "build"), "why").next().status());
  }

  @Test
  void phase_complete_moves_to_the_next_phase_and_keeps_the_summary_for_it() {
    Step step = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "design"), FEATURE,
        outcome(AgentResult.PHASE_COMPLETE, "designed it", ""), 2);
    assertEquals(ItemStatus.IN_PROGRESS, step.next().status());
    assertEquals("build", step.next().progress().phase());
    assertEquals("designed it", step.next().progress().phaseSummary());
    assertEquals(0, step.next().progress().attempts());
    assertEquals(Event.PHASE_RESULT, step.events().get(0).kind());
  }

  @Test
  void the_last_pre_phase_makes_the_item_ready_with_its_summary() {
    Step step = Transitions.afterAttempt(at(ItemStatus.SCOPING, "scope"), FEATURE,
        outcome(AgentResult.PHASE_COMPLETE, "scoped", ""), 2);
    assertEquals(ItemStatus.READY, step.next().status());
    assertNull(step.next().progress().phase());
    assertEquals("scoped", step.next().progress().phaseSummary());
  }

  @Test
  void the_last_phase_makes_the_item_done_without_keeping_a_summary() {
    Step step = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "review"), FEATURE,
        outcome(AgentResult.PHASE_COMPLETE, "reviewed", ""), 2);
    assertEquals(ItemStatus.DONE, step.next().status());
    assertNull(step.next().progress().phaseSummary());
    assertNull(step.next().progress().phase());
  }

  @Test
  void subphase_complete_reruns_the_same_phase_with_the_new_summary() {
    ItemState failedOnce = at(ItemStatus.IN_PROGRESS, "build").with(
        at(ItemStatus.IN_PROGRESS, "build").progress().withFailure("boom"));
    Step step = Transitions.afterAttempt(failedOnce, FEATURE, outcome(AgentResult.SUBPHASE_COMPLETE, "part 1", ""), 2);
    assertEquals("build", step.next().progress().phase());
    assertEquals(ItemStatus.IN_PROGRESS, step.next().status());
    assertEquals("part 1", step.next().progress().phaseSummary());
    assertEquals(0, step.next().progress().attempts());
    assertNull(step.next().progress().lastFailure());
  }

  @Test
  void a_failure_counts_an_attempt_keeps_the_summary_and_records_the_context() {
    ItemState item = at(ItemStatus.IN_PROGRESS, "build").with(
        at(ItemStatus.IN_PROGRESS, "build").progress().withSummary("the design"));
    Step step = Transitions.afterAttempt(item, FEATURE, outcome(AgentResult.FAILED, "", "tests failed"), 2);
    assertEquals(ItemStatus.IN_PROGRESS, step.next().status());
    assertEquals(1, step.next().progress().attempts());
    assertEquals("tests failed", step.next().progress().lastFailure());
    assertEquals("the design", step.next().progress().phaseSummary());
  }

  @Test
  void exhausting_the_retries_blocks_the_item_where_it_was() {
    ItemState item = at(ItemStatus.IN_PROGRESS, "build");
    item = Transitions.afterAttempt(item, FEATURE, outcome(AgentResult.FAILED, "", "one"), 2).next();
    item = Transitions.afterAttempt(item, FEATURE, outcome(AgentResult.FAILED, "", "two"), 2).next();
    assertEquals(ItemStatus.IN_PROGRESS, item.status());
    Step third = Transitions.afterAttempt(item, FEATURE, outcome(AgentResult.FAILED, "", "three"), 2);
    Progress p = third.next().progress();
    assertEquals(ItemStatus.BLOCKED, p.status());
    assertEquals(ItemStatus.IN_PROGRESS, p.blockedFrom());
    assertEquals("build", p.phase());
    assertEquals("retries exhausted in phase build after 3 attempts: three", p.blockedReason());
    assertNull(p.phaseSummary());
  }

  @Test
  void zero_retries_block_after_the_first_failure() {
    Step step = Transitions.afterAttempt(at(ItemStatus.SCOPING, "scope"), FEATURE,
        outcome(AgentResult.FAILED, "", "no"), 0);
    assertEquals(ItemStatus.BLOCKED, step.next().status());
    assertEquals(ItemStatus.SCOPING, step.next().progress().blockedFrom());
    assertEquals("retries exhausted in phase scope after 1 attempt: no", step.next().progress().blockedReason());
  }

  /** Issue 43: a block orchestrate decided (a breach of the workspace) began "agent reported blocked". */
  @Test
  void a_block_orchestrate_decided_says_so_and_not_that_the_agent_reported_it() {
    Step step = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "design"), FEATURE,
        outcome(AgentResult.BLOCKED, "done, I think", "the agent moved the base branch main; put it back")
            .withVerdict(OutcomeClass.BLOCKED),
        2);

    assertEquals(ItemStatus.BLOCKED, step.next().status());
    assertEquals("orchestrate blocked it after phase design: the agent moved the base branch main; put it back",
        step.next().progress().blockedReason());
  }

  @Test
  void an_agent_reporting_blocked_blocks_at_once_with_its_context() {
    Step step = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "design"), FEATURE,
        outcome(AgentResult.BLOCKED, "", "which provider?"), 2);
    assertEquals(ItemStatus.BLOCKED, step.next().status());
    assertEquals("agent reported blocked in phase design: which provider?", step.next().progress().blockedReason());
    assertTrue(step.events().stream().anyMatch(e -> e.kind().equals(Event.ITEM_STATUS)
        && "blocked".equals(e.payload().get("to"))));
  }

  @Test
  void unblock_notes_are_cleared_once_a_phase_succeeds_but_kept_through_failures() {
    Progress withNotes = new Progress(ItemStatus.IN_PROGRESS, "design", 0, null, null, null, null, "use stripe");
    ItemState item = new ItemState(item("A"), 1, true, withNotes);
    ItemState failed = Transitions.afterAttempt(item, FEATURE, outcome(AgentResult.FAILED, "", "x"), 2).next();
    assertEquals("use stripe", failed.progress().unblockNotes());
    ItemState done = Transitions.afterAttempt(failed, FEATURE, outcome(AgentResult.PHASE_COMPLETE, "ok", ""), 2).next();
    assertNull(done.progress().unblockNotes());
  }

  @Test
  void an_item_whose_phase_was_removed_from_the_pipeline_restarts_the_stage() {
    Step step = Transitions.realign(at(ItemStatus.IN_PROGRESS, "gone"), FEATURE);
    assertEquals("design", step.next().progress().phase());
    assertNull(Transitions.realign(at(ItemStatus.IN_PROGRESS, "build"), FEATURE));
  }

  private static ItemState blockedAt(ItemStatus from, String phase) {
    return new ItemState(item("A"), 1, true, Progress.blocked(from, phase, "agent reported blocked in phase " + phase));
  }

  @Test
  void unblock_returns_an_item_blocked_in_progress_to_in_progress_at_the_same_phase_with_the_notes() {
    ItemState blocked = blockedAt(ItemStatus.IN_PROGRESS, "build");
    Step step = Transitions.unblock(blocked, "Use the staging key in vault/staging.");
    Progress p = step.next().progress();
    assertEquals(ItemStatus.IN_PROGRESS, p.status());
    assertEquals("build", p.phase());
    assertEquals(0, p.attempts());
    assertNull(p.blockedReason());
    assertNull(p.blockedFrom());
    assertNull(p.lastFailure());
    assertEquals("Use the staging key in vault/staging.", p.unblockNotes());
    assertEquals(List.of(Event.statusChange("A", ItemStatus.BLOCKED, ItemStatus.IN_PROGRESS, "build",
        "unblocked with notes")), step.events());
  }

  @Test
  void unblock_returns_an_item_blocked_while_scoping_to_scoping_at_its_pre_phase() {
    Step step = Transitions.unblock(blockedAt(ItemStatus.SCOPING, "scope"), "Scope it to the API only.");
    assertEquals(ItemStatus.SCOPING, step.next().status());
    assertEquals("scope", step.next().progress().phase());
    assertEquals("blocked", step.events().get(0).payload().get("from"));
    assertEquals("scoping", step.events().get(0).payload().get("to"));
  }

  @Test
  void unblock_of_an_item_marked_blocked_in_the_backlog_starts_it_as_new() {
    ItemState marked = new ItemState(item("A"), 1, true, Progress.blocked(ItemStatus.NEW, null, "marked blocked"));
    Step step = Transitions.unblock(marked, "Go ahead.");
    assertEquals(ItemStatus.NEW, step.next().status());
    assertNull(step.next().progress().phase());
  }

  @Test
  void an_item_that_is_not_blocked_cannot_be_unblocked() {
    InvalidTransitionException e = assertThrows(InvalidTransitionException.class,
        () -> Transitions.unblock(at(ItemStatus.IN_PROGRESS, "build"), "notes"));
    assertEquals("item A is in_progress, not blocked; only blocked items can be unblocked", e.getMessage());
  }

  @Test
  void unblock_needs_notes_that_are_not_blank() {
    assertThrows(InvalidTransitionException.class,
        () -> Transitions.unblock(blockedAt(ItemStatus.IN_PROGRESS, "build"), " "));
    assertThrows(InvalidTransitionException.class,
        () -> Transitions.unblock(blockedAt(ItemStatus.IN_PROGRESS, "build"), null));
  }

  @Test
  void unblock_notes_are_capped_keeping_their_beginning_and_end() {
    String notes = "start " + "x".repeat(20_000) + " end";
    String stored = Transitions.unblock(blockedAt(ItemStatus.IN_PROGRESS, "build"), notes).next().progress()
        .unblockNotes();
    assertEquals(Transitions.UNBLOCK_NOTES_MAX_CHARS, stored.length());
    assertTrue(stored.startsWith("start ") && stored.endsWith(" end") && stored.contains("…[truncated "), stored);
  }

  @Test
  void unblock_notes_stay_through_a_failed_retry_and_are_cleared_when_the_phase_succeeds() {
    ItemState unblocked = Transitions.unblock(blockedAt(ItemStatus.IN_PROGRESS, "build"), "notes").next();
    ItemState failed = Transitions.afterAttempt(unblocked, FEATURE, outcome(AgentResult.FAILED, "", "boom"), 2).next();
    assertEquals("notes", failed.progress().unblockNotes());
    ItemState next = Transitions.afterAttempt(failed, FEATURE, outcome(AgentResult.PHASE_COMPLETE, "built", ""), 2)
        .next();
    assertEquals("review", next.progress().phase());
    assertNull(next.progress().unblockNotes());
  }

  @Test
  void a_step_counts_the_values_it_cut_and_nothing_for_values_that_fit() {
    String notes = "n".repeat(Transitions.UNBLOCK_NOTES_MAX_CHARS + 1);
    assertEquals(1, Transitions.unblock(blockedAt(ItemStatus.IN_PROGRESS, "build"), notes).truncatedValues());
    assertEquals(0, Transitions.unblock(blockedAt(ItemStatus.IN_PROGRESS, "build"), "go").truncatedValues());

    String huge = "s".repeat(Transitions.ITEM_TEXT_MAX_CHARS * 2);
    Step next = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "design"), FEATURE,
        outcome(AgentResult.PHASE_COMPLETE, huge, ""), 2);
    assertEquals(1, next.truncatedValues());
    assertTrue(next.next().progress().phaseSummary().length() <= Transitions.ITEM_TEXT_MAX_CHARS);
    Step failed = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "design"), FEATURE,
        outcome(AgentResult.FAILED, "", huge), 2);
    assertEquals(1, failed.truncatedValues());
    assertTrue(failed.next().progress().lastFailure().length() <= Transitions.ITEM_TEXT_MAX_CHARS);
    assertEquals(0, Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "design"), FEATURE,
        outcome(AgentResult.FAILED, "", "boom"), 2).truncatedValues());
  }

  @Test
  void a_done_item_keeps_no_summary_so_a_long_one_is_not_counted_as_cut() {
    Step done = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "review"), FEATURE,
        outcome(AgentResult.PHASE_COMPLETE, "s".repeat(50_000), ""), 2);
    assertEquals(ItemStatus.DONE, done.next().status());
    assertEquals(0, done.truncatedValues());
  }

  @Test
  void a_blocked_reason_is_capped_with_the_marker_and_counted() {
    String context = "c".repeat(Transitions.BLOCKED_REASON_MAX_CHARS * 2);
    Step blocked = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "build"), FEATURE,
        outcome(AgentResult.BLOCKED, "", context), 2);
    String reason = blocked.next().progress().blockedReason();
    assertTrue(reason.length() <= Transitions.BLOCKED_REASON_MAX_CHARS);
    assertTrue(reason.startsWith("agent reported blocked in phase build: ccc") && reason.contains("…[truncated "));
    assertEquals(1, blocked.truncatedValues());
    assertEquals(reason, blocked.events().get(1).payload().get("reason"), "the event carries the capped reason");

    Step exhausted = Transitions.afterAttempt(at(ItemStatus.IN_PROGRESS, "build"), FEATURE,
        outcome(AgentResult.FAILED, "", context), 0);
    assertEquals(ItemStatus.BLOCKED, exhausted.next().status());
    assertEquals(1, exhausted.truncatedValues(), "the reason is stored, the dropped last failure is not counted");
    assertEquals(1, Transitions.block(at(ItemStatus.IN_PROGRESS, "build"), context).truncatedValues());
    assertEquals(0, Transitions.block(at(ItemStatus.IN_PROGRESS, "build"), "short").truncatedValues());
  }
}
