package dev.orchestrate.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ContextConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContextHistoryTest {
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);

  @TempDir
  Path dir;

  private final InMemoryTurns turns = new InMemoryTurns();

  private ContextHistory history(int turnMaxChars) {
    ContextConfig config = new ContextConfig(5, turnMaxChars, 1000, ContextConfig.defaults().summarizer());
    return ContextHistory.create(turns, config, dir, CLOCK, SummarizationListener.NONE, name -> null,
        UnaryOperator.identity());
  }

  @Test
  void an_attempt_records_the_task_and_the_answer_with_the_end_of_the_output() throws Exception {
    Path log = dir.resolve("output.log");
    Files.writeString(log, "compiling…\n" + "noise\n".repeat(500) + "BUILD FAILED: src/A.java:3\n");
    ContextHistory history = history(8000);
    history.recordTask("A", "build", 2, "Implement the design.\n");
    history.recordAnswer("A", "build", 2, new TurnHistory.Answer("failed", "", "tests are red", log));

    assertEquals(2, turns.turns.size());
    Turn task = turns.turns.get(0);
    assertEquals(new Turn("A", 1, "build", 2, Turn.Role.USER, "Implement the design.", 6, CLOCK.instant()), task);
    Turn answer = turns.turns.get(1);
    assertEquals(Turn.Role.ASSISTANT, answer.role());
    assertTrue(answer.text().startsWith("result: failed\ncontext: tests are red\noutput (tail):\n"), answer.text());
    assertTrue(answer.text().endsWith("BUILD FAILED: src/A.java:3\n"), answer.text());
    assertTrue(answer.text().length() < 2100, "the tail is a quarter of the turn cap: " + answer.text().length());
  }

  @Test
  void the_output_tail_is_left_out_when_the_summary_already_is_that_tail() throws Exception {
    Path log = dir.resolve("output.log");
    Files.writeString(log, "done: src/B.java\n");
    history(8000).recordAnswer("A", "build", 1, new TurnHistory.Answer("phase_complete", "done: src/B.java", "", log));
    assertEquals("result: phase_complete\nsummary: done: src/B.java\n", turns.turns.get(0).text());
  }

  @Test
  void a_link_an_agent_planted_in_place_of_its_log_is_not_read_into_the_turn() throws Exception {
    Path outside = Files.writeString(dir.resolve("outside-secret.txt"), "the operator's private notes\n");
    Path jobDir = Files.createDirectory(dir.resolve("job"));
    Path log = Files.createSymbolicLink(jobDir.resolve("output.log"), outside);
    history(8000).recordAnswer("A", "build", 1, new TurnHistory.Answer("failed", "", "tests are red", log));
    String text = turns.turns.get(0).text();
    assertEquals("result: failed\ncontext: tests are red\n", text);
  }

  @Test
  void a_fifo_in_place_of_the_log_is_not_opened() throws Exception {
    Path log = dir.resolve("output.log");
    Process mkfifo = new ProcessBuilder("mkfifo", log.toString()).start();
    assertEquals(0, mkfifo.waitFor());
    // Opening a FIFO for reading blocks until a writer comes: the tail must not even open it.
    assertEquals("", ContextHistory.tail(log, 100));
  }

  @Test
  void a_long_turn_is_capped_with_the_truncation_marker() {
    history(300).recordAnswer("A", "build", 1,
        new TurnHistory.Answer("phase_complete", "x".repeat(5000), "", dir.resolve("missing.log")));
    String text = turns.turns.get(0).text();
    assertTrue(text.length() <= 300, text);
    assertTrue(text.contains("…[truncated "), text);
  }

  @Test
  void a_cut_turn_is_stored_as_truncated_and_one_that_fits_is_not() {
    ContextHistory history = history(300);
    history.recordTask("A", "build", 1, "Build it.");
    assertEquals(0, turns.truncatedTurns);
    history.recordAnswer("A", "build", 1,
        new TurnHistory.Answer("phase_complete", "x".repeat(5000), "", dir.resolve("missing.log")));
    assertEquals(1, turns.truncatedTurns);
  }

  @Test
  void the_builtin_summarizer_leaves_the_cut_to_the_window_which_counts_it() {
    ContextConfig config = new ContextConfig(1, 8000, 200, ContextConfig.defaults().summarizer());
    ContextHistory history = ContextHistory.create(turns, config, dir, CLOCK, SummarizationListener.NONE, name -> null,
        UnaryOperator.identity());
    for (int i = 0; i < 20; i++) {
      history.recordTask("A", "p" + i, 1, "Edit src/File" + i + ".java because it must change.");
    }
    history.prepare("A");
    String summary = turns.summaries.get("A").text();
    assertTrue(summary.length() <= 200 && summary.contains("…[truncated "), summary);
    assertEquals(1, turns.truncatedSummaries);
  }
}
