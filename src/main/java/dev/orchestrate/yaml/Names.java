package dev.orchestrate.yaml;

import java.util.List;
import java.util.regex.Pattern;

/** The one rule for ids and names (items, pipelines, phases) and how lists of choices read. */
public final class Names {
  public static final String RULE = "use only letters, digits, '.', '_' and '-'";
  /** The longest pipeline or phase name: a phase's name is part of its job directories' names. */
  public static final int MAX_NAME_CHARS = 64;
  public static final String NAME_RULE = RULE + ", at most " + MAX_NAME_CHARS + " characters";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]+");

  private Names() {}

  public static boolean isValid(String name) {
    return NAME.matcher(name).matches();
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
