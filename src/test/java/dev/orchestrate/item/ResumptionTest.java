package dev.orchestrate.item;

import static dev.orchestrate.testing.Fixtures.feature;
import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Which attempts leave a session the next one continues (issue 29), and how Transitions keeps it. */
class ResumptionTest {
  private static final Pipeline FEATURE = feature();
  private static final AgentSession SESSION = new AgentSession("s-1", AgentSession.Start.FRESH);
  private static final Progress.Resume RESUME = new Progress.Resume("claude", "s-1");

  private static AgentOutcome ended(AgentResult result, int exit, AgentOutcome.Ending ending) {
    return new AgentOutcome(result, "", "why", List.of(), List.of(), OptionalInt.of(exit), ending,
        Duration.ofSeconds(1)).withSession(SESSION);
  }

  private static AgentOutcome provider(OutcomeClass kind) {
    return ended(AgentResult.FAILED, 1, AgentOutcome.Ending.EXITED)
        .withProvider(ProviderFailure.of(kind, kind.key() + " from the provider"));
  }

  static Stream<Arguments> outcomes() {
    AgentOutcome succeeded = ended(AgentResult.PHASE_COMPLETE, 0, AgentOutcome.Ending.EXITED);
    return Stream.of(
        Arguments.of(OutcomeClass.FAILED, ended(AgentResult.FAILED, 1, AgentOutcome.Ending.EXITED), true),
        Arguments.of(OutcomeClass.VERIFY_FAILED, succeeded.refutedAs(OutcomeClass.VERIFY_FAILED, "red"), true),
        Arguments.of(OutcomeClass.NO_CHANGES, succeeded.refutedAs(OutcomeClass.NO_CHANGES, "nothing"), true),
        Arguments.of(OutcomeClass.STALLED, ended(AgentResult.FAILED, 143, AgentOutcome.Ending.STALLED), true),
        Arguments.of(OutcomeClass.USAGE_LIMIT, provider(OutcomeClass.USAGE_LIMIT), true),
        Arguments.of(OutcomeClass.RATE_LIMITED, provider(OutcomeClass.RATE_LIMITED), true),
        // the next attempt goes on from the paid-for work (the CLI's budget is the run's, not the session's)
        Arguments.of(OutcomeClass.BUDGET_EXHAUSTED, provider(OutcomeClass.BUDGET_EXHAUSTED), true),
        Arguments.of(OutcomeClass.FAILED, ended(AgentResult.FAILED, 137, AgentOutcome.Ending.EXITED), false),
        Arguments.of(OutcomeClass.TIMED_OUT, ended(AgentResult.FAILED, 143, AgentOutcome.Ending.TIMED_OUT), false),
        Arguments.of(OutcomeClass.CANCELLED, ended(AgentResult.FAILED, 130, AgentOutcome.Ending.CANCELLED), false),
        Arguments.of(OutcomeClass.SPAWN_FAILED, ended(AgentResult.FAILED, 127, AgentOutcome.Ending.SPAWN_FAILED),
            false),
        Arguments.of(OutcomeClass.AUTH, provider(OutcomeClass.AUTH), false),
        Arguments.of(OutcomeClass.DENIED, provider(OutcomeClass.DENIED), false),
        Arguments.of(OutcomeClass.BLOCKED, ended(AgentResult.BLOCKED, 0, AgentOutcome.Ending.EXITED), false),
        Arguments.of(OutcomeClass.SUCCEEDED, succeeded, false));
  }

  @ParameterizedTest(name = "{0} (keeps: {2})")
  @MethodSource("outcomes")
  void an_outcome_class_keeps_the_session_only_when_a_continuation_can_mend_it(OutcomeClass kind,
      AgentOutcome outcome, boolean keeps) {
    assertEquals(kind, outcome.kind());
    assertEquals(keeps ? RESUME : null, Resumption.after(outcome, "claude"));
  }

  @Test
  void nothing_is_kept_without_a_session_id_or_a_profile() {
    AgentOutcome failed = ended(AgentResult.FAILED, 1, AgentOutcome.Ending.EXITED);
    assertNull(Resumption.after(failed.withSession(AgentSession.NONE), "claude"));
    assertNull(Resumption.after(failed, null));
  }

  // --- Transitions ---

  private static ItemState at(String phase, Progress.Resume resume) {
    return new ItemState(item("A"), 1, true,
        Progress.of(ItemStatus.NEW).atPhase(ItemStatus.IN_PROGRESS, phase).withResume(resume));
  }

  @Test
  void a_red_gate_is_a_counted_attempt_whose_failure_and_session_the_next_attempt_gets() {
    AgentOutcome red = ended(AgentResult.PHASE_COMPLETE, 0, AgentOutcome.Ending.EXITED)
        .refutedAs(OutcomeClass.VERIFY_FAILED, "gate 'tests' failed (exit 1)");
    Step step = Transitions.afterAttempt(at("build", null), FEATURE, red, 2, "claude");
    Progress next = step.next().progress();
    assertEquals(ItemStatus.IN_PROGRESS, next.status());
    assertEquals("build", next.phase());
    assertEquals(1, next.attempts());
    assertEquals("gate 'tests' failed (exit 1)", next.lastFailure());
    assertEquals(RESUME, next.resume());
  }

  @Test
  void a_crash_clears_the_session_an_earlier_attempt_left() {
    Step step = Transitions.afterAttempt(at("build", new Progress.Resume("claude", "old")), FEATURE,
        ended(AgentResult.FAILED, 137, AgentOutcome.Ending.EXITED), 2, "claude");
    assertNull(step.next().progress().resume());
    assertEquals(1, step.next().progress().attempts());
  }

  @Test
  void a_new_phase_a_subphase_a_block_and_exhausted_retries_start_fresh() {
    ItemState resumable = at("build", RESUME);
    assertNull(Transitions.afterAttempt(resumable, FEATURE, outcome(AgentResult.PHASE_COMPLETE, "built", ""), 2,
        "claude").next().progress().resume());
    assertEquals("review", Transitions.afterAttempt(resumable, FEATURE,
        outcome(AgentResult.PHASE_COMPLETE, "built", ""), 2, "claude").next().progress().phase());
    assertNull(Transitions.afterAttempt(resumable, FEATURE, outcome(AgentResult.SUBPHASE_COMPLETE, "part", ""), 2,
        "claude").next().progress().resume());
    assertNull(Transitions.afterAttempt(resumable, FEATURE, outcome(AgentResult.BLOCKED, "", "need a key"), 2,
        "claude").next().progress().resume());
    Step exhausted = Transitions.afterAttempt(resumable, FEATURE,
        ended(AgentResult.FAILED, 1, AgentOutcome.Ending.EXITED), 0, "claude");
    assertEquals(ItemStatus.BLOCKED, exhausted.next().status());
    assertNull(exhausted.next().progress().resume());
  }

  @Test
  void without_a_profile_an_attempt_keeps_no_session() {
    Step step = Transitions.afterAttempt(at("build", null), FEATURE,
        ended(AgentResult.FAILED, 1, AgentOutcome.Ending.EXITED), 2);
    assertNull(step.next().progress().resume());
  }

  @Test
  void a_limit_keeps_the_session_without_counting_the_attempt() {
    Step step = Transitions.afterLimit(at("build", null), provider(OutcomeClass.USAGE_LIMIT), "claude");
    assertEquals(RESUME, step.next().progress().resume());
    assertEquals(0, step.next().progress().attempts());
    assertEquals(1, step.events().size());

    Step fresh = Transitions.afterLimit(at("build", RESUME),
        provider(OutcomeClass.RATE_LIMITED).withSession(AgentSession.NONE), "claude");
    assertNull(fresh.next().progress().resume());
  }

  @Test
  void a_budget_cut_is_the_same_attempt_again_never_a_block_and_continues_the_session() {
    AgentOutcome cut = provider(OutcomeClass.BUDGET_EXHAUSTED);
    ItemState item = at("build", null);
    // max_retries 0: any counted failure would block the item at once
    for (int i = 0; i < 5; i++) {
      Step step = Transitions.afterAttempt(item, FEATURE, cut, 0, "claude");
      item = step.next();
      assertEquals(ItemStatus.IN_PROGRESS, item.status());
      assertEquals("build", item.progress().phase());
      assertEquals(0, item.progress().attempts());
      assertNull(item.progress().lastFailure());
      assertEquals(RESUME, item.progress().resume());
      // only the phase result, with its class
      assertEquals(1, step.events().size());
      assertEquals("budget_exhausted", step.events().get(0).payload().get("outcome"));
      assertEquals(1, step.events().get(0).payload().get("attempt"));
    }
    // a failure of the agent's own is then the first attempt counted
    Step failed = Transitions.afterAttempt(item, FEATURE, ended(AgentResult.FAILED, 1, AgentOutcome.Ending.EXITED),
        0, "claude");
    assertEquals(ItemStatus.BLOCKED, failed.next().status());
    assertEquals("retries exhausted in phase build after 1 attempt: why", failed.next().progress().blockedReason());
  }

  @Test
  void a_session_belongs_to_a_phase() {
    assertNull(Progress.of(ItemStatus.READY).withResume(RESUME).resume());
    assertThrows(IllegalArgumentException.class, () -> new Progress(ItemStatus.READY, null, 0, null, null, null,
        null, null, RESUME));
    assertEquals(RESUME, at("build", RESUME).progress().withSummary("s").withoutUnblockNotes().resume());
  }

  @Test
  void a_failed_set_up_blocks_the_item_saying_so_and_an_agents_block_says_the_agent() {
    dev.orchestrate.outcome.CommandRun deps = new dev.orchestrate.outcome.CommandRun(
        dev.orchestrate.outcome.CommandRun.Kind.SETUP,
        "deps", 2, dev.orchestrate.outcome.CommandRun.Ending.FAILED, Duration.ofMillis(100), null, "npm ERR!");
    Step step = Transitions.afterAttempt(at("build", RESUME), FEATURE,
        AgentOutcome.setupFailed("workspace.setup 'deps' failed (exit 2) after 0.1s in the new worktree, so no agent "
            + "ran", List.of(deps), Duration.ofMillis(100)),
        2, "claude");
    assertEquals(ItemStatus.BLOCKED, step.next().status());
    assertEquals("the worktree's workspace.setup failed before phase build: workspace.setup 'deps' failed (exit 2) "
        + "after 0.1s in the new worktree, so no agent ran", step.next().progress().blockedReason());
    assertNull(step.next().progress().resume());

    Step agent = Transitions.afterAttempt(at("build", null), FEATURE, outcome(AgentResult.BLOCKED, "", "need a key"),
        2, "claude");
    assertEquals("agent reported blocked in phase build: need a key", agent.next().progress().blockedReason());
  }

  // --- sessionFor ---

  private static AgentConfig agent(AgentPreset preset, boolean resume) {
    return new AgentConfig(List.of("x"), Duration.ofMinutes(1), Duration.ofSeconds(1), Map.of(),
        ResultFallback.EXIT_CODE, 1024, 100, preset, List.of(), null).withResume(resume);
  }

  @Test
  void the_next_attempt_resumes_only_the_same_profiles_session_when_the_profile_resumes() {
    Progress resumable = at("build", RESUME).progress();
    assertEquals("s-1", Resumption.sessionFor(resumable, agent(AgentPreset.CLAUDE, true)));
    assertNull(Resumption.sessionFor(resumable, agent(AgentPreset.CLAUDE, false)), "agent.resume is off");
    assertNull(Resumption.sessionFor(resumable, agent(AgentPreset.CODEX, true)), "another profile's session");
    assertNull(Resumption.sessionFor(resumable, agent(AgentPreset.CLAUDE, true).asProfile("fast", 0)),
        "a profile of the same preset under another name");
    assertNull(Resumption.sessionFor(at("build", new Progress.Resume("agent", "s-1")).progress(),
        agent(AgentPreset.COMMAND, true)), "a plain command cannot resume");
    assertNull(Resumption.sessionFor(at("build", null).progress(), agent(AgentPreset.CLAUDE, true)));
  }
}
