package dev.orchestrate.cli;

import dev.orchestrate.backlog.Problem;
import dev.orchestrate.backlog.ValidationException;
import dev.orchestrate.store.StateLockedException;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Turns domain exceptions into exit codes and one-line messages on stderr. A stack trace is
 * printed only at debug level ({@code -vv} or {@code --log-level debug}).
 */
final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {
  private final OrchestrateCommand root;

  ErrorHandler(OrchestrateCommand root) {
    this.root = root;
  }

  @Override
  public int handleExecutionException(Exception ex, CommandLine cl, CommandLine.ParseResult parseResult) {
    PrintWriter err = cl.getErr();
    int code;
    if (ex instanceof ValidationException v) {
      for (Problem p : v.problems()) {
        err.println("orchestrate: error: " + TerminalText.safe(p.toString()));
      }
      code = ExitCode.USAGE;
    } else if (ex instanceof CliException c) {
      err.println("orchestrate: error: " + TerminalText.safe(c.getMessage()));
      code = c.exitCode();
    } else if (ex instanceof StateLockedException) {
      err.println("orchestrate: error: " + TerminalText.safe(ex.getMessage()));
      code = ExitCode.LOCKED;
    } else {
      String msg = ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage();
      err.println("orchestrate: error: " + TerminalText.safe(oneLine(msg))
          + (root.debug() ? "" : " (run with -vv for details)"));
      code = ExitCode.WORK_FAILED;
    }
    if (root.debug()) {
      ex.printStackTrace(err);
    }
    err.flush();
    return code;
  }

  private static String oneLine(String msg) {
    return msg.replace('\n', ' ').replace('\r', ' ');
  }
}
