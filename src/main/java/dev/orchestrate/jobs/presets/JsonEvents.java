package dev.orchestrate.jobs.presets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.orchestrate.jobs.AgentOutcome;
import dev.orchestrate.limits.SizeCap;

/**
 * The shared part of every preset's reader: stdout is JSON Lines (one event per line); lines that
 * are not a JSON object (a banner, a warning) are skipped. Subclasses see each event and keep
 * bounded state.
 */
abstract class JsonEvents implements OutputReader {

  private static final ObjectMapper JSON = JsonMapper.builder().build();

  @Override
  public final void line(String line) {
    String text = line.strip();
    if (!text.startsWith("{")) {
      return;
    }
    try {
      JsonNode event = JSON.readTree(text);
      if (event != null && event.isObject()) {
        event(event);
      }
    } catch (JsonProcessingException e) {
      // not an event: agents print other things too
    }
  }

  abstract void event(JsonNode event);

  /** A text the agent wrote, within the cap every agent text gets; null when absent or blank. */
  static String text(JsonNode node) {
    if (node == null || !node.isTextual() || node.asText().isBlank()) {
      return null;
    }
    return SizeCap.cap(node.asText().strip(), AgentOutcome.TEXT_MAX_CHARS);
  }

  /** A non-negative whole number, or null. */
  static Long count(JsonNode node) {
    if (node == null || !node.isNumber() || node.asLong() < 0) {
      return null;
    }
    return node.asLong();
  }

  /** A non-negative amount, or null. */
  static Double amount(JsonNode node) {
    if (node == null || !node.isNumber() || node.asDouble() < 0 || !Double.isFinite(node.asDouble())) {
      return null;
    }
    return node.asDouble();
  }
}
