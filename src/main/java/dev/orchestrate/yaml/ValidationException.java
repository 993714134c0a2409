package dev.orchestrate.yaml;

import dev.orchestrate.error.OrchestrateException;
import java.util.List;
import java.util.stream.Collectors;

/** Thrown when a backlog or config file has problems; carries every problem found, not just the first. */
public final class ValidationException extends OrchestrateException {
  private final List<Problem> problems;
  private final long omitted;

  public ValidationException(List<Problem> problems) {
    this(problems, 0);
  }

  /** {@code omitted}: further problems found but not kept (see {@link Problems#MAX_KEPT}). */
  public ValidationException(List<Problem> problems, long omitted) {
    super(Kind.USAGE, render(problems));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("a validation failure needs at least one problem");
    }
    this.problems = List.copyOf(problems);
    this.omitted = omitted;
  }

  public List<Problem> problems() {
    return problems;
  }

  /** Every problem found: those in {@link #problems()} and those only counted. */
  public long total() {
    return problems.size() + omitted;
  }

  private static String render(List<Problem> problems) {
    return problems.stream().map(Problem::toString).collect(Collectors.joining("\n"));
  }
}
