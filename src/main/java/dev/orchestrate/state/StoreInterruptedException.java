package dev.orchestrate.state;

/**
 * A stop (Ctrl-C, SIGTERM) came while the state database was locked by another process and a
 * change waited to be recorded: the change was not recorded (a resume treats it as a crash would).
 */
public final class StoreInterruptedException extends StoreException {
  public StoreInterruptedException(String message) {
    super(Kind.INTERRUPTED, message);
  }
}
