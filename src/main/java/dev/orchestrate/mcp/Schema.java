package dev.orchestrate.mcp;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** A tool's input schema (JSON Schema, an object of named properties), built a property at a time. */
final class Schema {
  private final ObjectNode node = JsonNodeFactory.instance.objectNode();
  private final ObjectNode properties;
  private final ArrayNode required;
  private final Set<String> names = new LinkedHashSet<>();

  Schema() {
    node.put("type", "object");
    properties = node.putObject("properties");
    required = JsonNodeFactory.instance.arrayNode();
    node.put("additionalProperties", false);
  }

  Schema string(String name, String description, boolean isRequired) {
    property(name, description, isRequired).put("type", "string");
    return this;
  }

  Schema choice(String name, String description, List<String> values) {
    ObjectNode p = property(name, description, false).put("type", "string");
    values.forEach(p.putArray("enum")::add);
    return this;
  }

  Schema integer(String name, String description, int min, int max, Integer fallback) {
    ObjectNode p = property(name, description, false).put("type", "integer").put("minimum", min).put("maximum", max);
    if (fallback != null) {
      p.put("default", fallback);
    }
    return this;
  }

  Schema strings(String name, String description, boolean isRequired) {
    ObjectNode p = property(name, description, isRequired).put("type", "array");
    p.putObject("items").put("type", "string");
    if (isRequired) {
      p.put("minItems", 1);
    }
    return this;
  }

  private ObjectNode property(String name, String description, boolean isRequired) {
    names.add(name);
    if (isRequired) {
      required.add(name);
    }
    return properties.putObject(name).put("description", description);
  }

  Set<String> names() {
    return Set.copyOf(names);
  }

  ObjectNode json() {
    ObjectNode copy = node.deepCopy();
    if (!required.isEmpty()) {
      copy.set("required", required.deepCopy());
    }
    return copy;
  }
}
