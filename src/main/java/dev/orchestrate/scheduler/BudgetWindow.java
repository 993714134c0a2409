package dev.orchestrate.scheduler;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;

/**
 * A window of the project's budget ({@code budget.per_day}, {@code budget.per_week}): calendar
 * windows in UTC, a day from 00:00 to 00:00 and an ISO week from Monday 00:00, so that every
 * runner, wherever it runs, counts the same jobs and the window reopens at a time one can name.
 */
public enum BudgetWindow {
  DAY("per-day", "per_day", "tokens_per_day"), WEEK("per-week", "per_week", "tokens_per_week");

  private static final DateTimeFormatter SHOWN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT);

  private final String label;
  private final String costKey;
  private final String tokensKey;

  BudgetWindow(String label, String costKey, String tokensKey) {
    this.label = label;
    this.costKey = costKey;
    this.tokensKey = tokensKey;
  }

  /** How a message names it: {@code per-day}. */
  public String label() {
    return label;
  }

  /** The config key of its cost limit: {@code budget.per_day}. */
  public String costKey() {
    return "budget." + costKey;
  }

  /** The config key of its token limit: {@code budget.tokens_per_day}. */
  public String tokensKey() {
    return "budget." + tokensKey;
  }

  /** When the window that holds {@code now} opened. */
  public Instant start(Instant now) {
    ZonedDateTime day = now.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.DAYS);
    return (this == DAY ? day : day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY))).toInstant();
  }

  /** When the window that holds {@code now} closes and the next one opens. */
  public Instant end(Instant now) {
    ZonedDateTime start = start(now).atZone(ZoneOffset.UTC);
    return (this == DAY ? start.plusDays(1) : start.plusWeeks(1)).toInstant();
  }

  /** {@code 2026-11-26 00:00 UTC}. */
  public static String show(Instant at) {
    return SHOWN.format(at.atZone(ZoneOffset.UTC));
  }
}
