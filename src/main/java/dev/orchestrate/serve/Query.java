package dev.orchestrate.serve;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** A request's query parameters (the first of each name), decoded; blank values count as absent. */
record Query(Map<String, String> params) {
  Query {
    params = Map.copyOf(params);
  }

  static Query parse(String raw) {
    Map<String, String> params = new LinkedHashMap<>();
    if (raw != null && !raw.isEmpty()) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        String name = decode(eq < 0 ? pair : pair.substring(0, eq));
        String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
        params.putIfAbsent(name, value);
      }
    }
    return new Query(params);
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }

  /** These parameters with {@code name} set to {@code value}, whatever it was. */
  Query withParam(String name, String value) {
    Map<String, String> params = new LinkedHashMap<>(this.params);
    params.put(name, value);
    return new Query(params);
  }

  /** The value, stripped, or null when absent or blank. */
  String get(String name) {
    String v = params.get(name);
    return v == null || v.isBlank() ? null : v.strip();
  }

  /** A non-negative number, {@code fallback} when absent or not a number. */
  long number(String name, long fallback) {
    String v = get(name);
    if (v == null) {
      return fallback;
    }
    try {
      long n = Long.parseLong(v);
      return n < 0 ? fallback : n;
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  /**
   * {@code raw} as {@code ?…} (or empty) without the pairs whose name decodes to {@code name}, so
   * that {@code %74oken=} leaves as {@code token=} does; the other pairs are kept as they came.
   */
  static String without(String raw, String name) {
    StringBuilder rest = new StringBuilder();
    if (raw != null && !raw.isEmpty()) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        if (!decode(eq < 0 ? pair : pair.substring(0, eq)).equals(name)) {
          rest.append(rest.length() == 0 ? "?" : "&").append(pair);
        }
      }
    }
    return rest.toString();
  }

  static String encode(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
