package dev.orchestrate.config;

import dev.orchestrate.limits.Quote;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as people write them in config files and flags: {@code 500ms}, {@code 90s},
 * {@code 30m}, {@code 2h}, {@code 7d}, and combinations from the largest unit down, such as
 * {@code 1h30m} or {@code 1d12h}.
 */
public final class Durations {
  private static final String HINT = "use a number with ms, s, m, h or d, e.g. 90s, 30m, 2h, 7d";
  private static final Pattern FORM = Pattern.compile("(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?(?:(\\d+)ms)?");

  private Durations() {}

  /**
   * Parses a positive duration.
   *
   * @throws IllegalArgumentException {@code bad duration '3 minutes': use a number with ms, s, m
   *     h or d, e.g. 90s, 30m, 2h, 7d}, or {@code bad duration '0s': must be more than zero}
   */
  public static Duration parse(String text) {
    String value = text == null ? "" : text.strip();
    Matcher m = FORM.matcher(value);
    if (value.isEmpty() || !m.matches()) {
      throw new IllegalArgumentException("bad duration " + Quote.value(text) + ": " + HINT);
    }
    Duration total;
    try {
      total = Duration.ofDays(number(m.group(1)))
          .plusHours(number(m.group(2)))
          .plusMinutes(number(m.group(3)))
          .plusSeconds(number(m.group(4)))
          .plusMillis(number(m.group(5)));
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("bad duration " + Quote.value(text) + ": too large");
    }
    if (total.isZero()) {
      throw new IllegalArgumentException("bad duration " + Quote.value(text) + ": must be more than zero");
    }
    return total;
  }

  /**
   * The compact form {@link #parse} reads back, as a config writes it, from the largest unit
   * down: {@code 30d}, {@code 1d12h}, {@code 30m}, {@code 1h30m}, {@code 1m30s}, {@code 500ms};
   * {@code 0s} for zero. Precision below a millisecond is dropped.
   */
  public static String format(Duration duration) {
    if (duration.isNegative()) {
      return "-" + format(duration.negated());
    }
    long days = duration.toDays();
    int hours = duration.toHoursPart();
    int minutes = duration.toMinutesPart();
    int seconds = duration.toSecondsPart();
    int millis = duration.toMillisPart();
    StringBuilder text = new StringBuilder();
    append(text, days, "d");
    append(text, hours, "h");
    append(text, minutes, "m");
    append(text, seconds, "s");
    append(text, millis, "ms");
    return text.length() == 0 ? "0s" : text.toString();
  }

  private static void append(StringBuilder text, long amount, String unit) {
    if (amount > 0) {
      text.append(amount).append(unit);
    }
  }

  private static long number(String digits) {
    return digits == null ? 0 : Long.parseLong(digits);
  }
}
