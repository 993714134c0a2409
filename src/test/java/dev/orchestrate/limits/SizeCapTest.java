package dev.orchestrate.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SizeCapTest {
  private static final Pattern MARKER = Pattern.compile("…\\[truncated (\\d+) chars sha256:([0-9a-f]{16})]");

  @Test
  void text_that_fits_is_returned_unchanged() {
    String text = "short";
    assertSame(text, SizeCap.cap(text, 100));
    assertEquals(null, SizeCap.cap(null, 100));
  }

  @Test
  void long_text_keeps_a_prefix_and_a_suffix_around_a_marker_with_the_hash_of_the_original() {
    String text = "BEGIN" + "x".repeat(10_000) + "END";
    String capped = SizeCap.cap(text, 300);

    assertTrue(capped.length() <= 300, capped.length() + "");
    assertTrue(capped.startsWith("BEGIN"), capped);
    assertTrue(capped.endsWith("END"), capped);
    Matcher m = MARKER.matcher(capped);
    assertTrue(m.find(), capped);
    assertEquals(SizeCap.sha256Prefix(text), m.group(2));
    int kept = capped.length() - m.group().length();
    assertEquals(text.length(), kept + Integer.parseInt(m.group(1)));
  }

  @Test
  void a_surrogate_pair_is_never_split() {
    String text = "😀".repeat(500);
    String capped = SizeCap.cap(text, 201);
    String withoutMarker = MARKER.matcher(capped).replaceAll("");
    assertEquals(0, withoutMarker.chars().filter(c -> Character.isSurrogate((char) c)).count() % 2);
  }
}
