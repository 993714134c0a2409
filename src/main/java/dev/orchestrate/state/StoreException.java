package dev.orchestrate.state;

/**
 * A failure of the state that the user has to act on (corrupt file, newer schema, disk full). The
 * message says what to do in the state's own words; when it ends with the remedy
 * {@link StateDirectory#ELSEWHERE}, the command line adds how to choose another state location.
 */
public class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }

  /** Whether one remedy is to use another state directory. */
  public boolean suggestsAnotherState() {
    return getMessage() != null && getMessage().endsWith(StateDirectory.ELSEWHERE);
  }
}
