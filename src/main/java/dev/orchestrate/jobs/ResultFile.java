package dev.orchestrate.jobs;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.orchestrate.jobs.AgentOutcome.FollowUp;
import dev.orchestrate.jobs.AgentOutcome.MemoryNote;
import dev.orchestrate.limits.Cuts;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The JSON an agent may leave at {@code ORCHESTRATE_RESULT_FILE} (DESIGN §4). Read strictly, so a
 * typo becomes a specific failure instead of a silent default, but unknown fields are ignored so
 * that agents written against a newer protocol keep working with this version. Each text field
 * (summary, context, memory content, follow-up title and description) is cut to
 * {@link AgentOutcome#TEXT_MAX_CHARS} as it is read, and the report counts how many were.
 */
final class ResultFile {

  /** A report is a few paragraphs; a file this large is a runaway agent, not a report. */
  static final int MAX_BYTES = 4 * 1024 * 1024;

  static final List<String> MEMORY_KINDS = List.of("semantic", "procedural", "episodic");

  private static final int MAX_QUOTED_VALUE_CHARS = 80;
  private static final int TEXT_MAX_CHARS = AgentOutcome.TEXT_MAX_CHARS;

  /** What reading the file came to. */
  sealed interface Reading permits Absent, Invalid, Reported {}

  /** No file, or an empty one: the attempt falls back to its exit code. */
  record Absent() implements Reading {}

  /** A file that is there but unusable; {@code problem} names the file and what is wrong. */
  record Invalid(String problem) implements Reading {
    Invalid {
      Objects.requireNonNull(problem, "problem");
    }
  }

  /** A well-formed report. */
  record Reported(
      AgentResult result,
      String summary,
      String context,
      List<MemoryNote> memories,
      List<FollowUp> followUps,
      int truncatedValues) implements Reading {
    Reported {
      Objects.requireNonNull(result, "result");
      Objects.requireNonNull(summary, "summary");
      Objects.requireNonNull(context, "context");
      memories = List.copyOf(memories);
      followUps = List.copyOf(followUps);
    }

    Reported(AgentResult result, String summary, String context, List<MemoryNote> memories,
        List<FollowUp> followUps) {
      this(result, summary, context, memories, followUps, 0);
    }
  }

  private final ObjectMapper mapper = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  Reading read(Path file) {
    byte[] json;
    try (InputStream in = Files.newInputStream(file)) {
      json = in.readNBytes(MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      return new Absent();
    } catch (IOException e) {
      return new Invalid("result file " + file + " could not be read: " + e.getMessage());
    }
    if (json.length > MAX_BYTES) {
      return new Invalid("result file " + file + " is larger than the limit of " + MAX_BYTES
          + " bytes");
    }
    return parse(json, file);
  }

  /** Pure: {@code file} is only used to name the file in messages. */
  Reading parse(byte[] json, Path file) {
    // `echo > "$ORCHESTRATE_RESULT_FILE"` means "nothing to report" just as much as an empty file.
    if (isBlank(json)) {
      return new Absent();
    }
    JsonNode root;
    try {
      root = mapper.readTree(json);
    } catch (JsonProcessingException e) {
      return new Invalid(syntaxError(file, e));
    } catch (IOException e) {
      return new Invalid("result file " + file + " could not be parsed: " + e.getMessage());
    }
    if (!root.isObject()) {
      return new Invalid("result file " + file + " must hold a JSON object, got " + describe(root));
    }
    try {
      return report(root);
    } catch (BadField e) {
      return new Invalid("result file " + file + ": " + e.getMessage());
    }
  }

  private static Reported report(JsonNode root) throws BadField {
    String resultText = requiredString(root, "result", "result");
    AgentResult result = AgentResult.parse(resultText).orElseThrow(() -> new BadField(
        quote("result") + " must be one of " + resultKeys() + ", got " + quoteValue(resultText)));
    Cuts cut = new Cuts();
    String summary = cut.cap(optionalString(root.get("summary"), "summary"), TEXT_MAX_CHARS);
    String context = cut.cap(optionalString(root.get("context"), "context"), TEXT_MAX_CHARS);
    List<MemoryNote> memories = new ArrayList<>();
    List<JsonNode> memoryNodes = optionalArray(root.get("memories"), "memories");
    for (int i = 0; i < memoryNodes.size(); i++) {
      memories.add(memory(memoryNodes.get(i), "memories[" + i + "]", cut));
    }
    List<FollowUp> followUps = new ArrayList<>();
    List<JsonNode> followUpNodes = optionalArray(root.get("follow_ups"), "follow_ups");
    for (int i = 0; i < followUpNodes.size(); i++) {
      followUps.add(followUp(followUpNodes.get(i), "follow_ups[" + i + "]", cut));
    }
    return new Reported(result, summary, context, memories, followUps, cut.count());
  }

  private static MemoryNote memory(JsonNode node, String path, Cuts cut) throws BadField {
    requireObject(node, path);
    String kind = requiredString(node, "kind", path + ".kind");
    if (!MEMORY_KINDS.contains(kind)) {
      throw new BadField(quote(path + ".kind") + " must be one of "
          + String.join(", ", MEMORY_KINDS) + ", got " + quoteValue(kind));
    }
    String content = requiredNonBlankString(node, "content", path + ".content");
    List<String> tags = new ArrayList<>();
    List<JsonNode> tagNodes = optionalArray(node.get("tags"), path + ".tags");
    for (int i = 0; i < tagNodes.size(); i++) {
      JsonNode tag = tagNodes.get(i);
      if (!tag.isTextual()) {
        throw new BadField(quote(path + ".tags[" + i + "]") + " must be a string, got "
            + describe(tag));
      }
      tags.add(tag.textValue());
    }
    return new MemoryNote(kind, cut.cap(content, TEXT_MAX_CHARS), tags);
  }

  private static FollowUp followUp(JsonNode node, String path, Cuts cut) throws BadField {
    requireObject(node, path);
    String title = requiredNonBlankString(node, "title", path + ".title");
    String description = optionalString(node.get("description"), path + ".description");
    return new FollowUp(cut.cap(title, TEXT_MAX_CHARS), cut.cap(description, TEXT_MAX_CHARS));
  }

  private static String requiredNonBlankString(JsonNode parent, String field, String path)
      throws BadField {
    String text = requiredString(parent, field, path);
    if (text.isBlank()) {
      throw new BadField(quote(path) + " must not be empty");
    }
    return text;
  }

  private static String requiredString(JsonNode parent, String field, String path)
      throws BadField {
    JsonNode node = parent.get(field);
    if (node == null) {
      throw new BadField(quote(path) + " is required");
    }
    if (!node.isTextual()) {
      throw new BadField(quote(path) + " must be a string, got " + describe(node));
    }
    return node.textValue();
  }

  /** Absent and null both mean "not given": agents built from templates often emit nulls. */
  private static String optionalString(JsonNode node, String path) throws BadField {
    if (node == null || node.isNull()) {
      return "";
    }
    if (!node.isTextual()) {
      throw new BadField(quote(path) + " must be a string, got " + describe(node));
    }
    return node.textValue();
  }

  private static List<JsonNode> optionalArray(JsonNode node, String path) throws BadField {
    if (node == null || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw new BadField(quote(path) + " must be an array, got " + describe(node));
    }
    List<JsonNode> elements = new ArrayList<>(node.size());
    node.elements().forEachRemaining(elements::add);
    return elements;
  }

  private static void requireObject(JsonNode node, String path) throws BadField {
    if (!node.isObject()) {
      throw new BadField(quote(path) + " must be an object, got " + describe(node));
    }
  }

  private static String syntaxError(Path file, JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    String where = at == null || at.getLineNr() < 1
        ? ""
        : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
    return "result file " + file + " is not valid JSON" + where + ": "
        + firstLine(e.getOriginalMessage());
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "";
    }
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }

  private static boolean isBlank(byte[] json) {
    for (byte b : json) {
      if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  private static String describe(JsonNode node) {
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case NULL -> "null";
      default -> "a " + node.getNodeType().name().toLowerCase(Locale.ROOT);
    };
  }

  private static String resultKeys() {
    return Arrays.stream(AgentResult.values()).map(AgentResult::key)
        .collect(Collectors.joining(", "));
  }

  private static String quote(String path) {
    return "\"" + path + "\"";
  }

  /** JSON-quoted and shortened, so a garbage value cannot flood the failure context. */
  private static String quoteValue(String value) {
    String shown = value.length() <= MAX_QUOTED_VALUE_CHARS
        ? value
        : value.substring(0, MAX_QUOTED_VALUE_CHARS) + "…";
    return new TextNode(shown).toString();
  }

  /** A field that breaks the protocol; only ever caught inside this class. */
  private static final class BadField extends Exception {
    BadField(String message) {
      super(message, null, false, false);
    }
  }
}
