package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import dev.orchestrate.scheduler.JobEnds.Ending;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** Which of its handlers a job's end goes to (JobEnds.Ending), and when a provider counts as having answered. */
class JobEndingTest {
  private static AgentOutcome outcome(AgentResult result, AgentOutcome.Ending ending) {
    return new AgentOutcome(result, "s", "c", List.of(), List.of(), OptionalInt.of(1), ending, Duration.ofSeconds(1));
  }

  private static ProviderFailure provider(OutcomeClass kind) {
    return new ProviderFailure(kind, "the provider said no", null, null);
  }

  @Test
  void a_cancelled_agent_and_one_that_failed_while_the_run_stopped_are_cancelled() {
    assertEquals(Ending.CANCELLED, Ending.of(outcome(AgentResult.FAILED, AgentOutcome.Ending.CANCELLED), false));
    assertEquals(Ending.CANCELLED, Ending.of(outcome(AgentResult.FAILED, AgentOutcome.Ending.EXITED), true));
    // a success while the run stops is still a success
    assertEquals(Ending.ANSWERED, Ending.of(outcome(AgentResult.PHASE_COMPLETE, AgentOutcome.Ending.EXITED), true));
    // even a limit: the stop came first
    assertEquals(Ending.CANCELLED, Ending.of(outcome(AgentResult.FAILED, AgentOutcome.Ending.EXITED)
        .withProvider(provider(OutcomeClass.USAGE_LIMIT)), true));
  }

  @Test
  void a_limit_or_a_refused_key_its_provider_named_is_limited() {
    for (OutcomeClass kind : List.of(OutcomeClass.USAGE_LIMIT, OutcomeClass.RATE_LIMITED, OutcomeClass.AUTH)) {
      AgentOutcome limited = outcome(AgentResult.FAILED, AgentOutcome.Ending.EXITED).withProvider(provider(kind));
      assertEquals(kind, limited.kind());
      assertEquals(Ending.LIMITED, Ending.of(limited, false), kind.key());
    }
  }

  @Test
  void a_failure_a_stall_and_a_timeout_are_answered_and_handled_as_the_outcome_says() {
    assertEquals(Ending.ANSWERED, Ending.of(outcome(AgentResult.FAILED, AgentOutcome.Ending.EXITED), false));
    assertEquals(Ending.ANSWERED, Ending.of(outcome(AgentResult.FAILED, AgentOutcome.Ending.STALLED), false));
    assertEquals(Ending.ANSWERED, Ending.of(outcome(AgentResult.FAILED, AgentOutcome.Ending.TIMED_OUT), false));
    assertEquals(Ending.ANSWERED, Ending.of(outcome(AgentResult.BLOCKED, AgentOutcome.Ending.EXITED), false));
  }

  @Test
  void a_budget_cut_is_answered_not_limited_and_not_counted() {
    AgentOutcome cut = outcome(AgentResult.FAILED, AgentOutcome.Ending.EXITED)
        .withProvider(provider(OutcomeClass.BUDGET_EXHAUSTED));
    assertEquals(OutcomeClass.BUDGET_EXHAUSTED, cut.kind());
    // no pause of its profile, no halt: the item's own transition keeps it in place
    assertEquals(Ending.ANSWERED, Ending.of(cut, false));
    assertTrue(cut.kind().uncounted());
    assertFalse(cut.kind().isLimit());
    for (OutcomeClass kind : OutcomeClass.values()) {
      assertEquals(kind.isLimit() || kind == OutcomeClass.BUDGET_EXHAUSTED, kind.uncounted(), kind.key());
    }
    // a budget cut while the run stops died of the stop, as any failure then
    assertEquals(Ending.CANCELLED, Ending.of(cut, true));
  }

  @Test
  void only_an_answer_of_the_provider_ends_a_pause() {
    for (OutcomeClass kind : OutcomeClass.values()) {
      boolean answered = List.of(OutcomeClass.SUCCEEDED, OutcomeClass.FAILED, OutcomeClass.VERIFY_FAILED,
          OutcomeClass.NO_CHANGES, OutcomeClass.PROTECTED_CHANGED, OutcomeClass.BLOCKED, OutcomeClass.DENIED,
          OutcomeClass.BUDGET_EXHAUSTED).contains(kind);
      assertEquals(answered, kind.providerAnswered(), kind.key());
    }
    assertFalse(OutcomeClass.STALLED.providerAnswered());
    assertTrue(OutcomeClass.DENIED.providerAnswered());
  }
}
