package dev.orchestrate.cli;

import dev.orchestrate.backlog.Problem;
import dev.orchestrate.backlog.ValidationException;
import dev.orchestrate.store.StateLockedException;
import dev.orchestrate.store.StoreInterruptedException;
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
    } else if (ex instanceof StoreInterruptedException) {
      err.println("orchestrate: error: " + TerminalText.safe(ex.getMessage()));
      code = ExitCode.INTERRUPTED;
    } else if (ex instanceof StateLockedException) {
      err.println("orchestrate: error: " + TerminalText.safe(ex.getMessage()));
      code = ExitCode.LOCKED;
    } else {
      String msg = withIoCause(ex);
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

  private static String oneLine(String msg) {
    return msg.replace('\n', ' ').replace('\r', ' ');
  }
}
