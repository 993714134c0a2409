package dev.orchestrate.yaml;

import java.util.List;

/** The one rule for ids and names (items, pipelines, phases) and how lists of choices read. */
public final class Names {
  public static final String RULE = "use only letters, digits, '.', '_' and '-'";
  /** The longest pipeline or phase name: a phase's name is part of its job directories' names. */
  public static final int MAX_NAME_CHARS = 64;
  public static final String NAME_RULE = RULE + ", at most " + MAX_NAME_CHARS + " characters";
  private Names() {}

  /**
   * Letters, digits, {@code .}, {@code _} and {@code -} (ASCII), at least one. A loop, not a
   * pattern: a backlog of a million items checks a million ids.
   */
  public static boolean isValid(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '.' || c == '_' || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** A valid pipeline or phase name: the id rule, and short. */
  public static boolean isValidName(String name) {
    return name.length() <= MAX_NAME_CHARS && isValid(name);
  }

  /** {@code high, medium or low}. */
  public static String choice(List<String> options) {
    if (options.size() == 1) {
      return options.get(0);
    }
    return String.join(", ", options.subList(0, options.size() - 1)) + " or " + options.get(options.size() - 1);
  }
}
