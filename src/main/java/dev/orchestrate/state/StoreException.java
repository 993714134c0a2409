package dev.orchestrate.state;

import dev.orchestrate.error.OrchestrateException;

/**
 * A failure of the state that the user has to act on (corrupt file, newer schema, disk full). The
 * message says what to do in the state's own words; when it ends with the remedy
 * {@link StateDirectory#ELSEWHERE}, the command line adds how to choose another state location.
 */
public class StoreException extends OrchestrateException {
  public StoreException(String message, Throwable cause) {
    super(Kind.FAILED, message, cause);
  }

  public StoreException(String message) {
    super(Kind.FAILED, message);
  }

  /** A store failure of another kind than {@link Kind#FAILED} (an interrupted wait). */
  protected StoreException(Kind kind, String message) {
    super(kind, message);
  }

  /** Whether one remedy is to use another state directory. */
  public boolean suggestsAnotherState() {
    return getMessage() != null && getMessage().endsWith(StateDirectory.ELSEWHERE);
  }
}
