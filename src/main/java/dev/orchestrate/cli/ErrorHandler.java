package dev.orchestrate.cli;

import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.error.OrchestrateException;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.workspace.GitException;
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
    if (ex instanceof ValidationException v) {
      List<Problem> problems = v.problems();
      for (Problem p : problems.subList(0, Math.min(problems.size(), MAX_PROBLEMS))) {
        err.println(line(p.toString()));
      }
      if (v.total() > MAX_PROBLEMS) {
        err.println(line(problems.get(0).file() + ": " + (v.total() - Math.min(problems.size(), MAX_PROBLEMS))
            + " more problems not shown; fix the ones above first"));
      }
    } else if (ex instanceof StoreException s && s.suggestsAnotherState()) {
      err.println(line(withIoCause(ex) + ANOTHER_STATE) + (root.debug() ? "" : " (run with -vv for details)"));
    } else if (ex instanceof OrchestrateException && !(ex instanceof StoreException) && !(ex instanceof GitException)) {
      err.println(line(ex.getMessage())); // says what to do in its own words
      // (a store's or git's failure may stand on an I/O cause the message does not name: below)
    } else {
      err.println(line(withIoCause(ex)) + (root.debug() ? "" : " (run with -vv for details)"));
    }
    int code = ex instanceof OrchestrateException o ? exitCode(o.kind()) : ExitCode.WORK_FAILED;
    if (root.debug()) {
      ex.printStackTrace(err);
    }
    err.flush();
    return code;
  }

  /** The exit code of a kind of failure: the one place they are mapped (README, "Exit codes"). */
  static int exitCode(OrchestrateException.Kind kind) {
    return switch (kind) {
      case USAGE -> ExitCode.USAGE;
      case FAILED -> ExitCode.WORK_FAILED;
      case LOCKED -> ExitCode.LOCKED;
      case INTERRUPTED -> ExitCode.INTERRUPTED;
    };
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
