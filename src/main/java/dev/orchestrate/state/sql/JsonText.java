package dev.orchestrate.state.sql;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.orchestrate.state.StoreException;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON columns (string arrays and flat objects) with Jackson's streaming API: no ObjectMapper to
 * build on the start-up path of {@code status}.
 */
final class JsonText {
  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonText() {
  }

  static String array(List<String> values) {
    if (values.isEmpty()) {
      return "[]"; // most items have no dependencies and no tags: no generator for them
    }
    try (StringWriter out = new StringWriter(); JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartArray();
      for (String v : values) {
        g.writeString(v);
      }
      g.writeEndArray();
      g.flush();
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> parseArray(String json) {
    List<String> out = new ArrayList<>();
    if (json == null || json.isBlank() || json.equals("[]")) {
      return out;
    }
    try (JsonParser p = FACTORY.createParser(json)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new StoreException("expected a JSON array, got: " + json);
      }
      while (p.nextToken() == JsonToken.VALUE_STRING) {
        out.add(p.getText());
      }
      return out;
    } catch (IOException e) {
      throw new StoreException("malformed JSON array in the state database: " + json, e);
    }
  }

  static String object(Map<String, Object> values) {
    try (StringWriter out = new StringWriter(); JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartObject();
      for (Map.Entry<String, Object> e : values.entrySet()) {
        Object v = e.getValue();
        if (v == null) {
          g.writeNullField(e.getKey());
        } else if (v instanceof Number n) {
          g.writeNumberField(e.getKey(), n.longValue());
        } else if (v instanceof Boolean b) {
          g.writeBooleanField(e.getKey(), b);
        } else {
          g.writeStringField(e.getKey(), v.toString());
        }
      }
      g.writeEndObject();
      g.flush();
      return out.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A flat JSON object's scalar values as written: strings, {@code Long} or {@code Double} numbers,
   * booleans and nulls, in the object's order; nested values are skipped.
   */
  static Map<String, Object> parseScalars(String json) {
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      if (!fields(json, out, JsonText::typed)) {
        throw new StoreException("expected a JSON object, got: " + json);
      }
      return out;
    } catch (IOException e) {
      throw new StoreException("malformed JSON object in the state database: " + json, e);
    }
  }

  /** A flat JSON object's scalar values as text (numbers and booleans as written); nested values are skipped. */
  static Map<String, String> parseObject(String json) {
    Map<String, String> out = new java.util.HashMap<>();
    try {
      fields(json, out, (p, value) -> value == JsonToken.VALUE_NULL ? null : p.getText());
    } catch (IOException e) {
      // unreadable payload: the policy then sees the fields read so far and treats it by kind
    }
    return out;
  }

  @FunctionalInterface
  private interface ScalarReader<V> {
    V read(JsonParser p, JsonToken value) throws IOException;
  }

  /**
   * Puts each scalar field of the flat object {@code json} into {@code out}, read by {@code read},
   * skipping nested values; false when {@code json} is not an object (blank counts as empty).
   */
  private static <V> boolean fields(String json, Map<String, V> out, ScalarReader<V> read) throws IOException {
    if (json == null || json.isBlank()) {
      return true;
    }
    try (JsonParser p = FACTORY.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String key = p.currentName();
        JsonToken value = p.nextToken();
        if (value.isScalarValue()) {
          out.put(key, read.read(p, value));
        } else {
          p.skipChildren();
        }
      }
      return true;
    }
  }

  private static Object typed(JsonParser p, JsonToken value) throws IOException {
    return switch (value) {
      case VALUE_NUMBER_INT -> p.getLongValue();
      case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
      case VALUE_TRUE, VALUE_FALSE -> value == JsonToken.VALUE_TRUE;
      case VALUE_NULL -> null;
      default -> p.getText(); // VALUE_STRING (and an embedded object, which flat JSON text never holds)
    };
  }
}
