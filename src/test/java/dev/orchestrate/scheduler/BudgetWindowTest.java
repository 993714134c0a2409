package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.item.Money;
import dev.orchestrate.outcome.Usage;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Budget windows are UTC days and ISO weeks; money is shown with the precision a small budget needs. */
class BudgetWindowTest {
  private static final Instant THURSDAY_AFTERNOON = Instant.parse("2026-11-26T15:30:00Z");

  @Test
  void a_day_runs_from_00_00_utc_to_the_next_00_00() {
    assertEquals(Instant.parse("2026-11-26T00:00:00Z"), BudgetWindow.DAY.start(THURSDAY_AFTERNOON));
    assertEquals(Instant.parse("2026-11-27T00:00:00Z"), BudgetWindow.DAY.end(THURSDAY_AFTERNOON));
    Instant midnight = Instant.parse("2026-11-27T00:00:00Z");
    assertEquals(midnight, BudgetWindow.DAY.start(midnight), "a window opens at its first instant");
  }

  @Test
  void a_week_is_the_iso_week_from_monday_00_00_utc() {
    assertEquals(Instant.parse("2026-11-23T00:00:00Z"), BudgetWindow.WEEK.start(THURSDAY_AFTERNOON));
    assertEquals(Instant.parse("2026-11-30T00:00:00Z"), BudgetWindow.WEEK.end(THURSDAY_AFTERNOON));
    Instant sundayNight = Instant.parse("2026-11-29T23:59:59Z");
    assertEquals(Instant.parse("2026-11-23T00:00:00Z"), BudgetWindow.WEEK.start(sundayNight));
    assertEquals(Instant.parse("2026-11-30T00:00:00Z"), BudgetWindow.WEEK.start(Instant.parse("2026-11-30T00:00:00Z")));
  }

  @Test
  void the_windows_are_the_calendars_utc_day_and_iso_week_over_centuries() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(46);
    for (int i = 0; i < 20_000; i++) {
      // 1800 to 2200, and the first and last second of each day now and then.
      long second = random.nextLong(-5_364_662_400L, 7_258_118_400L);
      if (i % 3 == 0) {
        second = Math.floorDiv(second, 86_400) * 86_400 - (i % 2);
      }
      Instant now = Instant.ofEpochSecond(second, random.nextInt(1_000_000_000));
      ZonedDateTime day = now.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.DAYS);
      ZonedDateTime monday = day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
      assertEquals(day.toInstant(), BudgetWindow.DAY.start(now), now.toString());
      assertEquals(day.plusDays(1).toInstant(), BudgetWindow.DAY.end(now), now.toString());
      assertEquals(monday.toInstant(), BudgetWindow.WEEK.start(now), now.toString());
      assertEquals(monday.plusWeeks(1).toInstant(), BudgetWindow.WEEK.end(now), now.toString());
    }
  }

  @Test
  void windows_are_shown_in_utc_and_name_their_keys() {
    assertEquals("2026-11-26 15:30 UTC", BudgetWindow.show(THURSDAY_AFTERNOON));
    assertEquals("budget.per_week", BudgetWindow.WEEK.costKey());
    assertEquals("budget.tokens_per_day", BudgetWindow.DAY.tokensKey());
  }

  @Test
  void money_shows_cents_at_least_and_small_amounts_to_the_millionth() {
    assertEquals("$20.00", Money.usd(20));
    assertEquals("$20.13", Money.usd(20.13));
    assertEquals("$0.001", Money.usd(0.001));
    assertEquals("$0.00025", Money.usd(0.00025));
    assertEquals("$0.0496", Money.usd(0.0496));
  }

  @Test
  void a_window_halt_names_the_key_the_spend_since_it_opened_and_when_it_reopens() {
    BudgetLimit day = BudgetLimit.ofWindow(BudgetWindow.DAY, new Budget(20.0, null),
        new Usage(null, null, null, null, 20.13), THURSDAY_AFTERNOON);
    assertEquals("the per-day budget of $20.00 (budget.per_day) is spent ($20.13 since 2026-11-26 00:00 UTC); "
        + "it reopens at 2026-11-27 00:00 UTC", day.haltDetail(Budget.Reserve.NONE, 0, Budget.Estimate.NONE));
    BudgetLimit week = BudgetLimit.ofWindow(BudgetWindow.WEEK, new Budget(100.0, 1000L),
        new Usage(990L, null, null, null, 10.0), THURSDAY_AFTERNOON);
    assertEquals("the per-week budget of 1000 tokens (budget.tokens_per_week) is spent (990 tokens since 2026-11-23 "
        + "00:00 UTC); it reopens at 2026-11-30 00:00 UTC",
        week.haltDetail(Budget.Reserve.NONE, 0, new Budget.Estimate(1.0, 100L)), "the tokens refused, not the cost");
  }

  @Test
  void a_run_halt_names_the_flag_that_set_the_budget() {
    BudgetLimit run = BudgetLimit.ofRun(new Budget(0.001, null), new Usage(null, null, null, null, 0.00075),
        THURSDAY_AFTERNOON, "--max-cost", "--max-tokens");
    assertEquals("the run's budget of $0.001 (--max-cost) has no room for another job ($0.00075 spent)",
        run.haltDetail(Budget.Reserve.NONE, 0, new Budget.Estimate(0.0005, null)));
  }

  @Test
  void warnings_name_every_threshold_reached_per_figure_lowest_first() {
    BudgetLimit run = BudgetLimit.ofRun(new Budget(1.0, 1000L), new Usage(960L, null, null, null, 0.85),
        THURSDAY_AFTERNOON, "execution.max_cost_usd", "execution.max_tokens");
    assertEquals(List.of(
        new BudgetLimit.Warning("execution.max_cost_usd", 80,
            "80% of the run's budget of $1.00 (execution.max_cost_usd) is spent: $0.85"),
        new BudgetLimit.Warning("execution.max_tokens", 80,
            "80% of the run's budget of 1000 tokens (execution.max_tokens) is spent: 960 tokens"),
        new BudgetLimit.Warning("execution.max_tokens", 95,
            "95% of the run's budget of 1000 tokens (execution.max_tokens) is spent: 960 tokens")),
        run.warnings());
    assertEquals(List.of(), BudgetLimit.ofWindow(BudgetWindow.DAY, new Budget(20.0, null),
        new Usage(null, null, null, null, 15.0), THURSDAY_AFTERNOON).warnings(), "75% is no warning");
  }
}
