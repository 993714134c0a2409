package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.outcome.Usage;
import org.junit.jupiter.api.Test;

/**
 * How Claude Code's reader sums what a run spent from its messages and its result (the recorded
 * cases are in RecordedUsageTest): each message once, within the ceilings, whatever the agent prints.
 */
class ClaudeUsageTest {
  private final OutputReader reader = OutputReaders.of(AgentPreset.CLAUDE);

  private static String message(String id, long input, long output) {
    return "{\"type\":\"assistant\",\"message\":{\"id\":\"" + id + "\",\"usage\":{\"input_tokens\":" + input
        + ",\"output_tokens\":" + output + ",\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0},"
        + "\"content\":[{\"type\":\"text\",\"text\":\"working\"}]}}";
  }

  @Test
  void a_later_event_of_a_message_adds_only_what_its_figures_grew_by() {
    reader.line(message("msg_1", 1000, 1));
    reader.line(message("msg_1", 1000, 40));
    reader.line(message("msg_2", 500, 1));
    assertEquals(new Usage(1500L, 41L, 0L, 0L, null), reader.report().usage());
  }

  @Test
  void interleaved_messages_of_sub_agents_are_each_counted_once() {
    reader.line(message("msg_a", 100, 1));
    reader.line(message("msg_b", 200, 1));
    reader.line(message("msg_a", 100, 1));
    reader.line(message("msg_b", 200, 1));
    assertEquals(new Usage(300L, 2L, 0L, 0L, null), reader.report().usage());
  }

  @Test
  void only_the_recent_ids_are_remembered_so_memory_stays_bounded() {
    for (int i = 0; i < 10_000; i++) {
      reader.line(message("msg_" + i, 1, 1));
    }
    // an id seen long ago counts again: the reader keeps the last RECENT_MESSAGES only
    reader.line(message("msg_0", 1, 1));
    reader.line(message("msg_9999", 1, 1));
    assertEquals(new Usage(10_001L, 10_001L, 0L, 0L, null), reader.report().usage());
  }

  @Test
  void a_message_figure_above_the_ceiling_is_unknown_and_noted() {
    reader.line(message("msg_1", 10, 1));
    reader.line(message("msg_2", 9_223_372_036_854_775_807L, 1));
    Usage usage = reader.report().usage();
    assertNull(usage.inputTokens());
    assertEquals(2L, usage.outputTokens());
    assertTrue(usage.note().contains("message.usage.input_tokens 9223372036854775807"), usage.note());
  }

  @Test
  void a_sum_of_messages_past_the_ceiling_is_unknown_not_wrapped() {
    for (int i = 0; i < 3; i++) {
      reader.line(message("msg_" + i, Usage.MAX_TOKENS, 1));
    }
    Usage usage = reader.report().usage();
    assertNull(usage.inputTokens());
    assertTrue(usage.note().contains(Usage.ABOVE_TOKENS), usage.note());
  }

  @Test
  void each_figure_of_a_result_is_the_largest_of_its_usage_its_models_and_its_messages() {
    reader.line(message("msg_1", 1000, 1));
    reader.line("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\","
        + "\"total_cost_usd\":0.5,\"usage\":{\"input_tokens\":10,\"output_tokens\":900,"
        + "\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0},"
        + "\"modelUsage\":{\"m\":{\"inputTokens\":5000,\"outputTokens\":20,\"cacheReadInputTokens\":7,"
        + "\"cacheCreationInputTokens\":0,\"costUSD\":0.5}}}");
    assertEquals(new Usage(5000L, 900L, 7L, 0L, 0.5), reader.report().usage());
  }

  @Test
  void the_runs_own_per_model_figures_win_over_the_sessions() {
    reader.line("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\","
        + "\"total_cost_usd\":0.5,\"usage\":{\"input_tokens\":10,\"output_tokens\":1},"
        + "\"modelUsage\":{\"m\":{\"inputTokens\":5000,\"outputTokens\":20}},"
        + "\"model_usage_since_last_result\":{\"m\":{\"inputTokens\":2000,\"outputTokens\":8}}}");
    assertEquals(new Usage(2000L, 8L, null, null, 0.5), reader.report().usage());
  }

  @Test
  void only_the_first_models_of_a_result_are_counted() {
    StringBuilder models = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      models.append(i == 0 ? "" : ",").append("\"m").append(i).append("\":{\"inputTokens\":1}");
    }
    reader.line("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\","
        + "\"usage\":{},\"modelUsage\":{" + models + "}}");
    assertEquals(Long.valueOf(ClaudeReader.MAX_MODELS), reader.report().usage().inputTokens());
  }
}
