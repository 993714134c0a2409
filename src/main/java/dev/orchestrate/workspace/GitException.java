package dev.orchestrate.workspace;

/** A git command that failed, timed out or could not be started; the message says which and why. */
public final class GitException extends RuntimeException {
  GitException(String message) {
    super(message);
  }

  GitException(String message, Throwable cause) {
    super(message, cause);
  }
}
