package dev.orchestrate.item;

/**
 * A write to an item failed its condition: another runner took the item over (this runner's
 * heartbeat was older than the lease timeout) or changed it since this runner claimed it. Nothing
 * was written; the item is the other runner's now.
 */
public final class LeaseLostException extends RuntimeException {
  private final String itemId;

  public LeaseLostException(String itemId, String message) {
    super(message);
    this.itemId = itemId;
  }

  /** The item this runner no longer holds. */
  public String itemId() {
    return itemId;
  }
}
