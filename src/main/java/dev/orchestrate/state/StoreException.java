package dev.orchestrate.state;

/** A failure of the state database that the user has to act on (corrupt file, newer schema, disk full). */
public class StoreException extends RuntimeException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }
}
