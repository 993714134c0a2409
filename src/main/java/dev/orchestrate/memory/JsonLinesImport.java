package dev.orchestrate.memory;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Reads {@code memory import} files: JSON Lines, one object per line
 * {@code {"id"?, "kind", "title"?, "content", "tags"?}}; blank lines are skipped. Streaming, so a
 * million lines never sit in memory at once.
 */
public final class JsonLinesImport {
  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonLinesImport() {
  }

  /** Checks every line; returns how many records there are, or throws naming the first bad line. */
  public static long validate(Path file) {
    long count = 0;
    try (Records records = open(file)) {
      while (records.hasNext()) {
        records.next();
        count++;
      }
    }
    return count;
  }

  /** The records of {@code file}, in order; close it when done. */
  public static Records open(Path file) {
    try {
      return new Records(file, Files.newBufferedReader(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new MemoryException("cannot read " + file + ": " + e.getMessage());
    }
  }

  /** Parses one line (1-based {@code lineNumber} for messages). */
  static NewMemory parse(String line, Path file, long lineNumber) {
    String where = file + ":" + lineNumber + ": ";
    String id = null;
    String kind = null;
    String title = null;
    String content = null;
    List<String> tags = List.of();
    try (JsonParser p = FACTORY.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new MemoryException(where + "expected a JSON object like {\"kind\": \"semantic\", \"content\": \"...\"}");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.getCurrentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "id" -> id = text(p, value, where, field);
          case "kind" -> kind = text(p, value, where, field);
          case "title" -> title = text(p, value, where, field);
          case "content" -> content = text(p, value, where, field);
          case "tags" -> tags = tags(p, value, where);
          default -> throw new MemoryException(where + "unknown field '" + field
              + "' (fields: id, kind, title, content, tags)");
        }
      }
      if (p.nextToken() != null) {
        throw new MemoryException(where + "more than one JSON value on the line");
      }
    } catch (JsonProcessingException e) {
      throw new MemoryException(where + "not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (kind == null) {
      throw new MemoryException(where + "missing \"kind\" (semantic, procedural or episodic)");
    }
    if (content == null || content.isBlank()) {
      throw new MemoryException(where + "missing or empty \"content\"");
    }
    if (id != null && id.isBlank()) {
      throw new MemoryException(where + "\"id\" is empty; leave it out to have one generated");
    }
    MemoryKind parsed;
    try {
      parsed = MemoryKind.fromKey(kind);
    } catch (IllegalArgumentException e) {
      throw new MemoryException(where + e.getMessage());
    }
    return new NewMemory(id, parsed, title, content, tags, null).capped();
  }

  private static String text(JsonParser p, JsonToken value, String where, String field) throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return null;
    }
    if (value != JsonToken.VALUE_STRING) {
      throw new MemoryException(where + "\"" + field + "\" must be a string");
    }
    return p.getText();
  }

  private static List<String> tags(JsonParser p, JsonToken value, String where) throws IOException {
    if (value == JsonToken.VALUE_NULL) {
      return List.of();
    }
    if (value != JsonToken.START_ARRAY) {
      throw new MemoryException(where + "\"tags\" must be a list of strings");
    }
    List<String> tags = new ArrayList<>();
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (t != JsonToken.VALUE_STRING || p.getText().isBlank()) {
        throw new MemoryException(where + "\"tags\" must be a list of non-empty strings");
      }
      tags.add(p.getText());
    }
    return tags;
  }

  /** An iterator over the records of a file that must be closed. */
  public static final class Records implements Iterator<NewMemory>, AutoCloseable {
    private final Path file;
    private final BufferedReader reader;
    private long lineNumber;
    private NewMemory next;

    private Records(Path file, BufferedReader reader) {
      this.file = file;
      this.reader = reader;
    }

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      try {
        String line;
        while ((line = reader.readLine()) != null) {
          lineNumber++;
          if (!line.isBlank()) {
            next = parse(line, file, lineNumber);
            return true;
          }
        }
        return false;
      } catch (IOException e) {
        throw new MemoryException("cannot read " + file + ": " + e.getMessage());
      }
    }

    @Override
    public NewMemory next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      NewMemory out = next;
      next = null;
      return out;
    }

    @Override
    public void close() {
      try {
        reader.close();
      } catch (IOException ignored) {
        // read-only; nothing to lose
      }
    }
  }
}
