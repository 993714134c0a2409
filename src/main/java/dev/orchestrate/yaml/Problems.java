package dev.orchestrate.yaml;

import dev.orchestrate.limits.Quote;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Collects the problems of one file, so that a user sees all of them in one go. */
public final class Problems {
  private final String file;
  /**
   * Problems kept to report: far more than anyone reads (the CLI shows 50), few enough that a file
   * of millions of wrong values cannot fill the heap with messages. The rest are only counted.
   */
  public static final int MAX_KEPT = 1_000;

  private final List<Problem> problems = new ArrayList<>();
  private long omitted;

  public Problems(String file) {
    this.file = file;
  }

  public void add(int line, int column, String message) {
    if (problems.size() < MAX_KEPT) {
      problems.add(new Problem(file, line, column, message));
    } else {
      omitted++;
    }
  }

  public void at(YamlNode node, String message) {
    add(node.line(), node.column(), message);
  }

  public void at(YamlNode.Key key, String message) {
    add(key.line(), key.column(), message);
  }

  /** A problem with the file as a whole (missing, unreadable, empty). */
  public void inFile(String message) {
    add(0, 0, message);
  }

  /** "{@code <subject>} must be {@code <expectation>}, got {@code <what the node is>}". */
  public void expected(YamlNode node, String subject, String expectation) {
    at(node, subject + " must be " + expectation + ", got " + node.describe());
  }

  /**
   * Reports every key of {@code map} that is not in {@code allowed}, suggesting the closest allowed
   * key or else listing them all: {@code unknown key 'timout' in agent; did you mean 'timeout'?}.
   */
  public void unknownKeys(YamlNode.Mapping map, List<String> allowed, String noun, String where) {
    for (YamlNode.Entry entry : map.entries()) {
      String name = entry.key().name();
      if (allowed.contains(name)) {
        continue;
      }
      Optional<String> close = DidYouMean.closest(name, allowed);
      String hint = close.map(c -> "did you mean '" + c + "'?")
          .orElseGet(() -> "expected one of: " + String.join(", ", allowed));
      at(entry.key(), "unknown " + noun + " " + Quote.value(name) + " in " + where + "; " + hint);
    }
  }

  /** Adds {@code other}'s problems (and its count of those not kept) to these. */
  public void addAll(Problems other) {
    other.problems.forEach(p -> add(p.line(), p.column(), p.message()));
    omitted += other.omitted;
  }

  public boolean isEmpty() {
    return problems.isEmpty();
  }

  /** Throws every collected problem, ordered by position in the file, if there is any. */
  public void throwIfAny() {
    if (!problems.isEmpty()) {
      List<Problem> sorted = new ArrayList<>(problems);
      sorted.sort(Comparator.comparingInt(Problem::line).thenComparingInt(Problem::column));
      throw new ValidationException(sorted, omitted);
    }
  }
}
