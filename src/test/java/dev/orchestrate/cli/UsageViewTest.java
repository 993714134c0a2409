package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.outcome.Usage;
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
}
