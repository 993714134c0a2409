package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
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
}
