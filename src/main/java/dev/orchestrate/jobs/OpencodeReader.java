package dev.orchestrate.jobs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.orchestrate.outcome.Usage;

/**
 * opencode's {@code run --format json} events: {@code text} parts make the answer (the last one
 * wins), every {@code step_finish} adds its {@code tokens} (input, output, cache read and write)
 * and {@code cost}, and an {@code error} event is a failure with opencode's message.
 */
final class OpencodeReader extends JsonEvents {

  private Usage usage = Usage.UNKNOWN;
  private String answer;
  private String error;

  @Override
  void event(JsonNode event) {
    String type = event.path("type").asText();
    JsonNode part = event.path("part");
    if ("text".equals(type)) {
      String text = text(part.get("text"));
      if (text != null) {
        answer = text;
      }
    } else if ("step_finish".equals(type)) {
      JsonNode tokens = part.path("tokens");
      Long output = count(tokens.get("output"), "tokens.output", Figure.OUTPUT);
      Long reasoning = count(tokens.get("reasoning"), "tokens.reasoning", Figure.OUTPUT);
      usage = usage.plus(new Usage(count(tokens.get("input"), "tokens.input", Figure.INPUT),
          output == null ? reasoning : reasoning == null ? output : Long.valueOf(Usage.add(output, reasoning)),
          count(tokens.path("cache").get("read"), "tokens.cache.read", Figure.CACHE_READ),
          count(tokens.path("cache").get("write"), "tokens.cache.write", Figure.CACHE_WRITE),
          amount(part.get("cost"), "cost")));
    } else if ("error".equals(type)) {
      JsonNode e = event.path("error");
      String message = text(e.path("data").get("message"));
      if (message == null) {
        message = text(e.get("message"));
      }
      error = message != null ? message
          : "opencode reported an error" + (e.has("name") ? " (" + e.path("name").asText() + ")" : "");
    }
  }

  @Override
  public AgentReport report() {
    return new AgentReport(checked(usage), answer, error, error == null ? null
        : ProviderText.classify(error).orElse(null));
  }

  @Override
  String sessionOf(JsonNode event) {
    return event.path("sessionID").isTextual() ? event.path("sessionID").asText() : null;
  }
}
