package dev.orchestrate.error;

/**
 * The root of the failures orchestrate reports to its user: each says what went wrong in words
 * fit for one line on stderr, and of which {@link Kind} it is, which alone decides the exit code.
 * The command line maps kinds to exit codes in one place ({@code cli/ErrorHandler}); a command
 * catches a domain exception only where its context changes what it means (a git failure while a
 * run checks its project is a usage error; while it integrates, a failed run).
 *
 * <p>Every exception type visible outside its class extends it, those the code that throws them
 * also catches too (a lease lost between two statements, a breach a guard turns into a blocked
 * item, a summarizer that failed and fell back), so that one that ever escapes still has its exit
 * code. Not under it: the JDK's own for programming errors ({@link IllegalArgumentException},
 * {@link IllegalStateException}): those are bugs, shown with the generic message and exit 1.
 */
public abstract class OrchestrateException extends RuntimeException {
  /** What kind of failure: what the user has to do about it, and so the exit code. */
  public enum Kind {
    /** Bad input: a flag, a file, a setting, an id; nothing was done. Exit 2. */
    USAGE,
    /** The work failed (the state, git, a command): exit 1. */
    FAILED,
    /** Another process holds the state: exit 3. */
    LOCKED,
    /** A stop (Ctrl-C, TERM) ended the command: exit 130. */
    INTERRUPTED
  }

  private final Kind kind;

  protected OrchestrateException(Kind kind, String message) {
    super(message);
    this.kind = java.util.Objects.requireNonNull(kind, "kind");
  }

  protected OrchestrateException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = java.util.Objects.requireNonNull(kind, "kind");
  }

  public final Kind kind() {
    return kind;
  }
}
