package dev.orchestrate.cli;

import dev.orchestrate.error.OrchestrateException;

/** A failure the command line itself found (a flag, a file it was given), with its kind. */
public final class CliException extends OrchestrateException {
  private CliException(Kind kind, String message) {
    super(kind, message);
  }

  public static CliException usage(String message) {
    return new CliException(Kind.USAGE, message);
  }

  public static CliException failure(String message) {
    return new CliException(Kind.FAILED, message);
  }
}
