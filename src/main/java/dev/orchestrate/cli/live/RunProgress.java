package dev.orchestrate.cli.live;

import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.scheduler.RunListener;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Progress lines on stderr (UI, not logs): one when a phase starts, one when it ends. The live
 * view prints the same lines above its status area, through {@link #RunProgress(Consumer, Clock)}.
 */
public final class RunProgress implements RunListener, SummarizationListener {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss")
      .withZone(ZoneId.systemDefault());

  private final Consumer<String> sink;
  private final Clock clock;
  private final Map<String, Instant> jobStarts = new HashMap<>();

  public RunProgress(PrintWriter err, Clock clock) {
    this(line -> {
      err.println(line);
      err.flush();
    }, clock);
  }

  /** Lines (already timestamped) go to {@code sink}. */
  RunProgress(Consumer<String> sink, Clock clock) {
    this.sink = sink;
    this.clock = clock;
  }

  @Override
  public void jobStarted(ItemState item, String phase, int attempt) {
    jobStarts.put(item.id(), clock.instant());
    line(item.id() + " " + phase + " (attempt " + attempt + ") started");
  }

  @Override
  public void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
    String text = finishedText(before, after, outcome);
    jobStarts.remove(before.id());
    line(text);
  }

  /**
   * The text of a finished job's line, without the time: {@code WRK-1 build: success in 3.2s -> test}.
   * Raw: the agent's words in it are made safe where it is shown.
   */
  String finishedText(ItemState before, ItemState after, AgentOutcome outcome) {
    Instant started = jobStarts.getOrDefault(before.id(), clock.instant());
    Duration took = Duration.between(started, clock.instant());
    String result = outcome.ending() == AgentOutcome.Ending.CANCELLED ? "cancelled" : outcome.result().key();
    StringBuilder text = new StringBuilder(before.id()).append(' ').append(before.progress().phase())
        .append(": ").append(result).append(" in ").append(seconds(took));
    if (outcome.ending() == AgentOutcome.Ending.TIMED_OUT) {
      text.append(" (timed out)");
    }
    if (outcome.ending() == AgentOutcome.Ending.STALLED) {
      text.append(" (stalled)");
    }
    if (outcome.provider() != null && outcome.result() == AgentResult.FAILED) {
      if (outcome.kind().isLimit() || outcome.kind() == OutcomeClass.AUTH || outcome.kind() == OutcomeClass.SANDBOX) {
        // the provider, not the agent's work: not counted, and the operator wants to know which
        return text.append(" (").append(outcome.kind().key()).append(", not counted): ")
            .append(TerminalText.oneLine(outcome.provider().message())).toString();
      }
      text.append(" (").append(outcome.kind().key()).append(')');
    }
    if (after.status() != before.status()) {
      text.append(" -> ").append(after.status().key());
    } else if (after.progress().phase() != null && !after.progress().phase().equals(before.progress().phase())) {
      text.append(" -> ").append(after.progress().phase());
    }
    if (after.progress().blockedReason() != null && after.status() != before.status()) {
      text.append(": ").append(TerminalText.oneLine(after.progress().blockedReason()));
    } else if (after.progress().lastFailure() != null && after.progress().attempts() > before.progress().attempts()) {
      text.append(" (will retry): ").append(TerminalText.oneLine(after.progress().lastFailure()));
    }
    return text.toString();
  }

  @Override
  public void statusChanged(ItemState before, ItemState after) {
    line(after.id() + " " + before.status().key() + " -> " + after.status().key()
        + (after.progress().phase() == null ? "" : " (" + after.progress().phase() + ")"));
  }

  @Override
  public void providerLimit(String message) {
    line(message);
  }

  @Override
  public void waiting(String what) {
    line("waiting: " + TerminalText.oneLine(what));
  }

  @Override
  public void itemAdded(ItemState item) {
    line(item.id() + " added, follow-up of " + item.origin() + ": " + TerminalText.oneLine(item.definition().title()));
  }

  @Override
  public void summarizationFailed(String itemId, String error) {
    line(itemId + " summarizing earlier turns failed: " + TerminalText.oneLine(error));
  }

  private void line(String text) {
    sink.accept(TIME.format(clock.instant()) + " " + TerminalText.safe(text));
  }

  public static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
  }
}
