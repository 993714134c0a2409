package dev.orchestrate.cli.live;

import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.item.AgentPauses;
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
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Progress lines on stderr (UI, not logs): one when a phase starts, one when it ends, each naming
 * the agent profile that runs it when the config has more than one ({@code [backup]}: a fallback
 * at work is seen). The live view prints the same lines above its status area, through
 * {@link #RunProgress(Consumer, Clock, boolean)}.
 *
 * <p>A provider's limit is one line per pause: the scheduler says it in words
 * ({@link #providerLimit}) and then, when it pauses a profile, names the pause
 * ({@link #profilePaused}); the words are held until then, and dropped when the pause is one
 * already told (the same profile, start and end: the other jobs of a wave refused by the same
 * limit). A pause whose end moved is told again. Words no pause follows (a halt for a refused key)
 * are printed at the next event, or when the run ends ({@link #close}).
 */
public final class RunProgress implements RunListener, SummarizationListener, AutoCloseable {
  /** The time of day every line starts with, and the end of a pause is shown in. */
  static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

  private final Consumer<String> sink;
  private final Clock clock;
  private final boolean nameProfiles;
  private final Map<String, Started> jobStarts = new HashMap<>();
  /** The pause last told per profile (bounded by the profiles). */
  private final Map<String, AgentPauses.Pause> told = new HashMap<>();
  /** A provider's limit in words, until its pause (if any) is known. */
  private String held;

  public RunProgress(PrintWriter err, Clock clock) {
    this(err, clock, false);
  }

  /** With {@code nameProfiles}, each job's lines name its agent profile (the config has several). */
  public RunProgress(PrintWriter err, Clock clock, boolean nameProfiles) {
    this(line -> {
      err.println(line);
      err.flush();
    }, clock, nameProfiles);
  }

  /** Lines (already timestamped) go to {@code sink}. */
  RunProgress(Consumer<String> sink, Clock clock) {
    this(sink, clock, false);
  }

  RunProgress(Consumer<String> sink, Clock clock, boolean nameProfiles) {
    this.sink = sink;
    this.clock = clock;
    this.nameProfiles = nameProfiles;
  }

  /** When a job started and the profile that runs it (null: not told). */
  private record Started(Instant at, String profile) {
  }

  @Override
  public void jobStarted(ItemState item, String phase, int attempt) {
    jobStarted(item, phase, attempt, null);
  }

  @Override
  public void jobStarted(ItemState item, String phase, int attempt, String profile) {
    release();
    jobStarts.put(item.id(), new Started(clock.instant(), profile));
    line(item.id() + " " + phase + tag(profile) + " (attempt " + attempt + ") started");
  }

  /** " [backup]" when profiles are named, else nothing. */
  String tag(String profile) {
    return nameProfiles && profile != null ? " [" + profile + "]" : "";
  }

  /** The profile running {@code itemId}'s job as it is shown ({@link #tag}). */
  String tagOf(String itemId) {
    Started started = jobStarts.get(itemId);
    return started == null ? "" : tag(started.profile());
  }

  @Override
  public void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
    release();
    String text = finishedText(before, after, outcome);
    jobStarts.remove(before.id());
    line(text);
  }

  /**
   * Whether the attempt's provider ended it (a usage or rate limit, a refused key, the sandbox):
   * it costs no attempt and no phase of the cap, so the live view does not count it either.
   */
  static boolean providerEnded(AgentOutcome outcome) {
    OutcomeClass kind = outcome.kind();
    return outcome.ending() != AgentOutcome.Ending.CANCELLED && outcome.provider() != null
        && (kind.isLimit() || kind == OutcomeClass.AUTH || kind == OutcomeClass.SANDBOX);
  }

  /**
   * The word a finished job's line starts with: the agent's result ({@code phase_complete},
   * {@code failed}, {@code blocked}), or {@code cancelled}; but an attempt orchestrate failed although
   * the agent reported success (a red gate, no changes, a protected file changed) says its class, as
   * {@code jobs} does: {@code verify_failed}, not {@code failed}.
   */
  static String resultWord(AgentOutcome outcome) {
    if (outcome.ending() == AgentOutcome.Ending.CANCELLED) {
      return "cancelled";
    }
    OutcomeClass kind = outcome.kind();
    if (outcome.result() == AgentResult.FAILED && outcome.provider() == null && (kind == OutcomeClass.VERIFY_FAILED
        || kind == OutcomeClass.NO_CHANGES || kind == OutcomeClass.PROTECTED_CHANGED)) {
      return kind.key();
    }
    return outcome.result().key();
  }

  /**
   * The text of a finished job's line, without the time: {@code WRK-1 build: success in 3.2s -> test}.
   * Raw: the agent's words in it are made safe where it is shown.
   */
  String finishedText(ItemState before, ItemState after, AgentOutcome outcome) {
    Started started = jobStarts.getOrDefault(before.id(), new Started(clock.instant(), null));
    Duration took = Duration.between(started.at(), clock.instant());
    String result = resultWord(outcome);
    StringBuilder text = new StringBuilder(before.id()).append(' ').append(before.progress().phase())
        .append(tag(started.profile())).append(": ").append(result).append(" in ").append(seconds(took));
    if (outcome.ending() == AgentOutcome.Ending.TIMED_OUT) {
      text.append(" (timed out)");
    }
    if (outcome.ending() == AgentOutcome.Ending.STALLED) {
      text.append(" (stalled)");
    }
    if (outcome.provider() != null && outcome.result() == AgentResult.FAILED) {
      if (outcome.kind().uncounted() || outcome.kind() == OutcomeClass.AUTH
          || outcome.kind() == OutcomeClass.SANDBOX) {
        // the provider (or the agent's own budget), not the agent's work: not counted, and the
        // operator wants to know which
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
    release();
    line(after.id() + " " + before.status().key() + " -> " + after.status().key()
        + (after.progress().phase() == null ? "" : " (" + after.progress().phase() + ")"));
  }

  @Override
  public void providerLimit(String message) {
    release();
    held = message;
  }

  @Override
  public void profilePaused(AgentPauses.Pause pause) {
    String words = held;
    held = null;
    AgentPauses.Pause last = told.put(pause.profile(), pause);
    if (last != null && last.since().equals(pause.since()) && Objects.equals(last.until(), pause.until())) {
      return; // this pause was told already
    }
    line(words != null ? words : pauseText(pause));
  }

  /** {@code claude paused until 10:04:31, usage limit}: the end to the second, in the lines' time. */
  static String pauseText(AgentPauses.Pause pause) {
    return pause.profile() + " paused" + (pause.until() == null ? "" : " until " + TIME.format(pause.until())) + ", "
        + pause.kind().key().replace('_', ' ');
  }

  @Override
  public void pauseEnded(String profile) {
    release();
    told.remove(profile);
  }

  @Override
  public void waiting(String what) {
    release();
    line("waiting: " + TerminalText.oneLine(what));
  }

  @Override
  public void itemAdded(ItemState item) {
    release();
    line(item.id() + " added, follow-up of " + item.origin() + ": " + TerminalText.oneLine(item.definition().title()));
  }

  @Override
  public void summarizationFailed(String itemId, String error) {
    release();
    line(itemId + " summarizing earlier turns failed: " + TerminalText.oneLine(error));
  }

  /** Prints a limit's words that no pause followed. */
  private void release() {
    if (held != null) {
      String words = held;
      held = null;
      line(words);
    }
  }

  /** The run is over: words still held are printed. */
  @Override
  public void close() {
    release();
  }

  private void line(String text) {
    sink.accept(TIME.format(clock.instant()) + " " + TerminalText.safe(text));
  }

  public static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
  }
}
