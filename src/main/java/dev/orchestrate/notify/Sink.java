package dev.orchestrate.notify;

/**
 * Where notifications go: a webhook or a command. {@link #deliver} is called from the sink's own
 * delivery thread, one document at a time; it may block (bounded by the sink's timeouts and
 * retries) and is interrupted when the notifier gives up at close.
 */
public interface Sink {
  /** The configuration it was made from: its name, its type and the events it wants. */
  NotifySink config();

  /**
   * Sends one document, retrying as the sink does.
   *
   * @param event the event (masked)
   * @param deliveryId the document's id, the same on every retry
   * @param json the document
   * @throws DeliveryException when every attempt failed; its message is short and names no secret
   * @throws InterruptedException when the notifier stops waiting
   */
  void deliver(NotificationEvent event, String deliveryId, String json)
      throws DeliveryException, InterruptedException;
}
