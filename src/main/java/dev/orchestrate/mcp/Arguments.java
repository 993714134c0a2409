package dev.orchestrate.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A tool call's arguments, read as its input schema says. A missing or mistyped argument is a
 * {@link ToolRefusal} that names it, so that the model can call again (the protocol's later
 * versions make input errors tool errors for that reason).
 */
final class Arguments {
  private final String tool;
  private final ObjectNode values;

  Arguments(String tool, ObjectNode values, Set<String> known) {
    this.tool = tool;
    this.values = values;
    for (Iterator<String> names = values.fieldNames(); names.hasNext();) {
      String name = names.next();
      if (!known.contains(name)) {
        throw new ToolRefusal(tool + " has no argument '" + name + "'"
            + (known.isEmpty() ? " (it takes none)" : "; its arguments: " + String.join(", ", known)));
      }
    }
  }

  String string(String name) {
    String s = optionalString(name);
    if (s == null) {
      throw new ToolRefusal(tool + " needs the argument '" + name + "'");
    }
    return s;
  }

  String optionalString(String name) {
    JsonNode v = values.get(name);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new ToolRefusal(tool + ": '" + name + "' must be a string");
    }
    return v.asText();
  }

  /** {@code fallback} when absent; else an integer from {@code min} to {@code max}. */
  int integer(String name, int fallback, int min, int max) {
    Integer i = optionalInteger(name, min, max);
    return i == null ? fallback : i;
  }

  Integer optionalInteger(String name, int min, int max) {
    JsonNode v = values.get(name);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < min || v.asInt() > max) {
      throw new ToolRefusal(tool + ": '" + name + "' must be an integer from " + min + " to " + max);
    }
    return v.asInt();
  }

  /** An array of strings; empty when absent. */
  List<String> strings(String name) {
    JsonNode v = values.get(name);
    List<String> out = new ArrayList<>();
    if (v == null || v.isNull()) {
      return out;
    }
    if (!v.isArray()) {
      throw new ToolRefusal(tool + ": '" + name + "' must be an array of strings");
    }
    for (JsonNode e : v) {
      if (!e.isTextual()) {
        throw new ToolRefusal(tool + ": '" + name + "' must be an array of strings");
      }
      out.add(e.asText());
    }
    return out;
  }

  /** {@link #strings}, at least one. */
  List<String> nonEmptyStrings(String name) {
    List<String> out = strings(name);
    if (out.isEmpty()) {
      throw new ToolRefusal(tool + " needs '" + name + "': an array of at least one string");
    }
    return out;
  }
}
