package dev.orchestrate.backlog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.config.BacklogSourceConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.Problem;
import dev.orchestrate.yaml.ValidationException;
import dev.orchestrate.yaml.YamlNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A command's JSON as backlog items (docs/backlog.md, "A backlog from a command"). The output is a
 * JSON array of objects; each object is one item, by a fixed mapping:
 * <ul>
 * <li>id: {@code id_prefix} + the value of {@code id_field} (a number or text; default {@code number}),
 * <li>title: {@code title},
 * <li>description: {@code body}, else {@code description},
 * <li>tags: {@code labels} (text, or objects with a {@code name}, as {@code gh} prints them); a
 * label {@code priority:high} (medium, low) sets the priority and {@code pipeline:NAME} the pipeline
 * instead of being a tag,
 * <li>depends_on: {@code depends_on}, a list of other objects' id field values (the prefix added).
 * </ul>
 * Other fields are ignored. The items are then checked as the backlog file's are
 * ({@link BacklogLoader}), so an unknown pipeline or a dependency cycle is refused the same way.
 */
final class BacklogJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private BacklogJson() {
  }

  /** What problems name: the command, as the config wrote it, cut to a line. */
  static String label(BacklogSourceConfig source) {
    return "backlog.source.command (" + Quote.line(source.command().text(), 60) + ")";
  }

  /**
   * The items {@code json} lists.
   *
   * @param file where the backlog stands (its directory is where agents run)
   * @throws ValidationException naming the command and what was wrong
   */
  static Backlog parse(String json, Path file, Config config) {
    BacklogSourceConfig source = config.backlogSource();
    String label = label(source);
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw problem(label, "printed no JSON: " + Quote.line(e.getOriginalMessage(), 200) + " (line "
          + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
    }
    if (root == null || root.isMissingNode()) {
      throw problem(label, "printed nothing; it must print a JSON array of items (an empty one: [])");
    }
    if (!root.isArray()) {
      throw problem(label, "printed a JSON " + kind(root) + ", not an array of items");
    }
    List<YamlNode> nodes = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    List<Problem> problems = new ArrayList<>();
    for (int i = 0; i < root.size(); i++) {
      JsonNode element = root.get(i);
      String where = "element " + (i + 1) + " of " + root.size();
      if (!element.isObject()) {
        problems.add(new Problem(label, 0, 0, where + " is a JSON " + kind(element) + ", not an object"));
        continue;
      }
      String sourceId = sourceId(element.get(source.idField()));
      if (sourceId == null) {
        problems.add(new Problem(label, 0, 0, where + " has no id: its field " + Quote.value(source.idField())
            + " (backlog.source.id_field) must be a number or text, got "
            + (element.has(source.idField()) ? "a " + kind(element.get(source.idField())) : "nothing")));
        continue;
      }
      String id = source.idPrefix() + sourceId;
      Integer first = seen.putIfAbsent(id, i + 1);
      if (first != null) {
        problems.add(new Problem(label, 0, 0, "duplicate id " + Quote.value(id) + " (elements " + first + " and "
            + (i + 1) + ")"));
        continue;
      }
      nodes.add(item(id, element, source.idPrefix()));
    }
    if (!problems.isEmpty()) {
      throw new ValidationException(problems);
    }
    return BacklogLoader.fromNodes(file, label, nodes, config);
  }

  /** The id field's value as text: an integral number or non-blank text; null otherwise. */
  private static String sourceId(JsonNode value) {
    if (value == null) {
      return null;
    }
    if (value.isIntegralNumber()) {
      return value.bigIntegerValue().toString();
    }
    if (value.isTextual() && !value.asText().isBlank()) {
      return value.asText().strip();
    }
    return null;
  }

  /** The object as the backlog file would have written it. */
  private static YamlNode item(String id, JsonNode element, String prefix) {
    List<YamlNode.Entry> entries = new ArrayList<>();
    entries.add(entry("id", text(id)));
    copy(element.get("title"), "title", entries);
    JsonNode body = element.hasNonNull("body") ? element.get("body") : element.get("description");
    copy(body, "description", entries);
    JsonNode labels = element.get("labels");
    if (labels != null && labels.isArray()) {
      List<YamlNode> tags = new ArrayList<>();
      for (JsonNode label : labels) {
        String name = label.isTextual() ? label.asText() : label.path("name").isTextual() ? label.get("name").asText()
            : null;
        if (name == null || name.isBlank()) {
          continue;
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.startsWith("priority:")) {
          entries.add(entry("priority", text(lower.substring("priority:".length()).strip())));
        } else if (lower.startsWith("pipeline:")) {
          entries.add(entry("pipeline", text(name.substring("pipeline:".length()).strip())));
        } else {
          tags.add(text(name));
        }
      }
      entries.add(entry("tags", new YamlNode.Sequence(0, 0, tags)));
    }
    JsonNode dependsOn = element.get("depends_on");
    if (dependsOn != null && dependsOn.isArray()) {
      List<YamlNode> ids = new ArrayList<>();
      for (JsonNode dependency : dependsOn) {
        String value = sourceId(dependency);
        ids.add(value == null ? scalar(dependency) : text(prefix + value));
      }
      entries.add(entry("depends_on", new YamlNode.Sequence(0, 0, ids)));
    }
    // Of two priority: (or pipeline:) labels, the first counts.
    List<YamlNode.Entry> unique = new ArrayList<>();
    entries.stream().filter(e -> unique.stream().noneMatch(u -> u.key().name().equals(e.key().name())))
        .forEach(unique::add);
    return new YamlNode.Mapping(0, 0, unique);
  }

  /** A text or number field as the loader reads it; anything else as a value the loader refuses by its kind. */
  private static void copy(JsonNode value, String key, List<YamlNode.Entry> entries) {
    if (value != null && !value.isNull()) {
      entries.add(entry(key, scalar(value)));
    }
  }

  private static YamlNode scalar(JsonNode value) {
    if (value.isTextual()) {
      return text(value.asText());
    }
    if (value.isIntegralNumber()) {
      return new YamlNode.Scalar(0, 0, YamlNode.Scalar.Kind.INTEGER, value.asText(), value.bigIntegerValue());
    }
    if (value.isNumber() || value.isBoolean()) {
      return new YamlNode.Scalar(0, 0, value.isBoolean() ? YamlNode.Scalar.Kind.BOOLEAN : YamlNode.Scalar.Kind.FLOAT,
          value.asText(), null);
    }
    if (value.isNull()) {
      return new YamlNode.Scalar(0, 0, YamlNode.Scalar.Kind.NULL, "", null);
    }
    return value.isArray() ? new YamlNode.Sequence(0, 0, List.of()) : new YamlNode.Mapping(0, 0, List.of());
  }

  private static YamlNode.Scalar text(String text) {
    return new YamlNode.Scalar(0, 0, YamlNode.Scalar.Kind.STRING, text, null);
  }

  private static YamlNode.Entry entry(String key, YamlNode value) {
    return new YamlNode.Entry(new YamlNode.Key(key, 0, 0), value);
  }

  private static String kind(JsonNode node) {
    return node.isObject() ? "object" : node.isArray() ? "array" : node.isTextual() ? "string"
        : node.isNumber() ? "number" : node.isBoolean() ? "boolean" : "null";
  }

  private static ValidationException problem(String label, String message) {
    return new ValidationException(List.of(new Problem(label, 0, 0, message)));
  }
}
