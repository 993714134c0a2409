package dev.orchestrate.notify;

/** A document a sink could not deliver, after its retries; the message is what {@code stats} shows. */
public final class DeliveryException extends Exception {
  private static final long serialVersionUID = 1L;

  public DeliveryException(String message) {
    super(message, null, false, false);
  }
}
