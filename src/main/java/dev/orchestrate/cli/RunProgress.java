package dev.orchestrate.cli;

import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.jobs.AgentOutcome;
import dev.orchestrate.scheduler.ItemState;
import dev.orchestrate.scheduler.RunListener;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** Progress lines on stderr (UI, not logs): one when a phase starts, one when it ends. */
final class RunProgress implements RunListener, SummarizationListener {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

  private final PrintWriter err;
  private final Clock clock;
  private Instant jobStart;

  RunProgress(PrintWriter err, Clock clock) {
    this.err = err;
    this.clock = clock;
  }

  @Override
  public void jobStarted(ItemState item, String phase, int attempt) {
    jobStart = clock.instant();
    line(item.id() + " " + phase + " (attempt " + attempt + ") started");
  }

  @Override
  public void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
    Duration took = Duration.between(jobStart, clock.instant());
    String result = outcome.ending() == AgentOutcome.Ending.CANCELLED ? "cancelled" : outcome.result().key();
    StringBuilder text = new StringBuilder(before.id()).append(' ').append(before.progress().phase())
        .append(": ").append(result).append(" in ").append(seconds(took));
    if (outcome.ending() == AgentOutcome.Ending.TIMED_OUT) {
      text.append(" (timed out)");
    }
    if (after.status() != before.status()) {
      text.append(" -> ").append(after.status().key());
    } else if (after.progress().phase() != null && !after.progress().phase().equals(before.progress().phase())) {
      text.append(" -> ").append(after.progress().phase());
    }
    if (after.progress().blockedReason() != null && after.status() != before.status()) {
      text.append(": ").append(StatusCommand.oneLine(after.progress().blockedReason()));
    } else if (after.progress().lastFailure() != null && after.progress().attempts() > before.progress().attempts()) {
      text.append(" (will retry): ").append(StatusCommand.oneLine(after.progress().lastFailure()));
    }
    line(text.toString());
  }

  @Override
  public void statusChanged(ItemState before, ItemState after) {
    line(after.id() + " " + before.status().key() + " -> " + after.status().key()
        + (after.progress().phase() == null ? "" : " (" + after.progress().phase() + ")"));
  }

  @Override
  public void itemAdded(ItemState item) {
    line(item.id() + " added, follow-up of " + item.origin() + ": " + StatusCommand.oneLine(item.definition().title()));
  }

  @Override
  public void summarizationFailed(String itemId, String error) {
    line(itemId + " summarizing earlier turns failed: " + StatusCommand.oneLine(error));
  }

  private void line(String text) {
    err.println(TIME.format(clock.instant()) + " " + text);
    err.flush();
  }

  static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
  }
}
