package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.OnUsageLimit;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The decisions a provider's failure leads to, against a fixed now and a fixed jitter. */
class LimitPolicyTest {
  private static final Instant NOW = Instant.parse("2026-11-26T10:30:00Z");
  private static final ProviderFailure RESETS_AT_NOON = ProviderFailure.of(OutcomeClass.USAGE_LIMIT,
      "You've hit your 5-hour limit · resets 12pm (UTC)");
  private static final ProviderFailure NO_RESET = ProviderFailure.of(OutcomeClass.USAGE_LIMIT,
      "API Error: Request rejected (429)");
  private static final ProviderFailure RATE = ProviderFailure.of(OutcomeClass.RATE_LIMITED,
      "API Error: 529 Overloaded");

  private static LimitPolicy policy(OnUsageLimit on, Duration maxWait) {
    return new LimitPolicy(on, maxWait, ZoneOffset.UTC, () -> 0.5); // 0.5: no jitter
  }

  @Test
  void halt_ends_the_run_naming_the_reset_and_records_the_pause_for_the_next_run() {
    LimitPolicy.Decision d = policy(OnUsageLimit.HALT, Duration.ofHours(6))
        .onFailure("claude", RESETS_AT_NOON, null, NOW);
    assertEquals(HaltReason.USAGE_LIMIT, d.halt());
    assertEquals(Instant.parse("2026-11-26T12:00:30Z"), d.pause().until(), "the reset plus a margin");
    assertTrue(d.message().contains("resets 12:00 (UTC)"), d.message());
    assertTrue(d.message().contains("on_usage_limit is halt"), d.message());
  }

  @Test
  void wait_pauses_until_the_reset_and_halts_when_it_is_beyond_max_wait() {
    LimitPolicy.Decision waits = policy(OnUsageLimit.WAIT, Duration.ofHours(6))
        .onFailure("claude", RESETS_AT_NOON, null, NOW);
    assertNull(waits.halt());
    assertEquals(Instant.parse("2026-11-26T12:00:30Z"), waits.pause().until());
    assertEquals("claude paused until 12:01 (UTC), usage limit", waits.message(), "12:00:30, rounded up");

    LimitPolicy.Decision weekly = policy(OnUsageLimit.WAIT, Duration.ofHours(1))
        .onFailure("claude", RESETS_AT_NOON, null, NOW);
    assertEquals(HaltReason.USAGE_LIMIT, weekly.halt());
    assertTrue(weekly.message().contains("further ahead than agent.max_wait (1h)"), weekly.message());
  }

  @Test
  void an_unknown_reset_is_backed_off_and_halts_after_the_bound() {
    LimitPolicy p = policy(OnUsageLimit.WAIT, Duration.ofHours(6));
    AgentPauses.Pause pause = null;
    for (int strike = 1; strike <= LimitPolicy.RATE_LIMIT_STRIKES; strike++) {
      LimitPolicy.Decision d = p.onFailure("claude", NO_RESET, pause, NOW);
      assertNull(d.halt(), "strike " + strike);
      pause = d.pause();
      assertEquals(strike, pause.strikes());
    }
    LimitPolicy.Decision bound = p.onFailure("claude", NO_RESET, pause, NOW);
    assertEquals(HaltReason.USAGE_LIMIT, bound.halt());
    assertEquals(NOW.plus(LimitPolicy.BACKOFF_MAX), bound.pause().until(), "even then the pause has an end");
  }

  /**
   * Issue 44: with an API key the CLI does not say when its limit resets; the pause was recorded
   * with no end, and every later run stopped at once while the provider already answered again.
   */
  @Test
  void halt_without_a_stated_reset_records_a_pause_that_ends_by_the_backoff() {
    LimitPolicy.Decision d = policy(OnUsageLimit.HALT, Duration.ofHours(6)).onFailure("claude", NO_RESET, null, NOW);

    assertEquals(HaltReason.USAGE_LIMIT, d.halt());
    assertEquals(NOW.plusSeconds(30), d.pause().until(), "the first backoff");
    assertEquals("claude hit its usage limit (it did not say when it resets); agent.on_usage_limit is halt: run "
        + "again after 10:31 (UTC) (the 1st backoff), or set it to wait", d.message(), "10:30:30, rounded up");
    assertTrue(!d.pause().activeAt(NOW.plusSeconds(31)), "over once the backoff has passed");
  }

  @Test
  void a_pause_an_older_version_recorded_without_an_end_ends_after_the_longest_backoff() {
    AgentPauses.Pause old = new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, null, "limit", NOW, 3);
    assertTrue(old.activeAt(NOW.plus(Duration.ofMinutes(14))));
    assertTrue(!old.activeAt(NOW.plus(AgentPauses.Pause.UNSTATED_END)), "no pause holds forever");
  }

  @Test
  void a_refusal_of_the_same_wave_adds_no_strike_and_keeps_the_end_unless_it_states_a_later_reset() {
    LimitPolicy p = policy(OnUsageLimit.WAIT, Duration.ofHours(6));
    LimitPolicy.Decision first = p.onFailure("claude", RATE, null, NOW);
    LimitPolicy.Decision again = p.onFailure("claude", RATE, first.pause(), true, NOW.plusSeconds(2));
    assertEquals(first.pause(), again.pause(), "the same pause: one strike, the same end");
    assertNull(again.halt());

    LimitPolicy.Decision later = p.onFailure("claude", RESETS_AT_NOON, first.pause(), true, NOW.plusSeconds(3));
    assertEquals(OutcomeClass.USAGE_LIMIT, later.pause().kind(), "a usage limit with its reset moves the end");
    assertEquals(Instant.parse("2026-11-26T12:00:30Z"), later.pause().until());
    assertEquals(1, later.pause().strikes());

    LimitPolicy.Decision next = p.onFailure("claude", RATE, first.pause(), false, NOW.plusSeconds(40));
    assertEquals(2, next.pause().strikes(), "a job started after the wave is a new strike");
    assertEquals(NOW.plusSeconds(40 + 60), next.pause().until());
    LimitPolicy halting = policy(OnUsageLimit.HALT, Duration.ofHours(6));
    assertEquals(HaltReason.USAGE_LIMIT, halting.onFailure("claude", NO_RESET, halting.onFailure("claude", NO_RESET,
        null, NOW).pause(), true, NOW).halt(), "with halt, the same wave still halts");
  }

  @Test
  void rate_limits_back_off_exponentially_with_a_stated_delay_honoured_and_become_a_usage_limit_after_the_bound() {
    LimitPolicy p = policy(OnUsageLimit.HALT, Duration.ofHours(6));
    AgentPauses.Pause pause = null;
    long[] expectedSeconds = {30, 60, 120, 240, 480, 900};
    for (long seconds : expectedSeconds) {
      LimitPolicy.Decision d = p.onFailure("claude", RATE, pause, NOW);
      assertNull(d.halt(), "a transient limit never halts, even with on_usage_limit: halt");
      assertEquals(NOW.plusSeconds(seconds), d.pause().until());
      pause = d.pause();
    }
    LimitPolicy.Decision escalated = p.onFailure("claude", RATE, pause, NOW);
    assertEquals(HaltReason.USAGE_LIMIT, escalated.halt(), "treated as a usage limit after the bound");
    assertEquals(NOW, escalated.pause().since(), "the pause remembers when it began");

    ProviderFailure stated = new ProviderFailure(OutcomeClass.RATE_LIMITED, "429", null, Duration.ofMinutes(5));
    assertEquals(NOW.plus(Duration.ofMinutes(5)), p.onFailure("codex", stated, null, NOW).pause().until());
  }

  @Test
  void jitter_spreads_a_backoff_by_a_fifth_either_way() {
    LimitPolicy low = new LimitPolicy(OnUsageLimit.WAIT, Duration.ofHours(1), ZoneOffset.UTC, () -> 0.0);
    LimitPolicy high = new LimitPolicy(OnUsageLimit.WAIT, Duration.ofHours(1), ZoneOffset.UTC, () -> 0.999);
    assertEquals(Duration.ofSeconds(24), low.backoff(1, null));
    assertEquals(Duration.ofMillis(35_988), high.backoff(1, null));
  }

  @Test
  void auth_halts_at_once_and_pauses_nothing() {
    LimitPolicy.Decision d = policy(OnUsageLimit.WAIT, Duration.ofHours(6))
        .onFailure("claude", ProviderFailure.of(OutcomeClass.AUTH, "Invalid API key"), null, NOW);
    assertEquals(HaltReason.AGENT_AUTH, d.halt());
    assertNull(d.pause());
    assertEquals("claude: Invalid API key", d.message());
  }

  @Test
  void an_agents_own_sandbox_that_cannot_start_halts_at_once_and_pauses_nothing() {
    LimitPolicy.Decision d = policy(OnUsageLimit.WAIT, Duration.ofHours(6))
        .onFailure("codex", ProviderFailure.of(OutcomeClass.SANDBOX, "Codex's own sandbox could not start"), null, NOW);
    assertEquals(HaltReason.AGENT_SANDBOX, d.halt());
    assertNull(d.pause());
    assertEquals("codex: Codex's own sandbox could not start", d.message());
  }
}
