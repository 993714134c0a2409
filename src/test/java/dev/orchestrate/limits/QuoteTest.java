package dev.orchestrate.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class QuoteTest {
  @Test
  void a_short_value_is_quoted_as_it_is() {
    assertEquals("'WRK-001'", Quote.value("WRK-001"));
    assertEquals("nothing", Quote.value(null));
  }

  @Test
  void a_long_value_keeps_its_first_60_characters_and_says_how_long_it_was() {
    assertEquals("'" + "a".repeat(60) + "…' (1048576 characters)", Quote.value("a".repeat(1 << 20)));
    assertEquals("'" + "a".repeat(60) + "'", Quote.value("a".repeat(60)));
  }

  @Test
  void control_characters_are_escaped_so_a_value_never_splits_a_line_or_reaches_the_terminal_raw() {
    assertEquals("'A\\nB\\r\\tC\\x1b[2J\\x00\\u2028\\u202e'", Quote.value("A\nB\r\tC\u001b[2J\u0000\u2028\u202e"));
  }

  @Test
  void a_cut_never_splits_a_surrogate_pair() {
    String text = "a".repeat(59) + "😀" + "b";
    assertEquals("'" + "a".repeat(59) + "…' (62 characters)", Quote.value(text));
  }

  @Test
  void a_line_is_escaped_and_cut_at_its_limit() {
    assertEquals("x\\ny", Quote.line("x\ny", 100));
    assertEquals("abc…", Quote.line("abcdef", 3));
  }

  @Test
  void several_lines_keep_their_breaks_and_tabs_and_nothing_else_that_controls_a_terminal() {
    // A gate's output quoted in a prompt: ESC, CR, C1 and the bidi overrides of a "Trojan source" are shown.
    assertEquals("ok\n\tline \\x1b[31mred\\r\\u009b \\u202eevil\\u202c",
        Quote.escapedLines("ok\n\tline \u001b[31mred\r\u009b \u202eevil\u202c"));
  }
}
