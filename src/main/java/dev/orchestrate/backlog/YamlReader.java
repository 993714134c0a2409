package dev.orchestrate.backlog;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
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

/**
 * Reads one YAML file into located {@link YamlNode}s with Jackson's streaming parser. Problems
 * (unreadable file, empty file, syntax error, duplicate key, alias) go to {@link Problems}; a
 * syntax error yields no tree at all, so callers never validate half a document.
 */
final class YamlReader {
  /**
   * snakeyaml refuses documents over 3 MB by default; a backlog of thousands of items with
   * descriptions can exceed that, so the cap is raised to a size no hand-written file reaches.
   */
  static final int MAX_CODE_POINTS = 128 * 1024 * 1024;

  private final JsonParser parser;
  private final Problems problems;

  private YamlReader(JsonParser parser, Problems problems) {
    this.parser = parser;
    this.problems = problems;
  }

  /** The document's root node, or empty when the file could not be read or parsed. */
  static Optional<YamlNode> read(Path file, Problems problems) {
    if (Files.isDirectory(file)) {
      problems.inFile("is a directory, not a file");
      return Optional.empty();
    }
    // Built per call, never in a static initialiser: commands that read no YAML pay nothing.
    YAMLFactory factory = YAMLFactory.builder()
        .loaderOptions(loaderOptions())
        .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
        .build();
    try (InputStream in = Files.newInputStream(file);
         JsonParser parser = factory.createParser(in)) {
      return new YamlReader(parser, problems).document();
    } catch (NoSuchFileException e) {
      problems.inFile("file not found");
    } catch (AccessDeniedException e) {
      problems.inFile("cannot read file: permission denied");
    } catch (JsonProcessingException e) {
      syntaxError(e, problems);
    } catch (IOException e) {
      problems.inFile("cannot read file: " + firstLine(e.getMessage()));
    }
    return Optional.empty();
  }

  private static LoaderOptions loaderOptions() {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(MAX_CODE_POINTS);
    return options;
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
    JsonLocation at = parser.currentTokenLocation();
    int line = at.getLineNr();
    int column = at.getColumnNr();
    if (token == JsonToken.START_OBJECT) {
      return mapping(line, column);
    }
    if (token == JsonToken.START_ARRAY) {
      List<YamlNode> items = new ArrayList<>();
      for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
        items.add(node(t));
      }
      return new YamlNode.Sequence(line, column, items);
    }
    return scalar(token, line, column);
  }

  private YamlNode.Mapping mapping(int line, int column) throws IOException {
    List<YamlNode.Entry> entries = new ArrayList<>();
    Map<String, Integer> firstLine = new HashMap<>();
    for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
      JsonLocation at = parser.currentTokenLocation();
      YamlNode.Key key = new YamlNode.Key(parser.currentName(), at.getLineNr(), at.getColumnNr());
      YamlNode value = node(parser.nextToken());
      Integer previous = firstLine.putIfAbsent(key.name(), key.line());
      if (previous != null) {
        problems.at(key, "duplicate key '" + key.name() + "' (first defined at line " + previous + ")");
      } else {
        entries.add(new YamlNode.Entry(key, value));
      }
    }
    return new YamlNode.Mapping(line, column, entries);
  }

  private YamlNode.Scalar scalar(JsonToken token, int line, int column) throws IOException {
    String text = parser.getText();
    if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
      problems.add(line, column, "YAML aliases are not supported (*" + text + "); write the value out");
      return new YamlNode.Scalar(line, column, YamlNode.Scalar.Kind.NULL, "", null);
    }
    YamlNode.Scalar.Kind kind = switch (token) {
      case VALUE_NUMBER_INT -> YamlNode.Scalar.Kind.INTEGER;
      case VALUE_NUMBER_FLOAT -> YamlNode.Scalar.Kind.FLOAT;
      case VALUE_TRUE, VALUE_FALSE -> YamlNode.Scalar.Kind.BOOLEAN;
      case VALUE_NULL -> YamlNode.Scalar.Kind.NULL;
      default -> YamlNode.Scalar.Kind.STRING;
    };
    return new YamlNode.Scalar(line, column, kind, kind == YamlNode.Scalar.Kind.NULL ? "" : text,
        kind == YamlNode.Scalar.Kind.INTEGER ? parser.getBigIntegerValue() : null);
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
