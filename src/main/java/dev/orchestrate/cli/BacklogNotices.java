package dev.orchestrate.cli;

import dev.orchestrate.cli.live.LineSink;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.scheduler.ItemFilter;
import dev.orchestrate.scheduler.RunListener;
import dev.orchestrate.yaml.Problem;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Tells the user about backlog edits during a run, in front of the progress display: a rejected
 * edit is a warning ({@code orchestrate: warning: backlog.yaml:3:5: …}, shown even with
 * {@code --quiet}), and so is a budget crossing 80 % or 95 %; a reload is one progress line. Everything else goes to the progress display.
 */
final class BacklogNotices implements RunListener {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss")
      .withZone(ZoneId.systemDefault());

  private final RunListener progress;
  private final PrintWriter err;
  private final Clock clock;
  private final boolean quiet;

  BacklogNotices(RunListener progress, PrintWriter err, Clock clock, boolean quiet) {
    this.progress = progress;
    this.err = err;
    this.clock = clock;
    this.quiet = quiet;
  }

  @Override
  public void backlogRejected(List<Problem> problems) {
    for (Problem problem : problems.subList(0, Math.min(problems.size(), ErrorHandler.MAX_PROBLEMS))) {
      // backlog.source's command: a refresh that failed, not an edit
      line("orchestrate: warning: " + Quote.line(problem.toString(), ErrorHandler.MAX_LINE_CHARS)
          + (problem.file().startsWith("backlog.source") ? " (the run goes on with the last good backlog)"
              : " (edit ignored until fixed; the run goes on)"));
    }
    if (problems.size() > ErrorHandler.MAX_PROBLEMS) {
      line("orchestrate: warning: " + problems.get(0).file() + ": " + (problems.size() - ErrorHandler.MAX_PROBLEMS)
          + " more problems not shown");
    }
    progress.backlogRejected(problems);
  }

  /** Shown even with --quiet, like a rejected backlog edit: money is at stake. */
  @Override
  public void budgetWarning(String message) {
    line("orchestrate: warning: " + message);
    progress.budgetWarning(message);
  }

  @Override
  public void backlogReloaded(SyncResult changes) {
    if (!quiet) {
      // Timed like the other progress lines.
      line(TIME.format(clock.instant()) + " backlog reloaded: " + describe(changes));
    }
    progress.backlogReloaded(changes);
  }

  /** Above the live status area when there is one (so neither garbles the other), else on stderr. */
  private void line(String text) {
    if (progress instanceof LineSink sink) {
      sink.printLine(text);
    } else {
      err.println(TerminalText.safe(text));
      err.flush();
    }
  }

  static String describe(SyncResult changes) {
    List<String> parts = new ArrayList<>();
    if (!changes.added().isEmpty()) {
      parts.add(changes.added().size() + " added");
    }
    if (!changes.returned().isEmpty()) {
      parts.add(changes.returned().size() + " back in the backlog");
    }
    if (!changes.vanished().isEmpty()) {
      parts.add(changes.vanished().size() + " no longer listed");
    }
    return parts.isEmpty() ? "no items added or removed" : String.join(", ", parts);
  }

  @Override
  public void runStarted(List<ItemState> items, ItemFilter filter) {
    progress.runStarted(items, filter);
  }

  @Override
  public void jobStarted(ItemState item, String phase, int attempt) {
    progress.jobStarted(item, phase, attempt);
  }

  @Override
  public void jobStarted(ItemState item, String phase, int attempt, String profile) {
    progress.jobStarted(item, phase, attempt, profile);
  }

  @Override
  public void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
    progress.jobFinished(before, after, outcome);
  }

  @Override
  public void statusChanged(ItemState before, ItemState after) {
    progress.statusChanged(before, after);
  }

  @Override
  public void itemAdded(ItemState item) {
    progress.itemAdded(item);
  }

  @Override
  public void waiting(String what) {
    progress.waiting(what);
  }

  @Override
  public void providerLimit(String message) {
    progress.providerLimit(message);
  }

  @Override
  public void runRecorded(long runId) {
    progress.runRecorded(runId);
  }

  @Override
  public void profilePaused(AgentPauses.Pause pause) {
    progress.profilePaused(pause);
  }

  @Override
  public void pausedAtStart(AgentPauses.Pause pause, String message) {
    progress.pausedAtStart(pause, message);
  }

  @Override
  public void pauseEnded(String profile) {
    progress.pauseEnded(profile);
  }

  /** As {@link #budgetWarning(String)}: shown even with --quiet. */
  @Override
  public void budgetWarning(String budget, int percent, String message) {
    line("orchestrate: warning: " + message);
    progress.budgetWarning(budget, percent, message);
  }
}
