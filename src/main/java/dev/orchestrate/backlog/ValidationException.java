package dev.orchestrate.backlog;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown when a backlog or config file has problems; carries every problem found, not just the first. */
public final class ValidationException extends RuntimeException {
  private final List<Problem> problems;

  public ValidationException(List<Problem> problems) {
    super(render(problems));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("a validation failure needs at least one problem");
    }
    this.problems = List.copyOf(problems);
  }

  public List<Problem> problems() {
    return problems;
  }

  private static String render(List<Problem> problems) {
    return problems.stream().map(Problem::toString).collect(Collectors.joining("\n"));
  }
}
