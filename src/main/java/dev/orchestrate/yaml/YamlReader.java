package dev.orchestrate.yaml;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.orchestrate.limits.Quote;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;

/**
 * Reads one YAML file into located {@link YamlNode}s with Jackson's streaming parser. Problems
 * (unreadable file, empty file, syntax error, duplicate key, alias) go to {@link Problems}; a
 * syntax error yields no tree at all, so callers never validate half a document.
 */
public final class YamlReader {
  /**
   * snakeyaml refuses documents over 3 MB by default; files are capped by their size in bytes
   * before parsing ({@link #MAX_BACKLOG_BYTES}), so snakeyaml's own cap is set above any of them.
   */
  public static final int MAX_CODE_POINTS = 128 * 1024 * 1024;

  private final JsonParser parser;
  private final Problems problems;
  private final int maxValues;
  private final String valuesAdvice;
  private int depth;
  private int values;
  /** Mapping keys, one instance per name (a backlog repeats "id" and "title" for every item). */
  private final Map<String, String> keyNames = new HashMap<>();
  /** The list read element by element, or null. */
  private final Streamed streamed;

  private YamlReader(JsonParser parser, Problems problems, int maxValues, String valuesAdvice, Streamed streamed) {
    this.parser = parser;
    this.problems = problems;
    this.maxValues = maxValues;
    this.valuesAdvice = valuesAdvice;
    this.streamed = streamed;
  }

  /**
   * A list under a key of the document's top-level map whose elements are handed to {@code each}
   * one at a time, as they are read, instead of being kept in the tree: a backlog's items, so that
   * its nodes are never all in memory at once (a million items' nodes are hundreds of megabytes).
   * The tree then holds that key with an empty list. Only the key's first occurrence streams.
   */
  public record Streamed(String key, java.util.function.Consumer<YamlNode> each) {}

  /**
   * The largest backlog file read by default, 16 MiB: ten times a backlog of 10,000 items with a
   * paragraph of description each, and small enough that reading, checking and holding it (its
   * bytes and their decoding, about 4 bytes a byte for a moment, then the text, the nodes of the
   * value being read and what the caller keeps) fits a default heap with room for the run. The
   * config's {@code backlog.max_bytes} sets another (docs/configuration.md).
   */
  public static final long MAX_BACKLOG_BYTES = 16L << 20;
  /**
   * The largest config file read, 1 MiB: a config is settings plus inline phase instructions; an
   * instruction longer than a few pages belongs in a workflow file.
   */
  public static final long MAX_CONFIG_BYTES = 1L << 20;
  /**
   * How deep maps and lists may nest. Backlogs and configs need 5 levels; anything deeper is a
   * mistake or an attack, and stopping early keeps the parser's work and stack small.
   */
  public static final int MAX_DEPTH = 32;
  /**
   * How many values (maps, lists and scalars) a file of up to 16 MiB may hold: about 100,000 items
   * with every field. Each costs around a hundred bytes as a node, so a file of millions of tiny
   * values (a 16 MiB list of "- x") would take gigabytes of heap. A larger cap on the file's bytes
   * raises it in proportion ({@link #maxValues}).
   */
  public static final int MAX_VALUES = 1_000_000;
  /** The file bytes each value allowed stands for, above {@link #MAX_VALUES}. */
  static final long BYTES_PER_VALUE = MAX_BACKLOG_BYTES / MAX_VALUES;

  /**
   * The values a file of at most {@code maxBytes} may hold: {@link #MAX_VALUES}, or one per
   * {@link #BYTES_PER_VALUE} bytes for a larger cap (64 MiB: 4 million, 1,000,000 two-field items).
   */
  public static int maxValues(long maxBytes) {
    return maxBytes <= MAX_BACKLOG_BYTES ? MAX_VALUES
        : (int) Math.min(Integer.MAX_VALUE, Math.max(MAX_VALUES, maxBytes / BYTES_PER_VALUE));
  }
  /** How many distinct key names are shared (a backlog or a config uses a few dozen). */
  private static final int MAX_KEY_NAMES = 256;
  /** Integers longer than this are not converted (BigInteger parsing is quadratic in length). */
  private static final int MAX_INTEGER_DIGITS = 40;

  /**
   * The document's root node, or empty when the file could not be read or parsed.
   *
   * @param maxBytes the size over which the file is refused unread
   * @param advice   what to do about a file over the limit, e.g. "split the backlog"
   */
  public static Optional<YamlNode> read(Path file, Problems problems, long maxBytes, String advice) {
    return read(file, problems, maxBytes, advice, "split it");
  }

  /**
   * The document's root node, or empty when the file could not be read or parsed, holding at most
   * {@link #maxValues}{@code (maxBytes)} values.
   *
   * @param valuesAdvice what to do about a file of too many values
   */
  public static Optional<YamlNode> read(Path file, Problems problems, long maxBytes, String advice,
      String valuesAdvice) {
    return read(file, problems, maxBytes, advice, valuesAdvice, null);
  }

  /**
   * {@link #read(Path, Problems, long, String, String)} with the list under {@code streamed}'s key
   * handed over element by element ({@link Streamed}); null streams nothing. Elements handed over
   * before a syntax error further on are not taken back: the caller drops what it made of them
   * when this returns empty.
   */
  public static Optional<YamlNode> read(Path file, Problems problems, long maxBytes, String advice,
      String valuesAdvice, Streamed streamed) {
    Optional<String> text = text(file, problems, maxBytes, advice);
    if (text.isEmpty() || !allowedCharacters(text.get(), problems)) {
      return Optional.empty();
    }
    try (JsonParser parser = new Factory().parser(text.get())) {
      return new YamlReader(parser, problems, maxValues(maxBytes), valuesAdvice, streamed).document();
    } catch (Abandoned e) {
      return Optional.empty();
    } catch (JsonProcessingException e) {
      syntaxError(e, problems);
    } catch (IOException e) {
      problems.inFile("cannot read file: " + firstLine(e.getMessage()));
    }
    return Optional.empty();
  }

  /** The file's text, decoded strictly as UTF-8 without a byte order mark, or empty after a problem. */
  private static Optional<String> text(Path file, Problems problems, long maxBytes, String advice) {
    if (Files.isDirectory(file)) {
      problems.inFile("is a directory, not a file");
      return Optional.empty();
    }
    if (Files.exists(file) && !Files.isRegularFile(file)) {
      problems.inFile("is not a regular file (a pipe, a device or a socket); name a YAML file");
      return Optional.empty();
    }
    byte[] bytes;
    try {
      long size = Files.size(file);
      if (size > maxBytes) {
        problems.inFile(tooLarge(size + " bytes", maxBytes, advice));
        return Optional.empty();
      }
      try (InputStream in = Files.newInputStream(file)) {
        bytes = in.readNBytes((int) maxBytes + 1);
      }
    } catch (NoSuchFileException e) {
      problems.inFile("file not found");
      return Optional.empty();
    } catch (AccessDeniedException e) {
      problems.inFile("cannot read file: permission denied");
      return Optional.empty();
    } catch (IOException e) {
      problems.inFile("cannot read file: " + firstLine(e.getMessage()));
      return Optional.empty();
    }
    if (bytes.length > maxBytes) {
      problems.inFile(tooLarge("more than " + maxBytes + " bytes", maxBytes, advice));
      return Optional.empty();
    }
    return decode(bytes, problems);
  }

  private static String tooLarge(String size, long maxBytes, String advice) {
    return "file is " + size + ", over the limit of " + Sizes.format(maxBytes) + " (" + maxBytes + " bytes); "
        + advice;
  }

  private static Optional<String> decode(byte[] bytes, Problems problems) {
    if (bytes.length >= 2 && ((bytes[0] == (byte) 0xFF && bytes[1] == (byte) 0xFE)
        || (bytes[0] == (byte) 0xFE && bytes[1] == (byte) 0xFF))) {
      problems.inFile("file is UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8");
      return Optional.empty();
    }
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      int at = in.position();
      int lineStart = at;
      int line = 1;
      for (int i = 0; i < at; i++) {
        if (bytes[i] == '\n') {
          line++;
          lineStart = i + 1;
        }
      }
      String before = new String(bytes, lineStart, at - lineStart, StandardCharsets.UTF_8);
      int column = before.codePointCount(0, before.length()) + 1;
      problems.add(line, column, String.format("not valid UTF-8 (byte 0x%02X); save the file as UTF-8 text",
          bytes[at] & 0xFF));
      return Optional.empty();
    }
    out.flip();
    String text = out.toString();
    return Optional.of(text.startsWith("\uFEFF") ? text.substring(1) : text);
  }

  /**
   * Refuses, at its line and column, the first character YAML does not allow in a document (NUL
   * and the other control characters except tab and line breaks): binary data, mostly.
   */
  private static boolean allowedCharacters(String text, Problems problems) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < text.length();) {
      int c = text.codePointAt(i);
      if (!StreamReader.isPrintable(c)) {
        problems.add(line, column, String.format("character U+%04X is not allowed in YAML%s; remove it", c,
            c < 0x20 ? " (a control character: is this a binary file?)" : ""));
        return false;
      }
      if (c == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
      i += Character.charCount(c);
    }
    return true;
  }

  private static LoaderOptions loaderOptions() {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(MAX_CODE_POINTS);
    return options;
  }

  /**
   * A YAML factory whose parsers read a text in memory through {@link WholeTextStreamReader}, in
   * time linear in its length. Built per call, never in a static initialiser: commands that read
   * no YAML pay nothing.
   */
  private static final class Factory extends YAMLFactory {
    private static final long serialVersionUID = 1L;

    Factory() {
      super(YAMLFactory.builder()
          .loaderOptions(loaderOptions())
          .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
          // The file is capped and the depth checked here; Jackson's own limits (50,000-character
          // keys, 1,000 levels) would fail later and without a place in the file.
          .streamReadConstraints(StreamReadConstraints.builder()
              .maxStringLength(Integer.MAX_VALUE)
              .maxNameLength(Integer.MAX_VALUE)
              .maxNestingDepth(MAX_DEPTH + 8)
              .build()));
    }

    JsonParser parser(String text) throws IOException {
      IOContext context = _createContext(_createContentReference(text), true);
      return new YAMLParser(context, _parserFeatures, _yamlParserFeatures, _objectCodec, new StringReader(""),
          new ParserImpl(new WholeTextStreamReader(text), _loaderOptions)) {};
    }
  }

  /** Ends the read of a document nested too deep or too large, after its problem is reported. */
  private static final class Abandoned extends IOException {
    private static final long serialVersionUID = 1L;

    Abandoned() {
      super("abandoned");
    }
  }

  private Optional<YamlNode> document() throws IOException {
    JsonToken first = parser.nextToken();
    if (first == null) {
      problems.inFile("file is empty");
      return Optional.empty();
    }
    YamlNode root = node(first);
    JsonToken extra = parser.nextToken();
    if (extra != null) {
      JsonLocation at = parser.currentTokenLocation();
      problems.add(at.getLineNr(), at.getColumnNr(),
          "more than one YAML document in the file ('---'); orchestrate reads exactly one");
      return Optional.empty();
    }
    if (root instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      problems.inFile("file is empty");
      return Optional.empty();
    }
    return Optional.of(root);
  }

  private YamlNode node(JsonToken token) throws IOException {
    return node(token, null);
  }

  /**
   * The value that starts with {@code token}; a list's elements go to {@code elements} instead of
   * into its node when that is not null (the streamed list: its node is then empty).
   */
  private YamlNode node(JsonToken token, java.util.function.Consumer<YamlNode> elements) throws IOException {
    JsonLocation at = parser.currentTokenLocation();
    int line = at.getLineNr();
    int column = at.getColumnNr();
    counted(line, column);
    if (token != JsonToken.START_OBJECT && token != JsonToken.START_ARRAY) {
      return scalar(token, line, column);
    }
    deeper(line, column);
    YamlNode node;
    if (token == JsonToken.START_OBJECT) {
      node = mapping(line, column);
    } else {
      List<YamlNode> items = new ArrayList<>();
      java.util.function.Consumer<YamlNode> each = elements != null ? elements : items::add;
      for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
        each.accept(node(t));
      }
      node = new YamlNode.Sequence(line, column, items);
    }
    depth--;
    return node;
  }

  /** Counts one more value, refusing one over the file's cap. */
  private void counted(int line, int column) throws IOException {
    if (++values > maxValues) {
      problems.add(line, column, "more than " + maxValues + " values (maps, lists and scalars) in the file; "
          + valuesAdvice);
      throw new Abandoned();
    }
  }

  /** Goes one level deeper, refusing a level over {@link #MAX_DEPTH}. */
  private void deeper(int line, int column) throws IOException {
    if (++depth > MAX_DEPTH) {
      problems.add(line, column, "maps and lists nested more than " + MAX_DEPTH
          + " levels deep; orchestrate files need a handful (check the indentation and the brackets)");
      throw new Abandoned();
    }
  }

  private YamlNode.Mapping mapping(int line, int column) throws IOException {
    List<YamlNode.Entry> entries = new ArrayList<>();
    Map<String, Integer> firstLine = new HashMap<>();
    for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
      JsonLocation at = parser.currentTokenLocation();
      String name = parser.currentName();
      String known = keyNames.size() < MAX_KEY_NAMES ? keyNames.putIfAbsent(name, name) : keyNames.get(name);
      YamlNode.Key key = new YamlNode.Key(known == null ? name : known, at.getLineNr(), at.getColumnNr());
      boolean streams = streamed != null && depth == 1 && key.name().equals(streamed.key())
          && !firstLine.containsKey(key.name());
      YamlNode value = node(parser.nextToken(), streams ? streamed.each() : null);
      Integer previous = firstLine.putIfAbsent(key.name(), key.line());
      if (previous != null) {
        problems.at(key, "duplicate key " + Quote.value(key.name()) + " (first defined at line " + previous + ")");
      } else {
        entries.add(new YamlNode.Entry(key, value));
      }
    }
    return new YamlNode.Mapping(line, column, entries);
  }

  private YamlNode.Scalar scalar(JsonToken token, int line, int column) throws IOException {
    String text = parser.getText();
    if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
      problems.add(line, column, "YAML aliases are not supported (*" + Quote.escaped(text) + "); write the value out");
      // A text stands in for the value, so that a title written as an alias is not also missing.
      return new YamlNode.Scalar(line, column, YamlNode.Scalar.Kind.STRING, "*" + text, null);
    }
    YamlNode.Scalar.Kind kind = switch (token) {
      case VALUE_NUMBER_INT -> YamlNode.Scalar.Kind.INTEGER;
      case VALUE_NUMBER_FLOAT -> YamlNode.Scalar.Kind.FLOAT;
      case VALUE_TRUE, VALUE_FALSE -> YamlNode.Scalar.Kind.BOOLEAN;
      case VALUE_NULL -> YamlNode.Scalar.Kind.NULL;
      default -> YamlNode.Scalar.Kind.STRING;
    };
    return new YamlNode.Scalar(line, column, kind, kind == YamlNode.Scalar.Kind.NULL ? "" : text,
        kind == YamlNode.Scalar.Kind.INTEGER ? integer(text) : null);
  }

  /**
   * The integer's value; one too long to be any setting reads as a huge number of its sign, which
   * every range refuses, without parsing thousands of digits.
   */
  private BigInteger integer(String text) throws IOException {
    if (text.length() <= MAX_INTEGER_DIGITS) {
      return parser.getBigIntegerValue();
    }
    BigInteger huge = BigInteger.TEN.pow(MAX_INTEGER_DIGITS);
    return text.startsWith("-") ? huge.negate() : huge;
  }

  /** Turns a parser failure into one short, located problem: no stack trace, no snippet. */
  private static void syntaxError(JsonProcessingException e, Problems problems) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof MarkedYAMLException marked && marked.getProblemMark() != null) {
        Mark mark = marked.getProblemMark();
        problems.add(mark.getLine() + 1, mark.getColumn() + 1, "invalid YAML: " + describe(marked));
        return;
      }
      if (t instanceof CharConversionException || t instanceof CharacterCodingException) {
        problems.inFile("file is not valid UTF-8 text");
        return;
      }
    }
    String message = firstLine(e.getOriginalMessage());
    if (message.startsWith("Expected a field name")) {
      message = "mapping keys must be plain values, not lists or maps";
    }
    JsonLocation at = e.getLocation();
    problems.add(at == null ? 0 : at.getLineNr(), at == null ? 0 : at.getColumnNr(),
        "invalid YAML: " + message);
  }

  private static String describe(MarkedYAMLException e) {
    String problem = firstLine(e.getProblem());
    // snakeyaml says "(Do not use @ for indentation)" for any character that cannot start a token.
    if (!problem.contains("(TAB)")) {
      problem = problem.replaceFirst("\\.? ?\\(Do not use .* for indentation\\)$", "");
    }
    StringBuilder text = new StringBuilder(problem);
    Mark contextMark = e.getContextMark();
    if (e.getContext() != null && contextMark != null
        && contextMark.getLine() != e.getProblemMark().getLine()) {
      text.append(" (").append(e.getContext()).append(" that starts at line ")
          .append(contextMark.getLine() + 1).append(')');
    }
    if (problem.contains("<block end>") || problem.startsWith("mapping values are not allowed")) {
      text.append("; check the indentation");
    }
    return text.toString();
  }

  private static String firstLine(String message) {
    if (message == null || message.isBlank()) {
      return "unknown error";
    }
    String trimmed = message.strip();
    int newline = trimmed.indexOf('\n');
    return newline < 0 ? trimmed : trimmed.substring(0, newline).strip();
  }

}
