package dev.orchestrate.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SizeCapTest {
  private static final Pattern MARKER = Pattern.compile("…\\[truncated (\\d+) chars sha256:([0-9a-f]{16})]");

  @Test
  void text_that_fits_is_returned_unchanged() {
    String text = "short";
    assertSame(text, SizeCap.cap(text, 100));
    assertNull(SizeCap.cap(null, 100));
    String exact = "x".repeat(100);
    assertSame(exact, SizeCap.cap(exact, 100));
    assertFalse(SizeCap.exceeds(exact, 100));
    assertFalse(SizeCap.exceeds(null, 100));
    assertTrue(SizeCap.exceeds(exact + "y", 100));
  }

  @Test
  void long_text_keeps_a_prefix_and_a_suffix_around_a_marker_with_the_hash_of_the_original() {
    String text = "BEGIN" + "x".repeat(10_000) + "END";
    String capped = SizeCap.cap(text, 300);

    // exactly the cap, though N (four digits) is shorter than the whole length (five) it was first sized for
    assertEquals(300, capped.length());
    assertTrue(capped.startsWith("BEGIN"), capped);
    assertTrue(capped.endsWith("END"), capped);
    Matcher m = MARKER.matcher(capped);
    assertTrue(m.find(), capped);
    assertEquals(SizeCap.sha256Prefix(text), m.group(2));
    int kept = capped.length() - m.group().length();
    assertEquals(text.length(), kept + Integer.parseInt(m.group(1)));
  }

  @Test
  void the_kept_prefix_and_suffix_are_the_original_s_own_beginning_and_end() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      b.append(i).append(' ');
    }
    String text = b.toString();
    String capped = SizeCap.cap(text, 500);
    Matcher m = MARKER.matcher(capped);
    assertTrue(m.find());
    String head = capped.substring(0, m.start());
    String tail = capped.substring(m.end());
    assertTrue(text.startsWith(head));
    assertTrue(text.endsWith(tail));
    assertTrue(head.length() > tail.length(), "the beginning gets the larger share");
    assertEquals(text.length() - head.length() - tail.length(), Integer.parseInt(m.group(1)));
  }

  @Test
  void the_hash_is_the_first_16_hex_digits_of_the_sha256_of_the_utf8_original() throws Exception {
    String text = "é€😀 and more ".repeat(100);
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    String expected = HexFormat.of().formatHex(digest).substring(0, 16);
    Matcher m = MARKER.matcher(SizeCap.cap(text, 200));
    assertTrue(m.find());
    assertEquals(expected, m.group(2));
    assertEquals(expected, SizeCap.sha256Prefix(text));
  }

  @Test
  void the_result_is_never_longer_than_the_cap_for_any_length_and_cap() {
    for (int cap = SizeCap.MIN_CAP; cap < 400; cap += 7) {
      for (int length : new int[] {cap, cap + 1, cap + 2, 999, 10_000, 123_456}) {
        String text = "a".repeat(length);
        String capped = SizeCap.cap(text, cap);
        assertEquals(Math.min(length, cap), capped.length(), cap + "/" + length + ": exactly the cap when cut");
        if (length > cap) {
          assertTrue(MARKER.matcher(capped).find(), capped);
          // the marker counts exactly what was cut
          Matcher m = MARKER.matcher(capped);
          m.find();
          assertEquals(length, capped.length() - m.group().length() + Integer.parseInt(m.group(1)));
        }
      }
    }
  }

  @Test
  void the_cut_is_exact_where_n_loses_a_digit_on_the_way() {
    // 1,080 chars at cap 100: sized for N = 1080 (4 digits), N comes to 1,040ish; at 10,050, N crosses 10,000
    for (int length : new int[] {1_080, 10_050, 10_079, 100_070}) {
      String capped = SizeCap.cap("b".repeat(length), 100);
      assertEquals(100, capped.length(), length + ": " + capped);
      Matcher m = MARKER.matcher(capped);
      assertTrue(m.find());
      assertEquals(length, capped.length() - m.group().length() + Integer.parseInt(m.group(1)));
    }
  }

  @Test
  void a_surrogate_pair_is_never_split() {
    for (int cap = SizeCap.MIN_CAP; cap < 260; cap++) {
      for (String prefix : new String[] {"", "a"}) {
        String text = prefix + "😀".repeat(500) + prefix;
        String capped = SizeCap.cap(text, cap);
        assertTrue(capped.length() <= cap);
        Matcher m = MARKER.matcher(capped);
        assertTrue(m.find());
        String head = capped.substring(0, m.start());
        String tail = capped.substring(m.end());
        assertWholePairs(head);
        assertWholePairs(tail);
        assertTrue(text.startsWith(head) && text.endsWith(tail));
        assertEquals(text.length(), head.length() + tail.length() + Integer.parseInt(m.group(1)));
      }
    }
  }

  @Test
  void caps_below_the_minimum_are_refused_and_the_minimum_still_keeps_text_on_both_sides() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SizeCap.cap("x", 10));
    assertEquals("cap must be at least 80 characters, got 10", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> SizeCap.cap("x", SizeCap.MIN_CAP - 1));
    assertThrows(IllegalArgumentException.class, () -> SizeCap.cap(null, 0));

    String text = "H" + "-".repeat(Integer.MAX_VALUE / 1000) + "T";
    String capped = SizeCap.cap(text, SizeCap.MIN_CAP);
    assertTrue(capped.length() <= SizeCap.MIN_CAP);
    assertTrue(capped.startsWith("H") && capped.endsWith("T"), capped);
    // even the longest N a long can hold leaves room at the minimum cap
    assertTrue(SizeCap.marker(Long.MAX_VALUE, "0123456789abcdef").length() < SizeCap.MIN_CAP);
  }

  @Test
  void a_text_known_by_its_ends_is_capped_with_the_same_layout_as_the_whole_text() {
    String text = "BEGIN-" + "0123456789".repeat(1000) + "-END";
    String head = text.substring(0, 400);
    String tail = text.substring(text.length() - 400);
    assertEquals(SizeCap.cap(text, 300),
        SizeCap.cap(head, tail, text.length(), SizeCap.sha256Prefix(text), 300));
  }

  @Test
  void a_text_known_by_short_ends_keeps_what_there_is_and_counts_the_rest_as_cut() {
    String capped = SizeCap.cap("ab", "yz", 1_000_000, "0123456789abcdef", 200);
    assertEquals("ab…[truncated 999996 chars sha256:0123456789abcdef]yz", capped);
    assertThrows(IllegalArgumentException.class, () -> SizeCap.cap("ab", "yz", 150, "0123456789abcdef", 200));
  }

  private static void assertWholePairs(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        assertTrue(i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)), "split pair at " + i);
        i++;
      } else {
        assertFalse(Character.isLowSurrogate(c), "lone low surrogate at " + i);
      }
    }
  }
}
