package dev.orchestrate.yaml;

import dev.orchestrate.limits.Quote;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte sizes as people write them: a plain number of bytes, or a number with {@code B},
 * {@code KB}/{@code MB}/{@code GB} (powers of 1000) or {@code KiB}/{@code MiB}/{@code GiB}
 * (powers of 1024). Units are case-insensitive and may follow a space: {@code 10MiB}, {@code 512 KB}.
 */
public final class Sizes {
  private static final String HINT = "use a whole number of bytes, optionally followed by B, KB, MB, GB "
      + "(x1000) or KiB, MiB, GiB (x1024), e.g. 10MiB";
  private static final Pattern FORM = Pattern.compile("(\\d+) ?([a-z]*)");

  private Sizes() {}

  /**
   * Parses a size in bytes (zero allowed).
   *
   * @throws IllegalArgumentException {@code bad size '10 megs': use a whole number of bytes, ...}
   */
  public static long parse(String text) {
    String value = text == null ? "" : text.strip();
    Matcher m = FORM.matcher(value.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("bad size " + Quote.value(text) + ": " + HINT);
    }
    long unit = switch (m.group(2)) {
      case "", "b" -> 1L;
      case "kb" -> 1000L;
      case "mb" -> 1000L * 1000;
      case "gb" -> 1000L * 1000 * 1000;
      case "kib" -> 1024L;
      case "mib" -> 1024L * 1024;
      case "gib" -> 1024L * 1024 * 1024;
      default -> throw new IllegalArgumentException("bad size " + Quote.value(text) + ": " + HINT);
    };
    try {
      return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
    } catch (ArithmeticException | NumberFormatException e) {
      throw new IllegalArgumentException("bad size " + Quote.value(text) + ": too large");
    }
  }

  /**
   * An exact form {@link #parse} reads back, using the largest unit that divides the size, binary
   * units first: {@code 10MiB}, {@code 5MB}, {@code 1500B}.
   */
  public static String format(long bytes) {
    String[] units = {"GiB", "MiB", "KiB", "GB", "MB", "KB"};
    long[] factors = {1L << 30, 1L << 20, 1L << 10, 1_000_000_000L, 1_000_000L, 1000L};
    for (int i = 0; i < units.length; i++) {
      if (bytes != 0 && bytes % factors[i] == 0) {
        return bytes / factors[i] + units[i];
      }
    }
    return bytes + "B";
  }
}
