package dev.orchestrate.jobs.presets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.orchestrate.jobs.AgentOutcome;
import dev.orchestrate.jobs.Usage;

/**
 * Claude Code's {@code --output-format stream-json} (and {@code json}, whose single line is the
 * same result event). The last {@code {"type":"result"}} event speaks for the attempt: its
 * {@code usage} and {@code total_cost_usd}, its {@code result} text, and {@code is_error} or an
 * {@code error_*} subtype (max turns, max budget, an error during execution) for a failure. Before
 * a result arrives, the last assistant text is kept as the answer.
 */
final class ClaudeReader extends JsonEvents {

  private AgentReport result;
  private String lastAssistantText;

  @Override
  void event(JsonNode event) {
    String type = event.path("type").asText();
    if ("assistant".equals(type)) {
      String text = assistantText(event.path("message").path("content"));
      if (text != null) {
        lastAssistantText = text;
      }
    } else if ("result".equals(type)) {
      result = result(event);
    }
  }

  @Override
  public AgentReport report() {
    if (result != null) {
      return result;
    }
    return lastAssistantText == null ? AgentReport.NONE : new AgentReport(Usage.UNKNOWN, lastAssistantText, null);
  }

  private AgentReport result(JsonNode event) {
    forgetRefusals(); // the last result speaks for the attempt, its figures too
    JsonNode usage = event.path("usage");
    Usage spent = checked(new Usage(count(usage.get("input_tokens"), "usage.input_tokens", Figure.INPUT),
        count(usage.get("output_tokens"), "usage.output_tokens", Figure.OUTPUT),
        count(usage.get("cache_read_input_tokens"), "usage.cache_read_input_tokens", Figure.CACHE_READ),
        count(usage.get("cache_creation_input_tokens"), "usage.cache_creation_input_tokens", Figure.CACHE_WRITE),
        amount(event.get("total_cost_usd"), "total_cost_usd")));
    String subtype = event.path("subtype").asText("");
    String text = text(event.get("result"));
    boolean failed = event.path("is_error").asBoolean(false) || subtype.startsWith("error");
    if (!failed) {
      return new AgentReport(spent, text != null ? text : lastAssistantText, null);
    }
    String error = text != null ? text : errors(event.get("errors"));
    if (error == null) {
      error = "Claude Code ended with " + (subtype.isEmpty() ? "an error" : subtype);
    } else if (!subtype.isEmpty() && !"success".equals(subtype)) {
      error = subtype + ": " + error;
    }
    return new AgentReport(spent, lastAssistantText, error);
  }

  private static String errors(JsonNode errors) {
    if (errors == null || !errors.isArray() || errors.isEmpty()) {
      return null;
    }
    StringBuilder all = new StringBuilder();
    for (JsonNode e : errors) {
      if (e.isTextual()) {
        all.append(all.length() == 0 ? "" : "; ").append(e.asText());
      }
    }
    return text(new TextNode(all.toString()));
  }

  private static String assistantText(JsonNode content) {
    if (!content.isArray()) {
      return null;
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode block : content) {
      if ("text".equals(block.path("type").asText()) && block.path("text").isTextual()) {
        text.append(text.length() == 0 ? "" : "\n").append(block.path("text").asText());
        if (text.length() > AgentOutcome.TEXT_MAX_CHARS * 2) {
          break;
        }
      }
    }
    return text(new TextNode(text.toString()));
  }
}
