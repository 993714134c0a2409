package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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

  @Test
  void timestamps_are_written_as_the_pattern_writes_them_in_every_year() {
    List<Instant> instants = new ArrayList<>(List.of(Instant.EPOCH, Instant.ofEpochMilli(-1), Instant.ofEpochMilli(1),
        Instant.parse("2026-11-23T17:29:03.123Z"), Instant.parse("2000-02-29T23:59:59.999Z"),
        Instant.parse("1900-03-01T00:00:00Z"), Instant.parse("2100-02-28T12:00:00.000999Z"),
        Instant.ofEpochSecond(Json.FIRST_PLAIN_SECOND), Instant.ofEpochSecond(Json.FIRST_PLAIN_SECOND - 1, 999_999_999),
        Instant.ofEpochSecond(Json.LAST_PLAIN_SECOND, 999_999_999), Instant.ofEpochSecond(Json.LAST_PLAIN_SECOND + 1),
        Instant.parse("-10000-01-01T00:00:00Z"), Instant.parse("+12345-06-07T08:09:10.011Z")));
    Random random = new Random(46);
    for (int i = 0; i < 20_000; i++) {
      long second = i % 2 == 0 ? random.nextLong() % 4_102_444_800L // around 1840-2100
          : Json.FIRST_PLAIN_SECOND
              + Math.floorMod(random.nextLong(), Json.LAST_PLAIN_SECOND - Json.FIRST_PLAIN_SECOND);
      instants.add(Instant.ofEpochSecond(second, random.nextInt(1_000_000_000)));
    }
    for (Instant at : instants) {
      assertEquals(Json.Formatter.TIMESTAMP.format(at), Json.timestamp(at), at.toString());
    }
    assertNull(Json.timestamp(null));
  }
}
