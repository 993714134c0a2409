package dev.orchestrate.notify;

import dev.orchestrate.error.OrchestrateException;

/**
 * A document a sink could not deliver, after its retries; the message is what {@code stats} shows.
 * Caught by the sink's delivery thread, which records it; never reaches the command line.
 */
public final class DeliveryException extends OrchestrateException {
  private static final long serialVersionUID = 1L;

  public DeliveryException(String message) {
    super(Kind.FAILED, message);
  }
}
