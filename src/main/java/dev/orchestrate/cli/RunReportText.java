package dev.orchestrate.cli;

import dev.orchestrate.cli.live.RunProgress;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.item.RunFigures;
import dev.orchestrate.scheduler.HaltReason;
import dev.orchestrate.scheduler.RunReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The text report of {@code run}. Why a run stopped, in the words of its report's first line, said as it is: "every item is done
 * or awaiting review" when items wait for a reviewer, never "done or blocked" when none is blocked;
 * what the remaining items of a {@code waiting_on_blocked} halt wait on (blocked items, items
 * awaiting review, items the run leaves out), from the report's {@code waitsOn}.
 */
final class RunReportText {
  private RunReportText() {
  }

  static void print(PrintWriter out, RunReport r, List<String> only, boolean verbose, boolean worktrees) {
    out.println("run " + r.runId() + " stopped: " + why(r, only) + " ("
        + RunProgress.seconds(r.duration()) + ", " + r.phasesRun()
        + (r.phasesRun() == 1 ? " phase run)" : " phases run)"));
    if (r.haltDetail() != null) {
      out.println("  " + TerminalText.safe(r.haltDetail()));
    }
    List<String> outside = r.unselected();
    List<String> todo = RunCommand.todo(r);
    out.println("  items: " + r.total() + " total, " + r.done() + " done, " + r.blocked() + " blocked, "
        + r.remaining() + " remaining"
        + (r.awaitingReview().isEmpty() ? "" : ", " + r.awaitingReview().size() + " awaiting review")
        + (r.awaitingChecks().isEmpty() ? "" : ", " + r.awaitingChecks().size() + " awaiting checks")
        + (r.landing().isEmpty() ? "" : ", " + r.landing().size() + " landing")
        + (outside.isEmpty() ? "" : ": " + todo.size() + " selected, " + outside.size() + " not selected")
        + " (this run: " + r.doneThisRun() + " done, " + r.blockedThisRun() + " blocked)");
    if (!todo.isEmpty() && r.haltReason() != HaltReason.ALL_DONE) {
      out.println("  remaining: " + RunCommand.ids(todo));
    }
    if (r.haltReason() == HaltReason.WAITING_ON_BLOCKED && !r.waitsOn().isEmpty()) {
      out.println("  they wait on: " + RunCommand.ids(r.waitsOn()));
    }
    if (!outside.isEmpty()) {
      out.println("  not selected by " + RunCommand.onlyFlags(only) + ": " + RunCommand.ids(outside));
    }
    if (!r.blockedIds().isEmpty()) {
      // With worktrees a plain unblock resumes from the branch as recorded: a fix committed on the
      // base branch since is only brought in by --rebase (issue 45).
      out.println("  blocked (orchestrate status ID says why; unblock ID --notes TEXT sends it back"
          + (worktrees ? ", with --rebase onto a fix committed on the base branch" : "") + "): "
          + RunCommand.ids(r.blockedIds()));
    }
    if (!r.awaitingReview().isEmpty()) {
      out.println("  awaiting review (orchestrate approve ID, or reject ID --notes TEXT): "
          + RunCommand.ids(r.awaitingReview()));
    }
    if (!r.awaitingChecks().isEmpty()) {
      out.println("  awaiting their checks (the next run polls them): " + RunCommand.ids(r.awaitingChecks()));
    }
    printNotes(out, r, verbose);
  }

  /** The report's lines about the backlog, earlier runs, limits, memory and usage. */
  private static void printNotes(PrintWriter out, RunReport r, boolean verbose) {
    if (!r.sync().added().isEmpty()) {
      out.println("  new in the backlog: " + RunCommand.ids(r.sync().added()));
    }
    if (!r.sync().vanished().isEmpty()) {
      out.println("  no longer in the backlog (kept in the state, not run): " + RunCommand.ids(r.sync().vanished()));
    }
    if (r.interruptedJobs() > 0) {
      out.println("  " + r.interruptedJobs() + " job(s) of an earlier, interrupted run were re-queued");
    }
    if (!r.limited().isEmpty()) {
      out.println("  attempts a provider or a budget cut ended (not counted): " + r.limited().entrySet().stream()
          .map(e -> e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining(", ")));
    }
    if (verbose) {
      // How big the run's two in-memory structures grew (docs/how-it-works.md); stats shows them too.
      RunFigures f = r.figures();
      out.println("  held in memory: summaries of " + f.summaryMapPeak() + " item(s) at most, " + f.summaryMapFinal()
          + " at the end; jobs: at most " + f.jobTablePeakActive() + " running and " + f.jobTablePeakInactive()
          + " finished, " + f.jobTableFinal() + " at the end");
    }
    if (!r.usage().isUnknown() || r.budget().isLimited()) {
      out.println("  usage: " + UsageView.text(r.usage()) + UsageView.budgetText(r.usage(), r.budget()));
    }
  }

  static String why(RunReport r, List<String> only) {
    return switch (r.haltReason()) {
      case ALL_DONE -> (only.isEmpty() ? "every item" : "every item selected by " + RunCommand.onlyFlags(only))
          + " is " + where(r);
      case WAITING_ON_BLOCKED -> r.waitsOn().isEmpty() ? r.haltReason().description()
          : "the remaining items wait on " + waitedOn(r.waitsOn());
      default -> r.haltReason().description();
    };
  }

  /** Where the items ended: {@code done}, {@code done or blocked}, {@code done, blocked or awaiting review}. */
  private static String where(RunReport r) {
    List<String> states = new ArrayList<>();
    if (r.done() > 0) {
      states.add("done");
    }
    if (r.blocked() > 0) {
      states.add("blocked");
    }
    if (!r.awaitingReview().isEmpty()) {
      states.add("awaiting review");
    }
    if (!r.awaitingChecks().isEmpty()) {
      states.add("awaiting its checks");
    }
    if (!r.landing().isEmpty()) {
      states.add("landing");
    }
    if (states.isEmpty()) {
      states.add("done"); // an empty backlog: nothing was left to do
    }
    return joined(states, "or");
  }

  /** {@code blocked items and items awaiting review}, from {@code WRK-3 (blocked)}, {@code WRK-4 (awaiting_review)}. */
  private static String waitedOn(List<String> waitsOn) {
    Set<String> kinds = new LinkedHashSet<>();
    for (String w : waitsOn) {
      String status = w.substring(w.lastIndexOf(" (") + 2, w.length() - 1);
      kinds.add(switch (status) {
        case "blocked" -> "blocked items";
        case "awaiting_review" -> "items awaiting review";
        case "awaiting_checks" -> "items awaiting their checks";
        case "not selected" -> "items this run leaves out";
        case "unknown" -> "items the backlog does not have";
        default -> "unfinished items";
      });
    }
    return joined(new ArrayList<>(kinds), "and");
  }

  private static String joined(List<String> words, String last) {
    if (words.size() == 1) {
      return words.get(0);
    }
    return String.join(", ", words.subList(0, words.size() - 1)) + " " + last + " " + words.get(words.size() - 1);
  }

}
