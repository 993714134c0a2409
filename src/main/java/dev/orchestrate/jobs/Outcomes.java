package dev.orchestrate.jobs;

import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.Ending;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.ProviderFailure;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * The rules that turn how an agent ended into an {@link AgentOutcome} (docs/agents.md). Pure, so the
 * exact wording of each failure, which the next attempt's prompt quotes, is tested without
 * processes. Every summary and context leaves here within {@link AgentOutcome#TEXT_MAX_CHARS},
 * and the outcome counts the values that were cut on the way (output tails included).
 */
final class Outcomes {

  static final String CANCELLED_CONTEXT = AgentOutcome.CANCELLED;

  private Outcomes() {}

  static AgentOutcome spawnFailed(String context, Duration elapsed) {
    return failed(context, false, OptionalInt.empty(), Ending.SPAWN_FAILED, elapsed);
  }

  static AgentOutcome cancelled(Duration elapsed) {
    return AgentOutcome.cancelled(elapsed);
  }

  static AgentOutcome timedOut(Duration timeout, int descendants, String stderrTail,
      Duration elapsed) {
    return timedOut(timeout, descendants, new OutputCapture.Tails("", stderrTail), elapsed);
  }

  static AgentOutcome timedOut(Duration timeout, int descendants, OutputCapture.Tails tails,
      Duration elapsed) {
    String context = "timed out after " + describe(timeout) + "; terminated the agent"
        + descendantsClause(descendants) + stderrSuffix(tails.stderr());
    return failed(context, tails.stderrTruncated(), OptionalInt.empty(), Ending.TIMED_OUT, elapsed);
  }

  static AgentOutcome exited(int exitCode, ResultFile.Reading reading, ResultFallback fallback,
      String stdoutTail, String stderrTail, Duration elapsed) {
    return exited(exitCode, reading, fallback, new OutputCapture.Tails(stdoutTail, stderrTail),
        elapsed);
  }

  /** The agent exited by itself: its result file wins, whatever the exit code. */
  static AgentOutcome exited(int exitCode, ResultFile.Reading reading, ResultFallback fallback,
      OutputCapture.Tails tails, Duration elapsed) {
    OptionalInt code = OptionalInt.of(exitCode);
    if (reading instanceof ResultFile.Reported report) {
      return new AgentOutcome(report.result(), report.summary(), report.context(),
          report.memories(), report.followUps(), code, Ending.EXITED, elapsed,
          report.truncatedValues());
    }
    if (reading instanceof ResultFile.Invalid invalid) {
      return failed(invalid.problem(), false, code, Ending.EXITED, elapsed);
    }
    if (fallback == ResultFallback.STRICT) {
      return failed("agent wrote no result file (agent.result_fallback: strict); exit code "
          + exitCode + stderrSuffix(tails.stderr()), tails.stderrTruncated(), code, Ending.EXITED,
          elapsed);
    }
    if (exitCode == 0) {
      String summary = tails.stdout().strip();
      boolean cut = tails.stdoutTruncated() || SizeCap.exceeds(summary, AgentOutcome.TEXT_MAX_CHARS);
      return new AgentOutcome(AgentResult.PHASE_COMPLETE,
          SizeCap.cap(summary, AgentOutcome.TEXT_MAX_CHARS), "", List.of(), List.of(), code,
          Ending.EXITED, elapsed, cut ? 1 : 0);
    }
    return failed("agent exited with code " + exitCode + stderrSuffix(tails.stderr()),
        tails.stderrTruncated(), code, Ending.EXITED, elapsed);
  }

  /**
   * The agent wrote nothing to stdout or stderr for {@code stallTimeout}. The context starts with
   * "stalled", which the next attempt's prompt quotes under "Previous Failure".
   */
  static AgentOutcome stalled(Duration stallTimeout, int descendants, OutputCapture.Tails tails, Duration elapsed) {
    String context = "stalled: no output for " + describe(stallTimeout) + " (agent.stall_timeout); terminated the agent"
        + descendantsClause(descendants) + stderrSuffix(tails.stderr());
    return failed(context, tails.stderrTruncated(), OptionalInt.empty(), Ending.STALLED, elapsed);
  }

  /**
   * As {@link #exited(int, ResultFile.Reading, ResultFallback, OutputCapture.Tails, Duration)},
   * with what a preset's agent said on stdout: the result file still wins; without one, an error
   * the agent reported fails the attempt with its own message, and its final answer, not the raw
   * tail of its event stream, is the summary (also of a result file that gives none). The usage it
   * reported goes with every outcome, and the final answer too ({@link AgentOutcome#answer()}).
   */
  static AgentOutcome exited(int exitCode, ResultFile.Reading reading, ResultFallback fallback,
      OutputCapture.Tails tails, Duration elapsed, AgentReport said) {
    AgentOutcome outcome = exitedWithReport(exitCode, reading, fallback, tails, elapsed, said)
        .withAnswer(said.finalText());
    if (outcome.result() != AgentResult.FAILED) {
      return outcome;
    }
    // A failed attempt: did its provider end it? What the preset's reader found, else what the CLI
    // said on stderr (the CLIs that print their errors there), never the exit code alone.
    ProviderFailure provider = said.provider() != null ? said.provider()
        : ProviderText.classify(tails.stderr()).orElse(null);
    return provider == null ? outcome : outcome.withProvider(provider);
  }

  /**
   * The provider refused the agent in a way no retry mends (a key the CLI keeps retrying), and the
   * agent was stopped for it.
   */
  static AgentOutcome refused(ProviderFailure provider, int descendants, OutputCapture.Tails tails, Duration elapsed) {
    String context = provider.message() + "; stopped the agent" + descendantsClause(descendants)
        + stderrSuffix(tails.stderr());
    return failed(context, tails.stderrTruncated(), OptionalInt.empty(), Ending.REFUSED, elapsed)
        .withProvider(provider);
  }

  private static AgentOutcome exitedWithReport(int exitCode, ResultFile.Reading reading, ResultFallback fallback,
      OutputCapture.Tails tails, Duration elapsed, AgentReport said) {
    AgentOutcome outcome;
    if (reading instanceof ResultFile.Absent && said.failed()) {
      outcome = failed("the agent reported an error" + (exitCode == 0 ? "" : " (exit code " + exitCode + ")")
          + ": " + said.error(), false, OptionalInt.of(exitCode), Ending.EXITED, elapsed);
    } else if (reading instanceof ResultFile.Absent && fallback != ResultFallback.STRICT && exitCode == 0
        && said.finalText() != null) {
      String summary = said.finalText();
      outcome = new AgentOutcome(AgentResult.PHASE_COMPLETE, SizeCap.cap(summary, AgentOutcome.TEXT_MAX_CHARS), "",
          List.of(), List.of(), OptionalInt.of(exitCode), Ending.EXITED, elapsed,
          SizeCap.exceeds(summary, AgentOutcome.TEXT_MAX_CHARS) ? 1 : 0);
    } else if (reading instanceof ResultFile.Reported report && report.summary().isBlank()
        && said.finalText() != null && !said.finalText().isBlank()) {
      // A result file without a summary: the agent's final answer says what was done.
      String summary = said.finalText().strip();
      outcome = new AgentOutcome(report.result(), SizeCap.cap(summary, AgentOutcome.TEXT_MAX_CHARS),
          report.context(), report.memories(), report.followUps(), OptionalInt.of(exitCode), Ending.EXITED, elapsed,
          report.truncatedValues() + (SizeCap.exceeds(summary, AgentOutcome.TEXT_MAX_CHARS) ? 1 : 0));
    } else {
      outcome = exited(exitCode, reading, fallback, tails, elapsed);
    }
    return outcome.withUsage(said.usage());
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

  /** {@code outputCut}: the context quotes an output tail that was already cut to its cap. */
  private static AgentOutcome failed(String context, boolean outputCut, OptionalInt exitCode,
      Ending ending, Duration elapsed) {
    boolean cut = outputCut || SizeCap.exceeds(context, AgentOutcome.TEXT_MAX_CHARS);
    return new AgentOutcome(AgentResult.FAILED, "", SizeCap.cap(context, AgentOutcome.TEXT_MAX_CHARS),
        List.of(), List.of(), exitCode, ending, elapsed, cut ? 1 : 0);
  }

  /** The next prompt's Previous Failure for a red gate: which gate, how it ended, the end of its output. */
  static String gateFailure(CommandRun gate, int ran, int of) {
    StringBuilder b = new StringBuilder("You reported the phase complete, but orchestrate's verify ")
        .append(gate.headline()).append(" (gate ").append(ran).append(" of ").append(of)
        .append(", run in your worktree). Fix what it reports; the gates run again after your next report.");
    if (!gate.tail().isBlank()) {
      b.append("\n\nThe end of its output:\n~~~~\n").append(gate.tail()).append("\n~~~~");
    }
    return SizeCap.cap(b.toString(), AgentOutcome.TEXT_MAX_CHARS);
  }

  /** The blocked reason for a failed set-up step: the command, how it ended, the end of its output. */
  static String setupFailure(CommandRun step, String command) {
    StringBuilder b = new StringBuilder(step.headline());
    if (command != null) {
      b.append(" (").append(command).append(")");
    }
    b.append(" in the new worktree, so no agent ran");
    if (step.log() != null) {
      b.append(" (log: ").append(step.log()).append(")");
    }
    b.append("; fix the command or the project, then unblock the item");
    if (!step.tail().isBlank()) {
      b.append(". The end of its output:\n").append(step.tail());
    }
    return SizeCap.cap(b.toString(), AgentOutcome.TEXT_MAX_CHARS);
  }
}
