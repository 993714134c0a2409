package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.limits.SizeCap;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TailBufferTest {

  private static void append(TailBuffer tail, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    tail.append(bytes, 0, bytes.length);
  }

  /** Feeds {@code text} in chunks of {@code chunk} bytes, so characters straddle appends. */
  private static void appendInChunks(TailBuffer tail, String text, int chunk) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i += chunk) {
      tail.append(bytes, i, Math.min(chunk, bytes.length - i));
    }
  }

  @Test
  void short_output_is_kept_whole() {
    TailBuffer tail = new TailBuffer(100);
    append(tail, "hello ");
    append(tail, "world");
    assertEquals("hello world", tail.text());
  }

  @Test
  void long_output_keeps_only_the_last_characters() {
    TailBuffer tail = new TailBuffer(10);
    appendInChunks(tail, "0123456789".repeat(1000) + "abcdefghij", 7);
    assertEquals("abcdefghij", tail.text());
  }

  @Test
  void a_single_append_larger_than_the_ring_keeps_its_end() {
    TailBuffer tail = new TailBuffer(5);
    append(tail, "x".repeat(100_000) + "12345");
    assertEquals("12345", tail.text());
  }

  @Test
  void two_and_three_byte_characters_are_never_cut_in_half() {
    for (int chunk : new int[] {1, 2, 3, 5, 4096}) {
      TailBuffer tail = new TailBuffer(7);
      appendInChunks(tail, "aé€".repeat(1000), chunk);
      String text = tail.text();
      assertFalse(text.contains("\uFFFD"), text);
      assertEquals(7, text.length());
      assertEquals("aé€aé€aé€".substring(2), text);
    }
  }

  @Test
  void surrogate_pairs_are_never_split() {
    TailBuffer tail = new TailBuffer(5);
    appendInChunks(tail, "𝄞".repeat(100), 3);
    String text = tail.text();
    // 5 chars would start with the low half of a pair, so only two whole pairs remain.
    assertEquals("𝄞𝄞", text);
  }

  @Test
  void invalid_utf8_is_replaced_not_fatal() {
    TailBuffer tail = new TailBuffer(10);
    tail.append(new byte[] {'o', 'k', (byte) 0xFF, '!'}, 0, 4);
    assertEquals("ok\uFFFD!", tail.text());
  }

  @Test
  void a_zero_character_tail_is_empty() {
    TailBuffer tail = new TailBuffer(0);
    append(tail, "anything");
    assertEquals("", tail.text());
  }

  private static final Pattern MARKER = Pattern.compile("…\\[truncated (\\d+) chars sha256:([0-9a-f]{16})]");

  @Test
  void output_that_fits_is_given_whole_and_not_truncated() {
    TailBuffer tail = new TailBuffer(100);
    append(tail, "x".repeat(100));
    assertEquals("x".repeat(100), tail.capped());
    assertFalse(tail.truncated());
  }

  @Test
  void long_output_keeps_its_beginning_and_end_around_a_marker_with_the_hash_of_all_of_it() {
    String output = "FIRST LINE\n" + "noise ".repeat(100_000) + "\nLAST LINE";
    TailBuffer tail = new TailBuffer(200);
    appendInChunks(tail, output, 4096);
    String capped = tail.capped();

    assertTrue(tail.truncated());
    assertTrue(capped.length() <= 200, capped.length() + "");
    assertTrue(capped.startsWith("FIRST LINE\n"), capped);
    assertTrue(capped.endsWith("\nLAST LINE"), capped);
    Matcher m = MARKER.matcher(capped);
    assertTrue(m.find(), capped);
    assertEquals(SizeCap.sha256Prefix(output), m.group(2));
    assertEquals(output.length(), capped.length() - m.group().length() + Long.parseLong(m.group(1)));
    // exactly what capping the whole output at once gives
    assertEquals(SizeCap.cap(output, 200), capped);
  }

  @Test
  void output_just_over_the_cap_that_never_left_the_ring_is_capped_whole() {
    String output = "é".repeat(150);
    TailBuffer tail = new TailBuffer(100);
    appendInChunks(tail, output, 1);
    assertTrue(tail.truncated());
    assertEquals(SizeCap.cap(output, 100), tail.capped());
  }

  @Test
  void multi_byte_characters_at_the_edges_of_the_kept_bytes_are_never_split() {
    for (int chunk : new int[] {1, 3, 7, 4096}) {
      for (String unit : new String[] {"€", "😀", "a😀é"}) {
        String output = unit.repeat(5000);
        TailBuffer tail = new TailBuffer(120);
        appendInChunks(tail, output, chunk);
        String capped = tail.capped();
        assertFalse(capped.contains("\uFFFD"), capped);
        assertEquals(SizeCap.cap(output, 120), capped, unit + " in chunks of " + chunk);
      }
    }
  }

  @Test
  void a_cap_too_small_for_the_marker_gives_the_plain_end() {
    TailBuffer tail = new TailBuffer(10);
    append(tail, "0123456789".repeat(100) + "abcdefghij");
    assertEquals("abcdefghij", tail.capped());
    assertTrue(tail.truncated());
  }

  @Test
  void the_largest_cap_allocates_nothing_in_proportion_to_it_before_output_arrives() {
    // Two buffers of 3 bytes per char each: 12 GB if allocated up front (the tests run in 512 MB).
    TailBuffer buffer = new TailBuffer(Integer.MAX_VALUE);
    byte[] line = "hello\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (int i = 0; i < 10_000; i++) {
      buffer.append(line, 0, line.length);
    }
    assertEquals("hello\n".repeat(10_000), buffer.text());
    assertEquals(false, buffer.truncated());
  }
}
