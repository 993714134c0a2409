package dev.orchestrate.landing;

import dev.orchestrate.config.ProjectCommand;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The integration gates of a done item (docs/verification.md, "What lands"), run off the scheduler
 * thread in its landing tree: each in turn, in a session of its own with its output bounded, stopped
 * with its process tree at its timeout or a stop of the run ({@link PullRequestCommand#run}); the
 * first that does not pass ends the run (a later gate of a red build only adds noise).
 */
final class LandingGates {
  /** The longest report of a red gate kept (its output's tail, masked). */
  static final int REPORT_MAX_CHARS = 4_000;

  private LandingGates() {
  }

  /** One gate's run. */
  record Run(String name, PullRequestCommand.Outcome outcome, Duration elapsed) {
    boolean passed() {
      return outcome.ok();
    }
  }

  /** What the gates came to: every run made, and whether a stop cut them short. */
  record Runs(List<Run> runs, boolean stopped) {
    Runs {
      runs = List.copyOf(runs);
    }

    boolean passed() {
      return runs.stream().allMatch(Run::passed);
    }

    /** The gate that did not pass, or null. */
    Run red() {
      return runs.stream().filter(r -> !r.passed()).findFirst().orElse(null);
    }

    /** The red gate's report: how it ended and the tail of what it printed, masked. */
    String report(PushOutput mask) {
      Run red = red();
      PullRequestCommand.Outcome o = red.outcome();
      String output = mask.mask(o.output()).strip();
      if (output.length() > REPORT_MAX_CHARS) {
        output = "[...]" + output.substring(output.length() - REPORT_MAX_CHARS);
      }
      String how = o.exitCode() != null ? "exited with " + o.exitCode() : mask.mask(String.valueOf(o.failure()));
      return how + (output.isEmpty() ? " (no output)" : ":\n" + output);
    }

    /** Each gate and how long it took, for the operator. */
    String summary() {
      return String.join(", ", runs.stream().map(r -> r.name() + " " + seconds(r.elapsed())).toList());
    }

    /** Each gate, how it ended and how long it took: {@code tests passed 2.1 s, lint exited 1 0.3 s}. */
    String ends() {
      return String.join(", ", runs.stream().map(r -> r.name() + " " + (r.passed() ? "passed"
          : r.outcome().exitCode() != null ? "exited " + r.outcome().exitCode() : "stopped") + " "
          + seconds(r.elapsed())).toList());
    }

    /** How long the gates ran, in all. */
    long millis() {
      return runs.stream().mapToLong(r -> r.elapsed().toMillis()).sum();
    }
  }

  private static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  /**
   * Runs {@code gates} in {@code dir} with {@code env}, in order, up to the first that does not pass,
   * each gate's argv given to {@code wrap} first (the sandbox's, or none).
   */
  static Runs run(List<ProjectCommand> gates, Path dir, Map<String, String> env,
      UnaryOperator<List<String>> wrap, PullRequestCommand.Stopper stopper) {
    List<Run> runs = new ArrayList<>();
    for (ProjectCommand gate : gates) {
      if (stopper.stopped()) {
        return new Runs(runs, true);
      }
      long start = System.nanoTime();
      PullRequestCommand.Outcome outcome = PullRequestCommand.run(gate, Map.of(), dir, env, wrap, stopper);
      if (stopper.stopped()) {
        return new Runs(runs, true);
      }
      Run run = new Run(gate.name(), outcome, Duration.ofNanos(System.nanoTime() - start));
      runs.add(run);
      if (!run.passed()) {
        break;
      }
    }
    return new Runs(runs, false);
  }
}
