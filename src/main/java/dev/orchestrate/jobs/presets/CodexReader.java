package dev.orchestrate.jobs.presets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.jobs.Usage;

/**
 * Codex's {@code exec --json} events. Each {@code turn.completed} carries the turn's usage
 * ({@code input_tokens} includes {@code cached_input_tokens}, which is counted apart here); the last
 * {@code agent_message} item is the answer; {@code turn.failed} or an {@code error} event is a
 * failure with Codex's own message. Codex reports no cost.
 */
final class CodexReader extends JsonEvents {

  private Usage usage = Usage.UNKNOWN;
  private String answer;
  private String error;

  @Override
  void event(JsonNode event) {
    String type = event.path("type").asText();
    switch (type) {
      case "item.completed" -> {
        JsonNode item = event.path("item");
        if ("agent_message".equals(item.path("type").asText())) {
          String text = text(item.get("text"));
          if (text != null) {
            answer = text;
          }
        }
      }
      case "turn.completed" -> {
        JsonNode u = event.path("usage");
        Long input = count(u.get("input_tokens"), "usage.input_tokens", Figure.INPUT);
        // The input count includes the cached one: a cached count refused leaves the fresh input unknown too.
        Long cached = count(u.get("cached_input_tokens"), "usage.cached_input_tokens", Figure.CACHE_READ,
            Figure.INPUT);
        Long fresh = input == null ? null : Math.max(0, input - (cached == null ? 0 : cached));
        usage = usage.plus(new Usage(fresh, count(u.get("output_tokens"), "usage.output_tokens", Figure.OUTPUT),
            cached, count(u.get("cache_write_input_tokens"), "usage.cache_write_input_tokens", Figure.CACHE_WRITE),
            null));
        error = null; // a later turn that completes supersedes an error reported on the way
      }
      case "turn.failed" -> error = message(event.path("error").get("message"), "Codex reported a failed turn");
      case "error" -> error = message(event.get("message"), "Codex reported an error");
      default -> {
        // thread.started, turn.started, item.started, item.updated: nothing to keep
      }
    }
  }

  @Override
  public AgentReport report() {
    return new AgentReport(checked(usage), answer, error);
  }

  /** Codex passes an API error on as the provider's raw JSON body: its error.message is the readable part. */
  private static String message(JsonNode node, String otherwise) {
    String text = text(node);
    if (text == null) {
      return otherwise;
    }
    if (text.startsWith("{")) {
      try {
        String inner = text(JSON.readTree(text).path("error").get("message"));
        if (inner != null) {
          return inner;
        }
      } catch (JsonProcessingException e) {
        // not JSON after all: the text as it is
      }
    }
    return text;
  }

  private static final ObjectMapper JSON = new ObjectMapper();
}
