package dev.orchestrate.scheduler;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * A window of the project's budget ({@code budget.per_day}, {@code budget.per_week}): calendar
 * windows in UTC, a day from 00:00 to 00:00 and an ISO week from Monday 00:00, so that every
 * runner, wherever it runs, counts the same jobs and the window reopens at a time one can name.
 */
public enum BudgetWindow {
  DAY("per-day", "per_day", "tokens_per_day"), WEEK("per-week", "per_week", "tokens_per_week");

  private static final long DAY_SECONDS = 86_400;
  /** 1970-01-01, epoch day 0, was a Thursday: three days after a Monday. */
  private static final long THURSDAY = 3;

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
    // Epoch-day arithmetic rather than ZonedDateTime and TemporalAdjusters: `stats` reads the
    // windows on every start, and those classes' initialisation is time a short command does
    // not have (docs/benchmarks.md, issue 46, item 5). BudgetWindowTest holds the two equal.
    long day = Math.floorDiv(now.getEpochSecond(), DAY_SECONDS);
    long first = this == DAY ? day : day - Math.floorMod(day + THURSDAY, 7);
    return Instant.ofEpochSecond(first * DAY_SECONDS);
  }

  /** When the window that holds {@code now} closes and the next one opens. */
  public Instant end(Instant now) {
    return start(now).plusSeconds(this == DAY ? DAY_SECONDS : 7 * DAY_SECONDS);
  }

  /** {@code 2026-11-26 00:00 UTC}. */
  public static String show(Instant at) {
    return Shown.FORMAT.format(at.atZone(ZoneOffset.UTC));
  }

  /** Built when a window is first shown (a halt or a warning), not when the class is loaded. */
  private static final class Shown {
    static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT);
  }
}
