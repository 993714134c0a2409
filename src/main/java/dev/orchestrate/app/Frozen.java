package dev.orchestrate.app;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Unmodifiable copies for the queries' result records that keep what {@code List.copyOf} and
 * {@code Map.copyOf} would not: a map's order (the stores return ordered maps the commands print
 * in that order) and null elements or values (a field not recorded).
 */
final class Frozen {
  private Frozen() {
  }

  static <T> List<T> list(List<T> list) {
    return Collections.unmodifiableList(new ArrayList<>(list));
  }

  static <K, V> Map<K, V> map(Map<K, V> map) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(map));
  }
}
