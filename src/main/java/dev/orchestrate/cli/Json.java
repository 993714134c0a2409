package dev.orchestrate.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.Map;

/**
 * The {@code --json} documents: one JSON object on stdout with {@code schema_version} and
 * {@code kind} first, stable snake_case keys after them.
 */
final class Json {
  static final int SCHEMA_VERSION = 1;

  private Json() {
  }

  static Map<String, Object> envelope(String kind) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("schema_version", SCHEMA_VERSION);
    doc.put("kind", kind);
    return doc;
  }

  /**
   * The one timestamp format of every {@code --json} document: ISO-8601 UTC with exactly three
   * fraction digits, {@code 2026-11-23T17:29:03.123Z}; null stays null.
   */
  static String timestamp(Instant at) {
    return at == null ? null : TIMESTAMP.format(at);
  }

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

  /**
   * The document with every map whose iteration order is not fixed (a {@code Map.of} or
   * {@code Map.copyOf} from the domain iterates in a different order in every JVM) turned into a
   * key-sorted one; insertion-ordered maps keep the order they were built in.
   */
  static Object stable(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = map instanceof LinkedHashMap || map instanceof SortedMap ? new LinkedHashMap<>()
          : new TreeMap<>();
      map.forEach((k, v) -> copy.put(String.valueOf(k), stable(v)));
      return copy;
    }
    if (value instanceof Collection<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(v -> copy.add(stable(v)));
      return copy;
    }
    return value;
  }

  static void print(PrintWriter out, Map<String, Object> doc) {
    // Built per call: only --json pays for the mapper.
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    try {
      out.println(mapper.writeValueAsString(stable(doc)));
      out.flush();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render JSON output", e);
    }
  }
}
