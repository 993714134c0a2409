package dev.orchestrate.cli;

import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.state.StateLockedException;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.state.StoreInterruptedException;
import dev.orchestrate.yaml.Problem;
import dev.orchestrate.yaml.ValidationException;
import java.io.PrintWriter;
import java.util.List;

/**
 * Turns domain exceptions into exit codes and one-line messages on stderr. A stack trace is
 * printed only at debug level ({@code -vv} or {@code --log-level debug}).
 */
final class ErrorHandler {
  /** How the command line chooses another state directory, added where the state suggests one. */
  static final String ANOTHER_STATE = " (--state or ORCHESTRATE_STATE)";

  /** The problems of one file shown at most; the rest are counted in one more line. */
  static final int MAX_PROBLEMS = 50;
  /** The longest error line: values are quoted short, this bounds paths and library messages. */
  static final int MAX_LINE_CHARS = 2_000;

  private final OrchestrateCommand root;

  ErrorHandler(OrchestrateCommand root) {
    this.root = root;
  }

  /** The message of {@code ex} on {@code err}, and its exit code ({@link Picocli}'s path and {@link FastPath}'s). */
  int handle(Exception ex, PrintWriter err) {
    int code;
    if (ex instanceof ValidationException v) {
      List<Problem> problems = v.problems();
      for (Problem p : problems.subList(0, Math.min(problems.size(), MAX_PROBLEMS))) {
        err.println(line(p.toString()));
      }
      if (v.total() > MAX_PROBLEMS) {
        err.println(line(problems.get(0).file() + ": " + (v.total() - Math.min(problems.size(), MAX_PROBLEMS))
            + " more problems not shown; fix the ones above first"));
      }
      code = ExitCode.USAGE;
    } else if (ex instanceof CliException c) {
      err.println(line(c.getMessage()));
      code = c.exitCode();
    } else if (ex instanceof StoreInterruptedException) {
      err.println(line(ex.getMessage()));
      code = ExitCode.INTERRUPTED;
    } else if (ex instanceof StoreException s && s.suggestsAnotherState()) {
      err.println(line(withIoCause(ex) + ANOTHER_STATE) + (root.debug() ? "" : " (run with -vv for details)"));
      code = ExitCode.WORK_FAILED;
    } else if (ex instanceof StateLockedException) {
      err.println(line(ex.getMessage()));
      code = ExitCode.LOCKED;
    } else {
      err.println(line(withIoCause(ex)) + (root.debug() ? "" : " (run with -vv for details)"));
      code = ExitCode.WORK_FAILED;
    }
    if (root.debug()) {
      ex.printStackTrace(err);
    }
    err.flush();
    return code;
  }

  /** {@code orchestrate: error: <message>}, one line of bounded length whatever the message holds. */
  static String line(String message) {
    return "orchestrate: error: " + TerminalText.safe(Quote.line(message == null ? "" : message.strip(),
        MAX_LINE_CHARS));
  }

  /**
   * The message, plus the I/O failure under it when the message does not say it already ("could
   * not prepare job directory …" says where, its cause says why: "No space left on device").
   */
  static String withIoCause(Exception ex) {
    String msg = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
    for (Throwable c = ex.getCause(); c != null; c = c.getCause()) {
      if (c instanceof java.io.IOException io && io.getMessage() != null) {
        if (!msg.contains(io.getMessage())) {
          msg += ": " + io.getMessage();
        }
        if (io.getMessage().contains("No space left on device")) {
          msg += " (the disk is full: free space there and run the command again; everything recorded before is kept)";
        }
        break;
      }
    }
    return msg;
  }
}
