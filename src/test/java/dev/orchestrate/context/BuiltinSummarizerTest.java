package dev.orchestrate.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BuiltinSummarizerTest {
  private static Turn turn(long seq, String phase, String text) {
    return new Turn("A", seq, phase, 1, seq % 2 == 1 ? Turn.Role.USER : Turn.Role.ASSISTANT, text,
        Tokens.estimate(text), Instant.EPOCH);
  }

  private final List<Turn> turns = List.of(
      turn(1, "design", "Design the change."),
      turn(2, "design", """
          result: phase_complete
          summary: Sounds great, happy to help!
          We decided to keep the cache in src/cache/Lru.java
          Thanks!"""),
      turn(3, "build", "Implement the design."),
      turn(4, "build", """
          result: failed
          context: error: src/cache/Lru.java:12: cannot find symbol
          We decided to keep the cache in src/cache/Lru.java
          The API must stay backwards compatible."""));

  @Test
  void keeps_paths_errors_decisions_and_constraints_and_drops_filler_and_duplicates() {
    String summary = new BuiltinSummarizer(4000).summarize(SummaryPrompt.build(null, null, turns));

    assertTrue(summary.contains("- [design] We decided to keep the cache in src/cache/Lru.java"), summary);
    assertTrue(summary.contains("- [build] context: error: src/cache/Lru.java:12: cannot find symbol"), summary);
    assertTrue(summary.contains("- [build] The API must stay backwards compatible."), summary);
    assertFalse(summary.contains("happy to help"), summary);
    assertFalse(summary.contains("Thanks"), summary);
    assertFalse(summary.contains("Preserve all technical decisions"), "instructions are not material: " + summary);
    assertEquals(1, summary.split("keep the cache", -1).length - 1, summary);
  }

  @Test
  void is_deterministic_keeps_the_previous_summary_first_and_caps_its_length() {
    BuiltinSummarizer builtin = new BuiltinSummarizer(4000);
    String prompt = SummaryPrompt.build(null, "- [scope] assumed Java 17", turns);
    assertEquals(builtin.summarize(prompt), builtin.summarize(prompt));
    assertTrue(builtin.summarize(prompt).startsWith("- [scope] assumed Java 17\n"));

    String capped = new BuiltinSummarizer(200).summarize(SummaryPrompt.build(null, null,
        List.of(turn(2, "x", "error in src/A.java\n".repeat(1) + "x/y.java failed\n".repeat(1)
            + "must do it ".repeat(100)))));
    assertTrue(capped.length() <= 200, capped);
  }

  @Test
  void turns_without_anything_to_keep_still_give_a_short_summary() {
    String summary = new BuiltinSummarizer(4000).summarize(SummaryPrompt.build(null, null,
        List.of(turn(2, "x", "Sounds great!"))));
    assertEquals("- 1 earlier line(s) carried no file paths, errors or decisions.", summary);
    String next = new BuiltinSummarizer(4000).summarize(SummaryPrompt.build(null, summary,
        List.of(turn(4, "y", "Use src/B.java"))));
    assertEquals("- [y] Use src/B.java", next, "the placeholder does not roll over");
  }
}
