package dev.orchestrate.yaml;

import dev.orchestrate.limits.Quote;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Typed reads of located YAML values. Each read either returns the value or reports one problem
 * in the house style ({@code <subject> must be <expectation>, got <actual>}) and returns empty, so
 * a loader can carry on and find the next problem.
 */
public final class Values {
  /** The words the YAML 1.1 parser reads as true (it reads no, off and false as false). */
  private static final Set<String> TRUE = Set.of("true", "yes", "on");

  private final Problems problems;

  public Values(Problems problems) {
    this.problems = problems;
  }

  /** Any scalar except null, as written: numbers and booleans become their text. */
  public Optional<String> text(YamlNode node, String subject, String expectation) {
    if (node instanceof YamlNode.Scalar scalar && !scalar.isNull()) {
      return Optional.of(scalar.text());
    }
    problems.expected(node, subject, expectation);
    return Optional.empty();
  }

  /** Text that is not blank. */
  public Optional<String> nonBlank(YamlNode node, String subject, String expectation) {
    Optional<String> text = text(node, subject, expectation);
    if (text.isPresent() && text.get().isBlank()) {
      problems.expected(node, subject, expectation);
      return Optional.empty();
    }
    return text;
  }

  public Optional<Integer> integer(YamlNode node, String subject, int min) {
    return integer(node, subject, min, Integer.MAX_VALUE);
  }

  /** An integer within {@code min..max}; each knob's range is safe at its maximum. */
  public Optional<Integer> integer(YamlNode node, String subject, int min, int max) {
    if (!(node instanceof YamlNode.Scalar scalar) || scalar.kind() != YamlNode.Scalar.Kind.INTEGER) {
      problems.expected(node, subject, "an integer");
      return Optional.empty();
    }
    BigInteger value = scalar.integer();
    if (value.compareTo(BigInteger.valueOf(min)) < 0) {
      problems.at(node, subject + " must be at least " + min + ", got " + Quote.escaped(scalar.text()));
      return Optional.empty();
    }
    if (value.compareTo(BigInteger.valueOf(max)) > 0) {
      problems.at(node, subject + " must be at most " + max + ", got " + Quote.escaped(scalar.text()));
      return Optional.empty();
    }
    return Optional.of(value.intValue());
  }

  public Optional<Boolean> bool(YamlNode node, String subject) {
    if (node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Scalar.Kind.BOOLEAN) {
      return Optional.of(TRUE.contains(scalar.text().toLowerCase(Locale.ROOT)));
    }
    problems.expected(node, subject, "true or false");
    return Optional.empty();
  }

  /** One of the given words, e.g. {@code high}; {@code options} maps each word to its value. */
  public <E> Optional<E> choice(YamlNode node, String subject, Map<String, E> options) {
    String expectation = Names.choice(List.copyOf(options.keySet()));
    if (node instanceof YamlNode.Scalar scalar && options.containsKey(scalar.text())) {
      return Optional.of(options.get(scalar.text()));
    }
    problems.expected(node, subject, expectation);
    return Optional.empty();
  }

  /** A map; null (a key with nothing after it) reads as an empty map. */
  public Optional<YamlNode.Mapping> mapping(YamlNode node, String subject, String expectation) {
    if (node instanceof YamlNode.Mapping map) {
      return Optional.of(map);
    }
    if (node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(new YamlNode.Mapping(node.line(), node.column(), List.of()));
    }
    problems.expected(node, subject, expectation);
    return Optional.empty();
  }

  /**
   * A list of non-blank scalars; null reads as an empty list. {@code noun} names one element
   * ("item id"); a single value where a list belongs gets the list spelled out as an example.
   */
  public Optional<List<String>> strings(YamlNode node, String key, String where, String noun) {
    String subject = where.isEmpty() ? key : key + " in " + where;
    if (node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(List.of());
    }
    if (!(node instanceof YamlNode.Sequence list)) {
      String example = node instanceof YamlNode.Scalar scalar ? ", e.g. [" + Quote.escaped(scalar.text()) + "]" : "";
      problems.expected(node, subject, "a list of " + noun + "s" + example);
      return Optional.empty();
    }
    List<String> values = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < list.items().size(); i++) {
      String element = where.isEmpty() ? key + "[" + i + "]" : key + "[" + i + "] in " + where;
      Optional<String> value = nonBlank(list.items().get(i), element, "a non-empty " + noun);
      ok &= value.isPresent();
      value.ifPresent(values::add);
    }
    return ok ? Optional.of(values) : Optional.empty();
  }

  /** The words of an enum as written in files, e.g. {@code high -> HIGH}. */
  public static <E extends Enum<E>> Map<String, E> words(E[] constants) {
    Map<String, E> words = new LinkedHashMap<>();
    for (E constant : constants) {
      words.put(constant.name().toLowerCase(Locale.ROOT), constant);
    }
    return words;
  }
}
