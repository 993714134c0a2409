package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The --json documents written without databind are byte for byte what the ObjectMapper writes. */
class JsonRenderTest {
  record Point(int x, String y) {
  }

  private static String mapper(Object doc) throws Exception {
    return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc);
  }

  @Test
  void a_document_of_plain_values_renders_as_the_object_mapper_renders_it() throws Exception {
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("empty_list", List.of());
    inner.put("empty_map", Map.of());
    inner.put("text", "quote \" backslash \\ tab \t newline \n bell \u0007 \u00e9 \u2713 \uD83D\uDE00");
    Map<String, Object> doc = Json.envelope("test");
    doc.put("int", 42);
    doc.put("long", 9_007_199_254_740_993L);
    doc.put("negative", -7);
    doc.put("double", 0.1);
    doc.put("whole_double", 3.0);
    doc.put("float", 1.5f);
    doc.put("short", (short) 3);
    doc.put("byte", (byte) 4);
    doc.put("big_decimal", new BigDecimal("12345678901234567890.000"));
    doc.put("big_integer", new BigInteger("123456789012345678901234567890"));
    doc.put("yes", true);
    doc.put("no", false);
    doc.put("nothing", null);
    doc.put("list", new ArrayList<>(Arrays.asList(1, "two", null, List.of(3, List.of()), inner)));
    doc.put("nested", inner);
    Object stable = Json.stable(doc);
    assertEquals(mapper(stable), Json.render(stable));
  }

  @Test
  void a_document_with_any_other_value_still_goes_through_the_object_mapper() throws Exception {
    Map<String, Object> doc = Json.envelope("test");
    doc.put("point", new Point(1, "y"));
    doc.put("kind", java.time.DayOfWeek.MONDAY);
    assertEquals(mapper(doc), Json.render(doc));
  }

  @Test
  void a_number_that_is_not_finite_is_null_never_the_string_nan_or_infinity() throws Exception {
    Map<String, Object> doc = Json.envelope("test");
    doc.put("nan", Double.NaN);
    doc.put("infinity", Double.POSITIVE_INFINITY);
    doc.put("minus_infinity", Float.NEGATIVE_INFINITY);
    doc.put("list", List.of(Double.NaN, 1.5));
    doc.put("point", new Point(1, "y")); // the ObjectMapper's path too
    String out = Json.render(Json.stable(doc));
    assertFalse(out.contains("NaN") || out.contains("Infinity"), out);
    Map<?, ?> read = new ObjectMapper().readValue(out, Map.class);
    assertNull(read.get("nan"));
    assertNull(read.get("infinity"));
    assertNull(read.get("minus_infinity"));
    assertEquals(Arrays.asList(null, 1.5), read.get("list"));
  }
}
