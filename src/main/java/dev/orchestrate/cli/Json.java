package dev.orchestrate.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

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
    if (at == null) {
      return null;
    }
    long seconds = at.getEpochSecond();
    if (seconds < FIRST_PLAIN_SECOND || seconds > LAST_PLAIN_SECOND) {
      return Formatter.TIMESTAMP.format(at); // a year with a sign or more than four digits
    }
    long day = Math.floorDiv(seconds, 86_400L);
    int second = (int) Math.floorMod(seconds, 86_400L);
    // Days since 1970-01-01 to the proleptic Gregorian date, in 400-year eras counted from 0000-03-01
    // (the algorithm of java.time.LocalDate.ofEpochDay, which costs the class initialisation below).
    long z = day + 719_468L;
    long era = Math.floorDiv(z, 146_097L);
    long dayOfEra = z - era * 146_097L;
    long yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long monthFromMarch = (5 * dayOfYear + 2) / 153;
    int dayOfMonth = (int) (dayOfYear - (153 * monthFromMarch + 2) / 5 + 1);
    int month = (int) (monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9);
    int year = (int) (yearOfEra + era * 400 + (month <= 2 ? 1 : 0));
    char[] text = new char[24];
    digits(text, 0, year, 4);
    text[4] = '-';
    digits(text, 5, month, 2);
    text[7] = '-';
    digits(text, 8, dayOfMonth, 2);
    text[10] = 'T';
    digits(text, 11, second / 3_600, 2);
    text[13] = ':';
    digits(text, 14, second / 60 % 60, 2);
    text[16] = ':';
    digits(text, 17, second % 60, 2);
    text[19] = '.';
    digits(text, 20, at.getNano() / 1_000_000, 3);
    text[23] = 'Z';
    return new String(text);
  }

  /** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years the pattern writes as four plain digits. */
  static final long FIRST_PLAIN_SECOND = -62_167_219_200L;
  static final long LAST_PLAIN_SECOND = 253_402_300_799L;

  private static void digits(char[] into, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      into[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  /**
   * The pattern {@link #timestamp} follows, used for the years it does not write itself. Held apart
   * because {@code DateTimeFormatter}'s class initialisation (its predefined formatters, the
   * temporal fields) took 7 % of a {@code status --json}'s main thread (docs/benchmarks.md).
   */
  static final class Formatter {
    static final DateTimeFormatter TIMESTAMP = DateTimeFormatter
        .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private Formatter() {
    }
  }

  /**
   * The document with every map whose iteration order is not fixed (a {@code Map.of} or
   * {@code Map.copyOf} from the domain iterates in a different order in every JVM) turned into a
   * key-sorted one; insertion-ordered maps keep the order they were built in. A number that is not
   * finite becomes null: JSON has no NaN or Infinity, and Jackson would write them as strings.
   * Money, every key ending in {@code _usd}, is rounded to {@value #MONEY_DECIMALS} decimals (a
   * millionth of a dollar), so that a sum of costs or a budget reads {@code 0.0248}, never
   * {@code 0.024800000000000003}, in every document.
   */
  static Object stable(Object value) {
    if (value instanceof Double d && !Double.isFinite(d) || value instanceof Float f && !Float.isFinite(f)) {
      return null;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = map instanceof LinkedHashMap || map instanceof SortedMap ? new LinkedHashMap<>()
          : new TreeMap<>();
      map.forEach((k, v) -> {
        String key = String.valueOf(k);
        copy.put(key, key.endsWith("_usd") ? money(stable(v)) : stable(v));
      });
      return copy;
    }
    if (value instanceof Collection<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(v -> copy.add(stable(v)));
      return copy;
    }
    return value;
  }

  static final int MONEY_DECIMALS = 6;

  /** A figure in US dollars rounded to {@value #MONEY_DECIMALS} decimals; anything else as it is. */
  static Object money(Object value) {
    if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
      return BigDecimal.valueOf(((Number) value).doubleValue()).setScale(MONEY_DECIMALS, java.math.RoundingMode.HALF_UP)
          .doubleValue();
    }
    return value;
  }

  static void print(PrintWriter out, Map<String, Object> doc) {
    out.println(render(stable(doc)));
    out.flush();
  }

  /**
   * The document as ObjectMapper with INDENT_OUTPUT writes it. Documents of maps, lists, strings,
   * numbers, booleans and nulls (all of today's) are written with jackson-core's generator alone:
   * jackson-databind's ObjectMapper and serializer lookup cost a short command about 20-30 ms of
   * CPU at start-up (docs/benchmarks.md). Anything else goes through the ObjectMapper.
   */
  static String render(Object doc) {
    try {
      if (plain(doc)) {
        StringWriter text = new StringWriter();
        try (JsonGenerator gen = new JsonFactory().createGenerator(text)) {
          gen.setPrettyPrinter(new DefaultPrettyPrinter());
          write(gen, doc);
        }
        return text.toString();
      }
      // Built per call: only --json pays for the mapper.
      return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc);
    } catch (IOException e) {
      throw new IllegalStateException("cannot render JSON output", e);
    }
  }

  private static boolean plain(Object value) {
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!(e.getKey() instanceof String) || !plain(e.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (value instanceof List<?> list) {
      for (Object v : list) {
        if (!plain(v)) {
          return false;
        }
      }
      return true;
    }
    return value == null || value instanceof String || value instanceof Boolean || value instanceof Integer
        || value instanceof Long || value instanceof Double || value instanceof Float || value instanceof Short
        || value instanceof Byte || value instanceof BigDecimal || value instanceof BigInteger;
  }

  static void write(JsonGenerator gen, Object value) throws IOException {
    if (value instanceof Map<?, ?> map) {
      gen.writeStartObject();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        gen.writeFieldName((String) e.getKey());
        write(gen, e.getValue());
      }
      gen.writeEndObject();
    } else if (value instanceof List<?> list) {
      gen.writeStartArray();
      for (Object v : list) {
        write(gen, v);
      }
      gen.writeEndArray();
    } else if (value == null) {
      gen.writeNull();
    } else if (value instanceof String text) {
      gen.writeString(text);
    } else if (value instanceof Boolean bool) {
      gen.writeBoolean(bool);
    } else if (value instanceof Double d) {
      gen.writeNumber(d);
    } else if (value instanceof Float f) {
      gen.writeNumber(f);
    } else if (value instanceof BigDecimal big) {
      gen.writeNumber(big);
    } else if (value instanceof BigInteger big) {
      gen.writeNumber(big);
    } else if (value instanceof Long l) {
      gen.writeNumber(l);
    } else {
      gen.writeNumber(((Number) value).intValue());
    }
  }
}
