package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.outcome.Usage;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** How usage reads in the run report and in stats. */
class UsageViewTest {
  @Test
  void tokens_without_a_cost_say_no_cost_was_reported_rather_than_a_bare_dollar_sign() {
    assertEquals("1,540 tokens (1,400 in, 80 out, 60 cache read, 0 cache write), no cost reported",
        UsageView.text(new Usage(1400L, 80L, 60L, 0L, null)));
    assertEquals("1,540 tokens (1,400 in, 80 out, 60 cache read, 0 cache write), $0.0116",
        UsageView.text(new Usage(1400L, 80L, 60L, 0L, 0.01162)));
  }

  @Test
  void numbers_read_as_they_would_in_the_root_locale() {
    // The views format in Locale.US only because the JDK's Formatter looks no locale data up for it.
    SplittableRandom random = new SplittableRandom(46);
    for (String pattern : new String[] {"%,d", "%d"}) {
      for (int i = 0; i < 2_000; i++) {
        long n = i < 1_000 ? random.nextLong() : random.nextLong(-100_000_000, 100_000_000);
        assertEquals(String.format(Locale.ROOT, pattern, n), String.format(UsageView.NUMBERS, pattern, n));
      }
    }
    for (String pattern : new String[] {"$%.4f", "%.0f%%", "%+.0f", " (%.0f%% spent)"}) {
      for (int i = 0; i < 2_000; i++) {
        double x = i % 3 == 0 ? random.nextDouble(-1e9, 1e9) : random.nextDouble(-2, 2);
        assertEquals(String.format(Locale.ROOT, pattern, x), String.format(UsageView.NUMBERS, pattern, x));
      }
    }
    assertEquals(String.format(Locale.ROOT, "%.0f%%", Double.NaN),
        String.format(UsageView.NUMBERS, "%.0f%%", Double.NaN));
  }
}
