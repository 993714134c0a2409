package dev.orchestrate.item;

import dev.orchestrate.error.OrchestrateException;

/**
 * A write to an item failed its condition: another runner took the item over (this runner's
 * heartbeat was older than the lease timeout) or changed it since this runner claimed it. Nothing
 * was written; the item is the other runner's now. The scheduler catches it where it writes; one
 * that reaches the command line is a failed run (exit 1).
 */
public final class LeaseLostException extends OrchestrateException {
  private final String itemId;

  public LeaseLostException(String itemId, String message) {
    super(Kind.FAILED, message);
    this.itemId = itemId;
  }

  /** The item this runner no longer holds. */
  public String itemId() {
    return itemId;
  }
}
