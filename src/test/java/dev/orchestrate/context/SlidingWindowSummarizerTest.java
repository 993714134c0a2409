package dev.orchestrate.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.CapturedLogs;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SlidingWindowSummarizerTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(SlidingWindowSummarizer.class);

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);

  private final InMemoryTurns turns = new InMemoryTurns();
  private final List<String> calls = new ArrayList<>();

  /** Answers with a fixed text and records every prompt it is sent. */
  private final class Scripted implements Summarizer {
    private final String answer;

    Scripted(String answer) {
      this.answer = answer;
    }

    @Override
    public String summarize(String prompt) throws SummarizationException {
      calls.add(prompt);
      if (answer == null) {
        throw new SummarizationException("HTTP 503 from http://127.0.0.1/v1/chat/completions");
      }
      return answer;
    }

    @Override
    public String name() {
      return "scripted";
    }
  }

  private final class Listener implements SummarizationListener {
    final List<String> heard = new ArrayList<>();

    @Override
    public void summarizationComplete(String itemId, int turnsCondensed, int summaryTokenEstimate, boolean degraded) {
      heard.add("complete " + itemId + " " + turnsCondensed + " " + summaryTokenEstimate + " " + degraded);
    }

    @Override
    public void summarizationFailed(String itemId, String error) {
      heard.add("failed " + itemId + " " + error);
    }
  }

  private final Listener listener = new Listener();

  private SlidingWindowSummarizer window(Summarizer summarizer, Summarizer fallback, String customPrompt) {
    return new SlidingWindowSummarizer(turns, summarizer, fallback, 5, 2000, customPrompt, CLOCK, listener,
        UnaryOperator.identity());
  }

  private static List<Long> seqs(PriorContext prior) {
    return prior.recentTurns().stream().map(Turn::seq).toList();
  }

  @Test
  void up_to_window_size_turns_are_all_kept_verbatim_without_a_summary() {
    turns.add("A", 5);
    PriorContext prior = window(new Scripted("never"), null, null).prepare("A");
    assertNull(prior.summary());
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), seqs(prior));
    assertTrue(calls.isEmpty());
    assertTrue(turns.events.isEmpty());
    assertTrue(turns.summaries.isEmpty());
  }

  @Test
  void an_item_without_turns_has_no_prior_context() {
    PriorContext prior = window(new Scripted("never"), null, null).prepare("A");
    assertNull(prior.summary());
    assertTrue(prior.recentTurns().isEmpty());
  }

  @Test
  void more_than_window_size_turns_condense_exactly_the_older_ones() {
    turns.add("A", 8);
    PriorContext prior = window(new Scripted("- decided X"), null, null).prepare("A");

    assertEquals("- decided X", prior.summary());
    assertEquals(List.of(4L, 5L, 6L, 7L, 8L), seqs(prior));
    assertEquals(1, calls.size());
    String sent = calls.get(0);
    for (int seq = 1; seq <= 3; seq++) {
      assertTrue(sent.contains("### Turn " + seq + " · "), sent);
    }
    for (int seq = 4; seq <= 8; seq++) {
      assertFalse(sent.contains("### Turn " + seq + " · "), sent);
    }
    ContextSummary saved = turns.summaries.get("A");
    assertEquals(1, saved.fromSeq());
    assertEquals(3, saved.toSeq());
    assertEquals(3, saved.sourceCount());
    assertEquals("scripted", saved.generator());
    assertEquals(CLOCK.instant(), saved.createdAt());
    assertFalse(saved.degraded());
    assertEquals(8, turns.turns.size(), "summarizing never deletes a turn");
  }

  @Test
  void the_prompt_sent_always_has_the_preservation_sentence_and_a_custom_prompt_only_adds_to_it() {
    turns.add("A", 6);
    window(new Scripted("- s"), null, "Keep ticket numbers like ABC-12.").prepare("A");
    String sent = calls.get(0);
    assertTrue(sent.contains("Preserve all technical decisions, file paths, error messages, and architectural "
        + "constraints. Omit conversational filler."), sent);
    assertTrue(sent.contains("Keep ticket numbers like ABC-12."), sent);
    assertTrue(sent.indexOf(SummaryPrompt.PRESERVE) < sent.indexOf("Keep ticket numbers"), sent);
  }

  @Test
  void a_completed_summarization_is_announced_with_turns_condensed_and_a_token_estimate() {
    turns.add("A", 9);
    String answer = "- decided to use Postgres 16 (src/db/Schema.java)";
    window(new Scripted(answer), null, null).prepare("A");

    int tokens = Tokens.estimate(answer);
    assertEquals(List.of("complete A 4 " + tokens + " false"), listener.heard);
    assertEquals(1, turns.events.size());
    InMemoryTurns.RecordedEvent event = turns.events.get(0);
    assertEquals(SlidingWindowSummarizer.EVENT_COMPLETE, event.kind());
    assertEquals("summarization:complete", event.kind());
    assertEquals(4, event.payload().get("turnsCondensed"));
    assertEquals(tokens, event.payload().get("summaryTokenEstimate"));
  }

  @Test
  void a_failed_summarizer_is_reported_and_the_builtin_one_stands_in_marked_degraded() {
    turns.add("A", 8);
    PriorContext prior = window(new Scripted(null), new BuiltinSummarizer(2000), null).prepare("A");

    assertEquals(2, turns.events.size());
    assertEquals("summarization:failed", turns.events.get(0).kind());
    assertEquals("HTTP 503 from http://127.0.0.1/v1/chat/completions", turns.events.get(0).payload().get("error"));
    assertEquals("summarization:complete", turns.events.get(1).kind());
    assertEquals("failed A HTTP 503 from http://127.0.0.1/v1/chat/completions", listener.heard.get(0));
    ContextSummary saved = turns.summaries.get("A");
    assertTrue(saved.degraded());
    assertEquals("builtin", saved.generator());
    assertTrue(prior.summary().contains("src/T2.java"), prior.summary());
    assertEquals(List.of(4L, 5L, 6L, 7L, 8L), seqs(prior));
    assertEquals(8, turns.turns.size());
  }

  @Test
  void a_secret_in_a_failures_message_is_masked_in_the_event_the_log_and_the_listener() {
    turns.add("A", 8);
    Summarizer leaky = new Summarizer() {
      @Override
      public String summarize(String prompt) throws SummarizationException {
        throw new SummarizationException("command summarizer: exit 1\nerror: token deploy-secret-77 refused");
      }

      @Override
      public String name() {
        return "leaky";
      }
    };
    Summarizer leakyFallback = new Summarizer() {
      @Override
      public String summarize(String prompt) {
        throw new IllegalStateException("fallback saw deploy-secret-77 too");
      }

      @Override
      public String name() {
        return "builtin";
      }
    };
    new SlidingWindowSummarizer(turns, leaky, leakyFallback, 5, 2000, null, CLOCK, listener,
        text -> text.replace("deploy-secret-77", "***")).prepare("A");

    assertEquals("command summarizer: exit 1 error: token *** refused", turns.events.get(0).payload().get("error"));
    assertEquals(List.of("failed A command summarizer: exit 1 error: token *** refused"), listener.heard);
    assertEquals(List.of("summarization of item A failed (command summarizer: exit 1 error: token *** refused); "
        + "using the builtin summarizer",
        "fallback summarization of item A failed too (fallback saw *** too); "
            + "keeping every turn verbatim"),
        logs.warnings());
  }

  @Test
  void an_empty_answer_is_a_failure() {
    turns.add("A", 8);
    window(new Scripted("  \n"), new BuiltinSummarizer(2000), null).prepare("A");
    assertEquals("summarization:failed", turns.events.get(0).kind());
    assertTrue(turns.summaries.get("A").degraded());
  }

  @Test
  void with_fallback_none_a_failure_keeps_every_turn_verbatim_and_unchanged() {
    turns.add("A", 8);
    List<Turn> before = List.copyOf(turns.turns);
    PriorContext prior = window(new Scripted(null), null, null).prepare("A");

    assertNull(prior.summary());
    assertEquals(before, prior.recentTurns());
    assertEquals(before, turns.turns);
    assertTrue(turns.summaries.isEmpty());
    assertEquals(List.of("summarization:failed"),
        turns.events.stream().map(InMemoryTurns.RecordedEvent::kind).toList());
    assertEquals("none", turns.events.get(0).payload().get("fallback"));
  }

  @Test
  void the_second_summarization_gets_the_previous_summary_and_only_the_newly_aged_out_turns() {
    SlidingWindowSummarizer window = window(new Scripted("- FIRST SUMMARY"), null, null);
    turns.add("A", 8);
    window.prepare("A"); // condenses 1..3
    turns.add("A", 2);
    calls.clear();
    SlidingWindowSummarizer second = window(new Scripted("- SECOND SUMMARY"), null, null);
    PriorContext prior = second.prepare("A"); // condenses 4..5 on top of the first summary

    String sent = calls.get(0);
    assertTrue(sent.contains("<PREVIOUS_SUMMARY>\n- FIRST SUMMARY\n</PREVIOUS_SUMMARY>"), sent);
    assertTrue(sent.contains("### Turn 4 · ") && sent.contains("### Turn 5 · "), sent);
    for (long seq : List.of(1L, 2L, 3L, 6L, 7L, 8L, 9L, 10L)) {
      assertFalse(sent.contains("### Turn " + seq + " · "), "turn " + seq + " in:\n" + sent);
    }
    ContextSummary saved = turns.summaries.get("A");
    assertEquals(1, saved.fromSeq());
    assertEquals(5, saved.toSeq());
    assertEquals(5, saved.sourceCount());
    assertEquals("- SECOND SUMMARY", prior.summary());
    assertEquals(List.of(6L, 7L, 8L, 9L, 10L), seqs(prior));
  }

  @Test
  void nothing_new_to_condense_reuses_the_stored_summary_without_calling_the_summarizer() {
    turns.add("A", 8);
    window(new Scripted("- S"), null, null).prepare("A");
    calls.clear();
    PriorContext again = window(new Scripted("- other"), null, null).prepare("A");
    assertTrue(calls.isEmpty());
    assertEquals("- S", again.summary());
    assertEquals(List.of(4L, 5L, 6L, 7L, 8L), seqs(again));
  }

  @Test
  void each_item_has_its_own_window() {
    turns.add("A", 8);
    turns.add("B", 2);
    SlidingWindowSummarizer window = window(new Scripted("- S"), null, null);
    assertEquals(List.of(1L, 2L), seqs(window.prepare("B")));
    assertNull(window.prepare("B").summary());
    assertEquals("- S", window.prepare("A").summary());
    assertEquals(Set.of("A"), turns.summaries.keySet(), "B's two turns fit its window: no summary for B");
    assertEquals(3, turns.summaries.get("A").toSeq(), "A's summary condenses A's turns only");
  }

  @Test
  void a_summary_over_the_cap_is_stored_cut_and_flagged_and_one_that_fits_is_not() {
    turns.add("A", 8);
    window(new Scripted("- short"), null, null).prepare("A");
    assertEquals(0, turns.truncatedSummaries);
    turns.add("A", 2);
    window(new Scripted("- " + "y".repeat(5000)), null, null).prepare("A");
    assertEquals(1, turns.truncatedSummaries);
    assertTrue(turns.summaries.get("A").text().length() <= 2000);
  }
}
