package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.OnUsageLimit;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One wave of refusals is one strike, whatever order the jobs' ends arrive in: against fixed instants,
 * the orders a loaded machine produces (issue 44; ProviderLimitsTest's four-job wave once said two
 * first backoffs on CI when one job's end came after the pause was over and a retry had worked).
 */
class ProviderPausesTest {
  private static final Instant T0 = Instant.parse("2026-11-26T10:30:00Z");
  private static final ProviderFailure OVERLOADED = ProviderFailure.of(OutcomeClass.RATE_LIMITED,
      "API Error: 529 {\"type\":\"overloaded_error\"}");

  private final AgentPauses store = AgentPauses.inMemory();
  private final ProviderPauses pauses = new ProviderPauses(store,
      new LimitPolicy(OnUsageLimit.WAIT, Duration.ofHours(6), ZoneOffset.UTC, () -> 0.5));

  private static Instant at(int seconds) {
    return T0.plusSeconds(seconds);
  }

  @Test
  void four_jobs_refused_together_are_one_strike_said_once() {
    LimitPolicy.Decision first = pauses.failed("agent", OVERLOADED, at(1), at(10));
    assertNotNull(first.message());
    assertTrue(first.message().contains("(1st backoff)"), first.message());
    for (int job = 2; job <= 4; job++) {
      LimitPolicy.Decision d = pauses.failed("agent", OVERLOADED, at(job), at(10 + job));
      assertNull(d.message(), "job " + job + " of the same wave");
      assertNull(d.pause(), "job " + job);
    }
    assertEquals(1, store.all().get(0).strikes());
  }

  @Test
  void a_refusal_of_a_wave_already_over_adds_no_strike_and_no_pause() {
    LimitPolicy.Decision first = pauses.failed("agent", OVERLOADED, at(1), at(10));
    Instant end = first.pause().until();
    assertTrue(pauses.paused("agent", at(11)));
    assertFalse(pauses.paused("agent", end.plusSeconds(1)), "the backoff is over");
    assertTrue(pauses.worked("agent", end.plusSeconds(2)), "a retry started after the wave got through");

    LimitPolicy.Decision late = pauses.failed("agent", OVERLOADED, at(2), end.plusSeconds(30));
    assertNull(late.message(), "older news than the answer that ended the pause: " + late.message());
    assertNull(late.pause());
    assertNull(late.halt());
    assertEquals(List.of(), store.all(), "no pause recorded for it");
    assertFalse(pauses.paused("agent", end.plusSeconds(31)));
  }

  @Test
  void a_refusal_after_the_wave_was_over_is_a_new_strike() {
    LimitPolicy.Decision first = pauses.failed("agent", OVERLOADED, at(1), at(10));
    Instant end = first.pause().until();
    assertTrue(pauses.worked("agent", end.plusSeconds(2)));

    LimitPolicy.Decision again = pauses.failed("agent", OVERLOADED, end.plusSeconds(5), end.plusSeconds(40));
    assertNotNull(again.pause(), "a job started after the last strike meets a limit of its own");
    assertTrue(again.message().contains("(1st backoff)"), "the last pause ended as the profile worked: "
        + again.message());
  }

  @Test
  void a_refusal_while_the_pause_still_stands_but_is_over_stays_in_its_wave() {
    LimitPolicy.Decision first = pauses.failed("agent", OVERLOADED, at(1), at(10));
    Instant end = first.pause().until();
    assertFalse(pauses.paused("agent", end.plusSeconds(1)));

    LimitPolicy.Decision late = pauses.failed("agent", OVERLOADED, at(3), end.plusSeconds(5));
    assertNull(late.message(), "nothing worked since: the same wave, said once");
    assertEquals(1, store.all().get(0).strikes());
  }
}
