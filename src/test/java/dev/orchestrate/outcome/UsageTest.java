package dev.orchestrate.outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The figures of a usage are bounded, and sums of them saturate instead of wrapping. */
class UsageTest {
  private static final long HUGE = Long.MAX_VALUE;

  @Test
  void the_ceilings_are_ten_to_the_twelfth_tokens_and_a_million_dollars_per_job() {
    assertEquals(1_000_000_000_000L, Usage.MAX_TOKENS);
    assertEquals(1_000_000.0, Usage.MAX_COST_USD);
    assertEquals(String.format(Locale.ROOT, "(above the ceiling of $%,.0f per job)", Usage.MAX_COST_USD),
        Usage.ABOVE_COST);
    assertEquals("(above the ceiling of 10^" + Math.round(Math.log10(Usage.MAX_TOKENS)) + " tokens per job)",
        Usage.ABOVE_TOKENS);
  }

  @Test
  void the_total_of_two_huge_figures_saturates_instead_of_wrapping_to_minus_two() {
    assertEquals(Long.MAX_VALUE, new Usage(HUGE, HUGE, null, null, null).totalTokens());
    assertEquals(Long.MAX_VALUE, new Usage(HUGE, 1L, 1L, 1L, null).totalTokens());
  }

  @Test
  void a_sum_saturates_figure_by_figure_and_a_cost_sum_stays_finite() {
    Usage sum = new Usage(HUGE, 1L, null, HUGE, 1e308).plus(new Usage(HUGE, 2L, 5L, 1L, 1e308));
    assertEquals(new Usage(Long.MAX_VALUE, 3L, 5L, Long.MAX_VALUE, Double.MAX_VALUE), sum);
    assertTrue(Double.isFinite(sum.costUsd()));
  }

  @Test
  void saturating_addition_clamps_at_the_long_range() {
    assertEquals(Long.MAX_VALUE, Usage.add(Long.MAX_VALUE, 1));
    assertEquals(Long.MIN_VALUE, Usage.add(Long.MIN_VALUE, -1));
    assertEquals(5, Usage.add(2, 3));
  }

  @Test
  void figures_at_the_ceiling_are_kept_and_figures_above_it_become_unknown_with_the_reason() {
    Usage atCeiling = new Usage(Usage.MAX_TOKENS, 0L, null, 7L, Usage.MAX_COST_USD);
    assertEquals(atCeiling, atCeiling.bounded());
    assertNull(atCeiling.bounded().note());

    Usage over = new Usage(Usage.MAX_TOKENS + 1, 70L, 600L, null, 1e308).bounded();
    assertEquals(new Usage(null, 70L, 600L, null, null, over.note()), over);
    assertEquals("usage recorded as unknown: input tokens 1000000000001 (above the ceiling of 10^12 tokens per "
        + "job); cost 1.0E308 (above the ceiling of $1,000,000 per job)", over.note());
  }

  @Test
  void bounding_adds_to_a_note_there_already() {
    Usage noted = new Usage(HUGE, null, null, null, null).noting("total_cost_usd NaN (not a finite number)");
    assertEquals("usage recorded as unknown: total_cost_usd NaN (not a finite number); input tokens "
        + "9223372036854775807 (above the ceiling of 10^12 tokens per job)", noted.bounded().note());
  }

  @Test
  void a_negative_or_non_finite_figure_is_no_usage_at_all() {
    assertThrows(IllegalArgumentException.class, () -> new Usage(-1L, null, null, null, null));
    assertThrows(IllegalArgumentException.class, () -> new Usage(null, null, null, -5L, null));
    assertThrows(IllegalArgumentException.class, () -> new Usage(null, null, null, null, Double.NaN));
    assertThrows(IllegalArgumentException.class,
        () -> new Usage(null, null, null, null, Double.POSITIVE_INFINITY));
    assertThrows(IllegalArgumentException.class, () -> new Usage(null, null, null, null, -0.01));
  }

  @Test
  void stored_figures_that_cannot_be_usage_read_as_unknown() {
    assertEquals(new Usage(null, 3L, null, null, null),
        Usage.stored(-2L, 3L, null, Long.MIN_VALUE, Double.POSITIVE_INFINITY));
    assertEquals(new Usage(1L, 2L, 3L, 4L, 0.5), Usage.stored(1L, 2L, 3L, 4L, 0.5));
    assertNull(Usage.stored(null, null, null, null, Double.NaN).costUsd());
  }

  @Test
  void a_sum_carries_no_note_one_jobs_report_does() {
    Usage noted = new Usage(1L, null, null, null, null).noting("total_cost_usd NaN (not a finite number)");
    assertEquals("usage recorded as unknown: total_cost_usd NaN (not a finite number)", noted.note());
    assertNull(noted.plus(noted).note());
    assertEquals(new Usage(2L, null, null, null, null), noted.plus(noted));
  }

  @Test
  void unknown_stays_unknown_and_known_plus_unknown_is_known() {
    assertEquals(Usage.UNKNOWN, Usage.UNKNOWN.plus(Usage.UNKNOWN));
    assertNull(Usage.UNKNOWN.totalTokens());
    assertEquals(4L, new Usage(4L, null, null, null, null).plus(Usage.UNKNOWN).totalTokens());
  }

  @Test
  void a_resumed_sessions_running_totals_less_its_earlier_jobs_are_the_jobs_own_share() {
    Usage session = new Usage(1800L, 80L, 400L, 0L, 0.03);
    Usage earlier = new Usage(900L, 40L, 200L, null, 0.01);
    assertEquals(new Usage(900L, 40L, 200L, 0L, 0.03), session.withoutEarlier(earlier, true, false));
    Usage costOnly = session.withoutEarlier(earlier, false, true);
    assertEquals(1800L, costOnly.inputTokens());
    assertEquals(0.02, costOnly.costUsd(), 1e-12);
    // Never below zero; unknown figures stay unknown on either side.
    assertEquals(new Usage(0L, 0L, 0L, 0L, 0.0), new Usage(1L, 1L, 1L, 0L, 0.001)
        .withoutEarlier(new Usage(5L, 5L, 5L, 5L, 1.0), true, true));
    assertEquals(new Usage(null, 3L, null, 7L, null), new Usage(null, 3L, null, 7L, null)
        .withoutEarlier(new Usage(5L, null, 1L, null, 0.5), true, true));
    assertEquals(session, session.withoutEarlier(Usage.UNKNOWN, true, true));
  }

  @Test
  void a_resumed_jobs_share_keeps_an_unknown_cost_unknown() {
    Usage codex = new Usage(1500L, 300L, null, null, null, null);
    Usage before = new Usage(1000L, 200L, null, null, null, null);
    assertEquals(new Usage(500L, 100L, null, null, null, null), codex.withoutEarlier(before, true, false));
    assertEquals(new Usage(1500L, 300L, null, null, null, null), codex.withoutEarlier(before, false, true));
    Usage claude = new Usage(10L, 5L, null, null, 0.03, null);
    assertEquals(0.01, claude.withoutEarlier(new Usage(null, null, null, null, 0.02, null), false, true).costUsd(),
        1e-9);
  }

  @Test
  void a_sessions_earlier_figures_are_taken_off_those_named_and_an_unknown_cost_stays_unknown() {
    Usage codex = new Usage(2800L, 160L, 800L, null, null);
    Usage before = new Usage(1400L, 80L, 400L, null, null);
    // Codex reports tokens for the thread so far and no cost: the job keeps its own tokens, no cost.
    assertEquals(new Usage(1400L, 80L, 400L, null, null), codex.withoutEarlier(before, true, false));
    assertEquals(codex, codex.withoutEarlier(before, false, false));
    Usage claude = new Usage(1200L, 40L, null, null, 0.5);
    assertEquals(new Usage(1200L, 40L, null, null, 0.25),
        claude.withoutEarlier(new Usage(1200L, 40L, null, null, 0.25), false, true));
    assertEquals(new Usage(0L, null, null, null, 0.0), new Usage(5L, null, null, null, 0.01)
        .withoutEarlier(new Usage(10L, null, null, null, 0.02), true, true), "never below zero");
  }
}
