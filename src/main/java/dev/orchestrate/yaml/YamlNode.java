package dev.orchestrate.yaml;

import dev.orchestrate.limits.Quote;
import java.math.BigInteger;
import java.util.List;
import java.util.Optional;

/**
 * A parsed YAML node that remembers where it starts (1-based line and column), so that every
 * validation problem can point into the file. Deliberately tiny: maps keep their entries in file
 * order, scalars keep the text exactly as written (so {@code PORT: 8080} reads as "8080" and
 * {@code id: 007} keeps its zeros).
 */
public sealed interface YamlNode permits YamlNode.Mapping, YamlNode.Sequence, YamlNode.Scalar {

  public int line();

  public int column();

  /** How the node reads after "got" in a message: {@code a map}, {@code a list}, {@code 'text'}. */
  public String describe();

  /** A mapping key and where it is written. */
  public record Key(String name, int line, int column) {}

  public record Entry(Key key, YamlNode value) {}

  public record Mapping(int line, int column, List<Entry> entries) implements YamlNode {
    public Mapping {
      entries = List.copyOf(entries);
    }

    public Optional<Entry> entry(String key) {
      for (Entry e : entries) {
        if (e.key().name().equals(key)) {
          return Optional.of(e);
        }
      }
      return Optional.empty();
    }

    public Optional<YamlNode> get(String key) {
      return entry(key).map(Entry::value);
    }

    @Override
    public String describe() {
      return "a map";
    }
  }

  public record Sequence(int line, int column, List<YamlNode> items) implements YamlNode {
    public Sequence {
      items = List.copyOf(items);
    }

    @Override
    public String describe() {
      return "a list";
    }
  }

  /**
   * A scalar. {@code text} is the value as written (unquoted); {@code integer} is set only for
   * {@link Kind#INTEGER}.
   */
  public record Scalar(int line, int column, Kind kind, String text, BigInteger integer) implements YamlNode {
    public enum Kind { STRING, INTEGER, FLOAT, BOOLEAN, NULL }

    public boolean isNull() {
      return kind == Kind.NULL;
    }

    @Override
    public String describe() {
      return isNull() ? "nothing" : Quote.value(text);
    }
  }
}
