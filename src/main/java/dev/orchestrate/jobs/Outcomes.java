package dev.orchestrate.jobs;

import dev.orchestrate.backlog.ResultFallback;
import dev.orchestrate.jobs.AgentOutcome.Ending;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * The rules that turn how an agent ended into an {@link AgentOutcome} (DESIGN §4). Pure, so the
 * exact wording of each failure, which the next attempt's prompt quotes, is tested without
 * processes.
 */
final class Outcomes {

  static final String CANCELLED_CONTEXT = "cancelled";

  private Outcomes() {}

  static AgentOutcome spawnFailed(String context, Duration elapsed) {
    return failed(context, OptionalInt.empty(), Ending.SPAWN_FAILED, elapsed);
  }

  static AgentOutcome cancelled(Duration elapsed) {
    return failed(CANCELLED_CONTEXT, OptionalInt.empty(), Ending.CANCELLED, elapsed);
  }

  static AgentOutcome timedOut(Duration timeout, int descendants, String stderrTail,
      Duration elapsed) {
    String context = "timed out after " + describe(timeout) + "; terminated the agent"
        + descendantsClause(descendants) + stderrSuffix(stderrTail);
    return failed(context, OptionalInt.empty(), Ending.TIMED_OUT, elapsed);
  }

  /** The agent exited by itself: its result file wins, whatever the exit code. */
  static AgentOutcome exited(int exitCode, ResultFile.Reading reading, ResultFallback fallback,
      String stdoutTail, String stderrTail, Duration elapsed) {
    OptionalInt code = OptionalInt.of(exitCode);
    if (reading instanceof ResultFile.Reported report) {
      return new AgentOutcome(report.result(), report.summary(), report.context(),
          report.memories(), report.followUps(), code, Ending.EXITED, elapsed);
    }
    if (reading instanceof ResultFile.Invalid invalid) {
      return failed(invalid.problem(), code, Ending.EXITED, elapsed);
    }
    if (fallback == ResultFallback.STRICT) {
      return failed("agent wrote no result file (agent.result_fallback: strict); exit code "
          + exitCode + stderrSuffix(stderrTail), code, Ending.EXITED, elapsed);
    }
    if (exitCode == 0) {
      return new AgentOutcome(AgentResult.PHASE_COMPLETE, stdoutTail.strip(), "", List.of(),
          List.of(), code, Ending.EXITED, elapsed);
    }
    return failed("agent exited with code " + exitCode + stderrSuffix(stderrTail), code,
        Ending.EXITED, elapsed);
  }

  /** Compact human spelling of a configured duration: 30m, 1h30m, 1s500ms. */
  static String describe(Duration duration) {
    StringBuilder text = new StringBuilder();
    append(text, duration.toHours(), "h");
    append(text, duration.toMinutesPart(), "m");
    append(text, duration.toSecondsPart(), "s");
    append(text, duration.toMillisPart(), "ms");
    return text.length() == 0 ? "0s" : text.toString();
  }

  private static void append(StringBuilder text, long amount, String unit) {
    if (amount > 0) {
      text.append(amount).append(unit);
    }
  }

  private static String descendantsClause(int descendants) {
    if (descendants == 0) {
      return "";
    }
    return " and " + descendants
        + (descendants == 1 ? " descendant process" : " descendant processes");
  }

  private static String stderrSuffix(String stderrTail) {
    String tail = stderrTail.strip();
    return tail.isEmpty() ? "" : "\n" + tail;
  }

  private static AgentOutcome failed(String context, OptionalInt exitCode, Ending ending,
      Duration elapsed) {
    return new AgentOutcome(AgentResult.FAILED, "", context, List.of(), List.of(), exitCode,
        ending, elapsed);
  }
}
