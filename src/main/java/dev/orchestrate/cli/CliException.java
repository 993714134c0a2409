package dev.orchestrate.cli;

/** A failure with a message for the user and the exit code that goes with it. */
public final class CliException extends RuntimeException {
  private final int exitCode;

  private CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public static CliException usage(String message) {
    return new CliException(ExitCode.USAGE, message);
  }

  public static CliException failure(String message) {
    return new CliException(ExitCode.WORK_FAILED, message);
  }

  public int exitCode() {
    return exitCode;
  }
}
