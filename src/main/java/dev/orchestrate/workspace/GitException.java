package dev.orchestrate.workspace;

import dev.orchestrate.error.OrchestrateException;

/** A git command that failed, timed out or could not be started; the message says which and why. */
public final class GitException extends OrchestrateException {
  GitException(String message) {
    super(Kind.FAILED, message);
  }

  GitException(String message, Throwable cause) {
    super(Kind.FAILED, message, cause);
  }
}
