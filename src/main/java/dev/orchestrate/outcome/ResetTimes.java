package dev.orchestrate.outcome;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Month;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * When a provider's usage limit resets, read from what an agent CLI printed (docs/agents.md,
 * "Provider limits"). Pure: the caller gives the time it is now and the zone to read a clock time
 * in when the text names none.
 *
 * <p>The shapes, as the real CLIs print them:
 * <ul>
 *   <li>Claude Code: "resets 4:04am (UTC)", "resets 1pm (Europe/Lisbon)", "resets Dec 3, 2pm
 *   (UTC)", the older "Your limit will reset at 12am.", and {@code resetsAt} in a
 *   {@code rate_limit_event}, in epoch seconds or milliseconds;</li>
 *   <li>Codex: "try again at 3:28 PM.", "try again at Apr 28th, 2026 10:03 PM.", "try again in 3
 *   days 6 hours 57 minutes.";</li>
 *   <li>Gemini CLI: "Your quota will reset after 1h49m8s.".</li>
 * </ul>
 * A clock time without a date is the next such time after now. Anything not understood is empty:
 * orchestrate then backs off on its own.
 */
final class ResetTimes {
  /** Epoch values above this are milliseconds (this many seconds is the year 5138). */
  private static final long SECONDS_CEILING = 100_000_000_000L;
  /** A reset further ahead than this is not believed (a parse gone wrong, or a hostile agent). */
  static final Duration HORIZON = Duration.ofDays(60);

  private static final Pattern RELATIVE = Pattern.compile(
      "(?:in|after)\\s+((?:\\d+\\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)[\\s,]*(?:and\\s+)?)+)",
      Pattern.CASE_INSENSITIVE);
  private static final Pattern PART = Pattern.compile(
      "(\\d+)\\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\\b?", Pattern.CASE_INSENSITIVE);
  private static final String MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec";
  private static final Pattern ABSOLUTE = Pattern.compile(
      "(?:resets?|reset at|resets at|try again at|will reset at)\\s+"
          + "(?:(?<month>" + MONTHS
          + ")[a-z]*\\.?\\s+(?<day>\\d{1,2})(?:st|nd|rd|th)?,?\\s*(?<year>\\d{4})?,?\\s*(?:at\\s+)?)?"
          + "(?<hour>\\d{1,2})(?::(?<minute>\\d{2}))?\\s*(?<ampm>am|pm|a\\.m\\.|p\\.m\\.)?"
          + "(?:\\s*\\((?<zone>[A-Za-z_+\\-/0-9]+)\\))?",
      Pattern.CASE_INSENSITIVE);

  private ResetTimes() {
  }

  /** An epoch timestamp in seconds or milliseconds (decided by magnitude), if it is a plausible reset. */
  static Optional<Instant> epoch(long value, Instant now) {
    if (value <= 0) {
      return Optional.empty();
    }
    Instant at = value >= SECONDS_CEILING ? Instant.ofEpochMilli(value) : Instant.ofEpochSecond(value);
    return plausible(at, now);
  }

  /** The reset time a CLI's message names, if it names one this can read. */
  static Optional<Instant> parse(String text, Instant now, ZoneId localZone) {
    if (text == null || text.isBlank()) {
      return Optional.empty();
    }
    String t = text.length() > 2000 ? text.substring(0, 2000) : text;
    Matcher relative = RELATIVE.matcher(t);
    if (relative.find()) {
      Duration total = Duration.ZERO;
      Matcher part = PART.matcher(relative.group(1));
      while (part.find()) {
        long n = Long.parseLong(part.group(1).length() > 9 ? "999999999" : part.group(1));
        String unit = part.group(2).toLowerCase(Locale.ROOT);
        total = total.plus(switch (unit.charAt(0)) {
          case 'd' -> Duration.ofDays(Math.min(n, 10_000));
          case 'h' -> Duration.ofHours(Math.min(n, 1_000_000));
          case 'm' -> Duration.ofMinutes(Math.min(n, 100_000_000));
          default -> Duration.ofSeconds(n);
        });
      }
      return total.isZero() ? Optional.empty() : plausible(now.plus(total), now);
    }
    Matcher m = ABSOLUTE.matcher(t);
    while (m.find()) {
      Optional<Instant> at = absolute(m, now, localZone);
      if (at.isPresent()) {
        return at;
      }
    }
    return Optional.empty();
  }

  private static Optional<Instant> absolute(Matcher m, Instant now, ZoneId localZone) {
    try {
      int hour = Integer.parseInt(m.group("hour"));
      int minute = m.group("minute") == null ? 0 : Integer.parseInt(m.group("minute"));
      String ampm = m.group("ampm") == null ? null : m.group("ampm").toLowerCase(Locale.ROOT).replace(".", "");
      if (ampm == null && m.group("minute") == null && m.group("month") == null) {
        return Optional.empty(); // a bare number ("resets 5") is not a time
      }
      if (ampm != null) {
        if (hour < 1 || hour > 12) {
          return Optional.empty();
        }
        hour = hour % 12 + (ampm.equals("pm") ? 12 : 0);
      }
      LocalTime time = LocalTime.of(hour, minute);
      ZoneId zone = m.group("zone") == null ? localZone : ZoneId.of(m.group("zone"));
      ZonedDateTime here = now.atZone(zone);
      ZonedDateTime at;
      if (m.group("month") != null) {
        int year = m.group("year") == null ? here.getYear() : Integer.parseInt(m.group("year"));
        LocalDate date = LocalDate.of(year, month(m.group("month")), Integer.parseInt(m.group("day")));
        at = LocalDateTime.of(date, time).atZone(zone);
        if (m.group("year") == null && at.toInstant().isBefore(now.minus(Duration.ofDays(1)))) {
          at = at.plusYears(1); // "Jan 2" said on Dec 30
        }
      } else {
        at = here.with(time);
        if (!at.toInstant().isAfter(now)) {
          at = at.plusDays(1);
        }
      }
      return plausible(at.toInstant(), now);
    } catch (DateTimeException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static Month month(String name) {
    String n = name.toLowerCase(Locale.ROOT).substring(0, 3);
    for (Month month : Month.values()) {
      if (month.name().toLowerCase(Locale.ROOT).startsWith(n)) {
        return month;
      }
    }
    throw new DateTimeException("no month " + name);
  }

  /** A reset in the past means "now" (it has reset); beyond the horizon it is not believed. */
  private static Optional<Instant> plausible(Instant at, Instant now) {
    if (at.isAfter(now.plus(HORIZON))) {
      return Optional.empty();
    }
    return Optional.of(at.isBefore(now) ? now : at);
  }
}
