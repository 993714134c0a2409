package dev.orchestrate.outcome;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * One run of a project command by a job (docs/verification.md): a {@code workspace.setup} step
 * before the agent, or a {@code verify:} gate after it.
 *
 * @param kind     set-up or gate
 * @param name     the command's name in the config
 * @param exitCode its exit code; null when it never started or was stopped
 * @param ending   how it ended
 * @param elapsed  how long it ran
 * @param log      its output (stdout and stderr, capped), in the job's directory
 * @param tail     the end of its output, secrets masked, control characters escaped, within
 *                 {@link #TAIL_MAX_CHARS}: what the next prompt quotes
 */
public record CommandRun(Kind kind, String name, Integer exitCode, Ending ending, Duration elapsed, Path log,
    String tail) {
  /** The most of a command's output that goes into a prompt or a block reason. */
  public static final int TAIL_MAX_CHARS = 4_000;

  public CommandRun {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(ending, "ending");
    Objects.requireNonNull(elapsed, "elapsed");
    tail = tail == null ? "" : tail;
  }

  public boolean passed() {
    return ending == Ending.PASSED;
  }

  public CommandRun withTail(String text) {
    return new CommandRun(kind, name, exitCode, ending, elapsed, log, text);
  }

  /** What the command was. */
  public enum Kind {
    SETUP, GATE;

    public String key() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Kind of(String key) {
      return key.equals("setup") ? SETUP : key.equals("gate") ? GATE : null;
    }
  }

  /** How it ended. */
  public enum Ending {
    /** Exit 0. */
    PASSED,
    /** A non-zero exit. */
    FAILED,
    /** Stopped after its timeout. */
    TIMED_OUT,
    /** Its program could not be started. */
    SPAWN_FAILED,
    /** Stopped by a cancel of its job (Ctrl-C). */
    CANCELLED;

    public String key() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Ending of(String key) {
      for (Ending e : values()) {
        if (e.key().equals(key)) {
          return e;
        }
      }
      return null;
    }
  }

  /** One line for a prompt or a reason: {@code gate 'tests' failed (exit 1) after 3.2s}. */
  public String headline() {
    String what = (kind == Kind.GATE ? "gate '" : "workspace.setup '") + name + "'";
    String how = switch (ending) {
      case PASSED -> "passed";
      case FAILED -> "failed (exit " + exitCode + ")";
      case TIMED_OUT -> "timed out";
      case SPAWN_FAILED -> "could not start";
      case CANCELLED -> "was cancelled";
    };
    return what + " " + how + " after " + seconds(elapsed);
  }

  private static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms < 60_000 ? String.format(Locale.ROOT, "%.1fs", ms / 1000.0)
        : (ms / 60_000) + "m" + ((ms / 1000) % 60) + "s";
  }
}
