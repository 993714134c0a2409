package dev.orchestrate.yaml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class NamesTest {
  /** The rule as it reads: a pattern, compared with the loop over every character up to U+017F and more. */
  private static final Pattern RULE = Pattern.compile("[A-Za-z0-9._-]+");

  @Test
  void an_id_is_letters_digits_dots_underscores_and_dashes_as_the_rule_says() {
    assertEquals(false, Names.isValid(""));
    for (char c = 0; c < 0x180; c++) {
      for (String name : new String[] {String.valueOf(c), "A" + c, c + "9", "WRK-00" + c + "1"}) {
        assertEquals(RULE.matcher(name).matches(), Names.isValid(name), () -> "name " + name);
      }
    }
    for (String name : new String[] {"WRK-001", "a.b_c-d", "\u00E9t\u00E9", "x y", "\uD83D\uDE00", "Ａ", "١٢"}) {
      assertEquals(RULE.matcher(name).matches(), Names.isValid(name), () -> "name " + name);
    }
  }
}
