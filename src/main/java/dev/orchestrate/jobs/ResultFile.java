package dev.orchestrate.jobs;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.orchestrate.limits.Cuts;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.FollowUp;
import dev.orchestrate.outcome.AgentOutcome.MemoryNote;
import dev.orchestrate.outcome.AgentResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JSON an agent may leave at {@code ORCHESTRATE_RESULT_FILE} (docs/agents.md). Read strictly, so a
 * typo becomes a specific failure instead of a silent default, but unknown fields are ignored so
 * that agents written against a newer protocol keep working with this version. Each text field
 * (summary, context, memory content, follow-up title and description) is cut to
 * {@link AgentOutcome#TEXT_MAX_CHARS} as it is read, and the report counts how many were.
 */
final class ResultFile {

  /** A report is a few paragraphs; a file this large is a runaway agent, not a report. */
  static final int MAX_BYTES = 4 * 1024 * 1024;
  /** A regular file of MAX_BYTES reads in milliseconds; longer means it is not one any more. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(ResultFile.class);

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
    return read(file, Secrets.NONE);
  }

  /**
   * Reads the file the agent left, if it is a regular file of at most {@link #MAX_BYTES} bytes,
   * and parses it. Never follows a symbolic link and never opens a FIFO, socket or device on
   * purpose; the read itself runs on a daemon thread and is given up after {@link #READ_TIMEOUT},
   * so a file swapped for a FIFO between the check and the open cannot hang the caller. A file
   * holding a secret is rewritten with the secrets masked, so what stays on disk is masked too.
   */
  Reading read(Path file, Secrets secrets) {
    Path jobDir = file.toAbsolutePath().getParent();
    BasicFileAttributes attributes;
    try {
      if (jobDir != null && Files.isSymbolicLink(jobDir)) {
        return new Invalid("result file " + file + " was not read: its job directory was replaced by a"
            + " symbolic link");
      }
      attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return new Absent();
    } catch (IOException e) {
      return new Invalid("result file " + file + " could not be read: " + e.getMessage());
    }
    if (attributes.isSymbolicLink()) {
      return new Invalid("result file " + file + " is a symbolic link; orchestrate reads only a regular"
          + " file written in place, never through a link");
    }
    if (attributes.isDirectory()) {
      return new Invalid("result file " + file + " is a directory; write the JSON report to a regular file");
    }
    if (!attributes.isRegularFile()) {
      return new Invalid("result file " + file + " is not a regular file (a FIFO, socket or device);"
          + " write the JSON report to a regular file");
    }
    if (attributes.size() > MAX_BYTES) {
      maskStored(file, secrets, null);
      return tooLarge(file);
    }
    Loaded loaded = readBounded(file, READ_TIMEOUT);
    if (loaded.problem() != null) {
      return new Invalid(loaded.problem());
    }
    byte[] json = loaded.bytes();
    if (json.length > MAX_BYTES) {
      maskStored(file, secrets, json); // it grew while it was read
      return tooLarge(file);
    }
    maskStored(file, secrets, json);
    return parse(json, file);
  }

  private static Invalid tooLarge(Path file) {
    return new Invalid("result file " + file + " is larger than the limit of " + MAX_BYTES + " bytes");
  }

  /** What a bounded read got: the bytes (at most MAX_BYTES + 1), or why there are none. */
  record Loaded(byte[] bytes, String problem) {}

  /**
   * Reads at most {@code MAX_BYTES + 1} bytes of {@code file} without following a link, on a daemon
   * thread, waiting at most {@code timeout}: a FIFO without a writer blocks its open for good, and
   * that thread is then left to it.
   */
  static Loaded readBounded(Path file, Duration timeout) {
    FutureTask<byte[]> read = new FutureTask<>(() -> {
      try (InputStream in = Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
        return in.readNBytes(MAX_BYTES + 1);
      }
    });
    Daemon.start("result-file-reader", read);
    try {
      return new Loaded(read.get(timeout.toMillis(), TimeUnit.MILLISECONDS), null);
    } catch (TimeoutException e) {
      read.cancel(true);
      releaseFifoReader(file);
      return new Loaded(null, "result file " + file + " could not be read within " + Outcomes.describe(timeout)
          + " (is it a FIFO or a device?); no usable result file");
    } catch (InterruptedException e) {
      read.cancel(true);
      Thread.currentThread().interrupt();
      return new Loaded(null, "result file " + file + " was not read: interrupted");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof NoSuchFileException) {
        return new Loaded(new byte[0], null); // removed after the check: nothing to report
      }
      return new Loaded(null, "result file " + file + " could not be read: " + cause.getMessage());
    }
  }

  /**
   * A reader stuck opening a FIFO waits for a writer: opening it for writing (and closing at once)
   * lets that open finish at end of file, so the thread does not stay blocked for the life of the
   * run. Only for a FIFO, never creating or truncating anything; on a daemon thread of its own.
   */
  private static void releaseFifoReader(Path file) {
    Daemon.start("result-file-release", () -> {
      try {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS);
        if (attributes.isOther()) {
          Files.newOutputStream(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS).close();
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("could not release the reader of {}: {}", file, e.toString());
      }
    });
  }

  /**
   * Replaces the stored file by a masked copy when it holds a secret: written beside it, never
   * through a link, and renamed over it (which replaces a link put there since, not its target).
   * {@code read} null: the file was too large to be read whole, so its first bytes are kept.
   */
  private static void maskStored(Path file, Secrets secrets, byte[] read) {
    if (secrets.isEmpty()) {
      return;
    }
    byte[] content = read;
    if (content == null) {
      Loaded loaded = readBounded(file, READ_TIMEOUT);
      if (loaded.bytes() == null) {
        return;
      }
      content = loaded.bytes();
    }
    boolean whole = content.length <= MAX_BYTES;
    if (whole && !secrets.occursIn(content)) {
      return;
    }
    byte[] masked;
    if (whole) {
      Secrets.StreamMasker masker = secrets.streamMasker();
      byte[] head = masker.process(content, 0, content.length);
      byte[] rest = masker.finish();
      masked = Arrays.copyOf(head, head.length + rest.length);
      System.arraycopy(rest, 0, masked, head.length, rest.length);
    } else {
      // Cut at MAX_BYTES: what may be the start of a secret at the cut is dropped, not given out.
      masked = secrets.streamMasker().process(content, 0, MAX_BYTES);
    }
    Path copy = file.resolveSibling(file.getFileName() + ".masked-" + ProcessHandle.current().pid()
        + "-" + System.nanoTime());
    try {
      try (OutputStream out = Files.newOutputStream(copy, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        out.write(masked);
      }
      Files.move(copy, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      LOG.warn("could not mask the secrets in result file {}; removing it: {}", file, e.getMessage());
      deleteQuietly(copy);
      deleteQuietly(file);
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("could not remove {}: {}", file, e.getMessage());
    }
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
