package dev.orchestrate.memory;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Reads {@code memory import} files: JSON Lines, one object per line
 * {@code {"id"?, "kind", "title"?, "content", "tags"?}}; blank lines are skipped. Streaming, so a
 * million lines never sit in memory at once: one line at a time, at most {@link #MAX_LINE_BYTES}.
 *
 * <p>A line without an id gets one derived from what it says ({@link #contentId}), so importing
 * the same file again, after a kill part-way or not, updates the rows the first import wrote
 * instead of adding them a second time: a re-import converges.
 *
 * <p>The file must be UTF-8; a byte sequence that is not is named by line and byte column.
 */
public final class JsonLinesImport {
  private static final JsonFactory FACTORY = new JsonFactory();
  /** The longest line read: far beyond a memory's capped content, small enough to hold. */
  public static final int MAX_LINE_BYTES = 4 * 1024 * 1024;

  private JsonLinesImport() {
  }

  /** Checks every line; returns how many records there are, or throws naming the first bad line. */
  public static long validate(Path file) {
    long count = 0;
    try (Records records = new Records(file, input(file), false)) {
      while (records.hasNext()) {
        records.next();
        count++;
      }
    }
    return count;
  }

  /** The records of {@code file}, in order; close it when done. */
  public static Records open(Path file) {
    return new Records(file, input(file), true);
  }

  private static InputStream input(Path file) {
    try {
      return Files.newInputStream(file);
    } catch (IOException e) {
      throw new MemoryException("cannot read " + file + ": " + e.getMessage());
    }
  }

  /**
   * The id of a memory imported without one: {@code i-} and 20 hex digits of the SHA-256 of its
   * kind, title, content and tags. Two lines saying the same thing are one memory.
   */
  static String contentId(NewMemory m) {
    MessageDigest sha = sha256();
    List<String> parts = new ArrayList<>(List.of(m.kind().key(), m.title(), m.content()));
    parts.addAll(m.tags());
    for (String part : parts) {
      sha.update(part.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0xff); // in no UTF-8 text: parts cannot run into each other
    }
    return "i-" + HexFormat.of().formatHex(sha.digest(), 0, 10);
  }

  /**
   * A fresh SHA-256, cloned from one looked up once: {@code getInstance} searches the security
   * providers every time (a million lines: half a second of CPU).
   */
  private static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256(); // a provider whose digest cannot be cloned
    }
  }

  private static final MessageDigest SHA256 = newSha256();

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  /** Parses one line (1-based {@code lineNumber} for messages). */
  static NewMemory parse(String line, Path file, long lineNumber) {
    return parse(line, file, lineNumber, true);
  }

  /**
   * Parses one line; without {@code deriveId} a line without an id is returned without one (the
   * check of {@link #validate} needs no id, and the hash was a third of its time).
   */
  private static NewMemory parse(String line, Path file, long lineNumber, boolean deriveId) {
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
        String field = p.currentName();
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
    NewMemory memory = new NewMemory(id, parsed, title, content, tags, null).capped();
    return id != null || !deriveId ? memory
        : new NewMemory(contentId(memory), memory.kind(), memory.title(), memory.content(),
            memory.tags(), null, memory.truncated());
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
    private final InputStream in;
    private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private byte[] line = new byte[8192];
    private final byte[] buffer = new byte[64 * 1024];
    private int position;
    private int limit;
    private long lineNumber;
    private NewMemory next;
    private final boolean deriveIds;

    private Records(Path file, InputStream in, boolean deriveIds) {
      this.file = file;
      this.in = in;
      this.deriveIds = deriveIds;
    }

    @Override
    public boolean hasNext() {
      if (next != null) {
        return true;
      }
      try {
        int length;
        while ((length = readLine()) >= 0) {
          lineNumber++;
          String text = decode(length);
          if (!text.isBlank()) {
            next = parse(text, file, lineNumber, deriveIds);
            return true;
          }
        }
        return false;
      } catch (IOException e) {
        throw new MemoryException("cannot read " + file + ": " + e.getMessage());
      }
    }

    /** Reads the next line's bytes (without its newline) into {@link #line}; -1 at the end of the file. */
    private int readLine() throws IOException {
      int length = 0;
      while (true) {
        if (position == limit) {
          limit = Math.max(0, in.read(buffer));
          position = 0;
          if (limit == 0) {
            return length == 0 ? -1 : length;
          }
        }
        int end = position;
        while (end < limit && buffer[end] != '\n') {
          end++;
        }
        int n = end - position;
        if (length + n > line.length) {
          if (length + n > MAX_LINE_BYTES) {
            throw new MemoryException(file + ":" + (lineNumber + 1) + ": the line is longer than "
                + MAX_LINE_BYTES / (1024 * 1024) + " MiB (one memory per line; its content is capped at "
                + NewMemory.CONTENT_CHARS + " characters anyway)");
          }
          line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, Math.max(length + n, line.length * 2)));
        }
        System.arraycopy(buffer, position, line, length, n);
        length += n;
        position = end;
        if (end < limit) {
          position++; // the newline
          return length;
        }
      }
    }

    /** The line as text; a byte sequence that is not UTF-8 is an error naming its line and byte column. */
    private String decode(int length) {
      int start = lineNumber == 1 && length >= 3 && (line[0] & 0xff) == 0xEF && (line[1] & 0xff) == 0xBB
          && (line[2] & 0xff) == 0xBF ? 3 : 0; // a byte order mark some editors write
      ByteBuffer bytes = ByteBuffer.wrap(line, start, length - start);
      CharBuffer chars = CharBuffer.allocate(length - start);
      decoder.reset();
      CoderResult result = decoder.decode(bytes, chars, true);
      if (!result.isError()) {
        result = decoder.flush(chars);
      }
      if (result.isError()) {
        throw new MemoryException(file + ":" + lineNumber + ":" + (bytes.position() + 1)
            + ": not valid UTF-8 (byte 0x" + HexFormat.of().toHexDigits(line[bytes.position()])
            + "); save the file as UTF-8");
      }
      return chars.flip().toString();
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
        in.close();
      } catch (IOException ignored) {
        // read-only; nothing to lose
      }
    }
  }
}
