package dev.orchestrate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.limits.SizeCap;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The load-bearing predicate, why compaction keeps an item, the boot context and the size cap. */
class MemoryPolicyTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

  static MemoryItem item(long seq, MemoryKind kind, String... tags) {
    return new MemoryItem(seq, "m" + seq, kind, "", "content " + seq, List.of(tags), null, T, null);
  }

  @Test
  void load_bearing_is_semantic_or_procedural_or_tagged_rejected_path_for_every_combination() {
    List<List<String>> tagSets = List.of(List.of(), List.of("x"), List.of("rejected-path"),
        List.of("x", "rejected-path"), List.of("rejected-paths"), List.of("Rejected-Path"));
    for (MemoryKind kind : MemoryKind.values()) {
      for (List<String> tags : tagSets) {
        boolean expected = kind != MemoryKind.EPISODIC || tags.contains("rejected-path");
        assertEquals(expected, MemoryItem.isLoadBearing(kind, tags), kind + " " + tags);
        MemoryItem item = new MemoryItem(1, "a", kind, "", "c", tags, null, T, null);
        assertEquals(expected, item.isLoadBearing(), kind + " " + tags);
        assertEquals(expected, new NewMemory(null, kind, null, "c", tags, null).isLoadBearing());
      }
    }
  }

  @Test
  void the_protecting_reason_is_the_kind_or_the_rejected_path_tag() {
    assertEquals("semantic", CompactionPolicy.protectedBecause(item(1, MemoryKind.SEMANTIC)));
    assertEquals("procedural", CompactionPolicy.protectedBecause(item(1, MemoryKind.PROCEDURAL, "rejected-path")));
    assertEquals("rejected-path", CompactionPolicy.protectedBecause(item(1, MemoryKind.EPISODIC, "rejected-path")));
    assertNull(CompactionPolicy.protectedBecause(item(1, MemoryKind.EPISODIC)));
  }

  @Test
  void boot_context_puts_load_bearing_first_then_the_newest_episodes_within_the_budget() {
    List<MemoryItem> lb = List.of(item(1, MemoryKind.SEMANTIC), item(2, MemoryKind.PROCEDURAL));
    List<MemoryItem> recent = List.of(item(9, MemoryKind.EPISODIC), item(8, MemoryKind.EPISODIC),
        item(7, MemoryKind.EPISODIC));
    String all = BootContext.render(lb, recent, 10_000);
    assertEquals("""
        - [semantic] content 1
        - [procedural] content 2
        - [episodic] content 7
        - [episodic] content 8
        - [episodic] content 9
        """, all);
    int twoEpisodes = BootContext.line(lb.get(0)).length() + BootContext.line(lb.get(1)).length()
        + BootContext.line(recent.get(0)).length() * 2;
    String some = BootContext.render(lb, recent, twoEpisodes);
    assertTrue(some.contains("content 9") && some.contains("content 8") && !some.contains("content 7"), some);
    assertNull(BootContext.render(List.of(), List.of(), 100));
  }

  @Test
  void boot_context_says_how_many_load_bearing_items_did_not_fit() {
    List<MemoryItem> lb = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      lb.add(item(i, MemoryKind.SEMANTIC));
    }
    int three = BootContext.line(lb.get(0)).length() * 3;
    String text = BootContext.render(lb, List.of(item(20, MemoryKind.EPISODIC)), three);
    assertTrue(text.contains("content 3") && !text.contains("content 4"), text);
    assertTrue(text.contains("7 more load-bearing memories were left out"), text);
    assertTrue(!text.contains("content 20"), "no episodes when load-bearing items are left out");
  }

  @Test
  void the_size_cap_keeps_prefix_and_suffix_and_names_the_cut_and_the_hash_of_the_original() {
    String original = "a".repeat(5000) + "MIDDLE" + "z".repeat(5000);
    String capped = SizeCap.cap(original, NewMemory.CONTENT_CHARS);
    assertTrue(capped.length() <= NewMemory.CONTENT_CHARS, "length " + capped.length());
    assertTrue(capped.startsWith("aaaa") && capped.endsWith("zzzz"));
    String hash = SizeCap.sha256Prefix(original);
    assertEquals(16, hash.length());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("…\\[truncated (\\d+) chars sha256:([0-9a-f]{16})\\]")
        .matcher(capped);
    assertTrue(m.find(), capped);
    assertEquals(hash, m.group(2));
    int kept = capped.length() - m.group().length();
    assertEquals(original.length() - kept, Integer.parseInt(m.group(1)));
    assertEquals("short", SizeCap.cap("short", 100));
    assertEquals(null, SizeCap.cap(null, 100));
    assertThrows(IllegalArgumentException.class, () -> SizeCap.cap("x", 10));
  }

  @Test
  void the_size_cap_never_splits_a_surrogate_pair() {
    String original = "😀".repeat(200);
    String capped = SizeCap.cap(original, 100);
    assertTrue(capped.length() <= 100);
    String withoutMarker = capped.replaceAll("…\\[truncated \\d+ chars sha256:[0-9a-f]{16}\\]", "");
    assertEquals(0, withoutMarker.length() % 2);
    assertTrue(withoutMarker.chars().allMatch(c -> Character.isSurrogate((char) c)));
    assertTrue(withoutMarker.codePoints().allMatch(c -> c == 0x1F600));
  }
}
