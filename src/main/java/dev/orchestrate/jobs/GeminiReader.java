package dev.orchestrate.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.Usage;

/**
 * The Gemini CLI's {@code --output-format stream-json} events: assistant {@code message} events
 * (deltas are joined, within the cap) make the answer; the {@code result} event carries
 * {@code stats} (input, output and cached tokens) and a {@code status}; an {@code error} event or
 * a result whose status is not {@code success} is a failure. The single document of
 * {@code --output-format json} ({@code response}, {@code stats.models.*.tokens}, {@code error}) is
 * read too. The Gemini CLI reports no cost.
 */
final class GeminiReader extends JsonEvents {

  private final StringBuilder answer = new StringBuilder();
  private Usage usage = Usage.UNKNOWN;
  private String error;

  @Override
  void event(JsonNode event) {
    String type = event.path("type").asText();
    if ("message".equals(type) && "assistant".equals(event.path("role").asText())) {
      if (!event.path("delta").asBoolean(false)) {
        answer.setLength(0);
      }
      if (answer.length() < AgentOutcome.TEXT_MAX_CHARS * 2) {
        answer.append(event.path("content").asText(""));
      }
    } else if ("result".equals(type)) {
      forgetRefusals(); // the result's stats replace what came before
      JsonNode stats = event.path("stats");
      Long input = count(stats.get("input_tokens"), "stats.input_tokens", Figure.INPUT);
      Long cached = count(stats.get("cached"), "stats.cached", Figure.CACHE_READ, Figure.INPUT);
      usage = new Usage(input == null ? null : Math.max(0, input - (cached == null ? 0 : cached)),
          count(stats.get("output_tokens"), "stats.output_tokens", Figure.OUTPUT), cached, null, null);
      if (!"success".equals(event.path("status").asText("success"))) {
        error = errorText(event.get("error"), "Gemini CLI ended with status " + event.path("status").asText());
      }
    } else if ("error".equals(type)) {
      error = errorText(event, "Gemini CLI reported an error");
    } else if (event.has("response") || event.has("stats")) {
      single(event);
    }
  }

  /** The {@code --output-format json} document. */
  private void single(JsonNode doc) {
    String response = text(doc.get("response"));
    if (response != null) {
      answer.setLength(0);
      answer.append(response);
    }
    forgetRefusals(); // the document's stats replace what came before
    JsonNode models = doc.path("stats").path("models");
    Usage total = Usage.UNKNOWN;
    for (JsonNode model : (Iterable<JsonNode>) models::elements) {
      JsonNode t = model.path("tokens");
      Long prompt = count(t.get("prompt"), "stats.models.*.tokens.prompt", Figure.INPUT);
      Long cached = count(t.get("cached"), "stats.models.*.tokens.cached", Figure.CACHE_READ, Figure.INPUT);
      total = total.plus(new Usage(prompt == null ? null : Math.max(0, prompt - (cached == null ? 0 : cached)),
          count(t.get("candidates"), "stats.models.*.tokens.candidates", Figure.OUTPUT), cached, null, null));
    }
    usage = total;
    if (doc.hasNonNull("error")) {
      error = errorText(doc.get("error"), "Gemini CLI reported an error");
    }
  }

  @Override
  public AgentReport report() {
    String text = answer.length() == 0 ? null : text(new TextNode(answer.toString()));
    return new AgentReport(checked(usage), text, error, error == null ? null
        : ProviderText.classify(error).orElse(null));
  }

  private static String errorText(JsonNode error, String otherwise) {
    if (error == null) {
      return otherwise;
    }
    String message = text(error.isTextual() ? error : error.get("message"));
    return message != null ? message : otherwise;
  }

  @Override
  String sessionOf(JsonNode event) {
    return "init".equals(event.path("type").asText()) && event.path("session_id").isTextual()
        ? event.path("session_id").asText() : null;
  }
}
