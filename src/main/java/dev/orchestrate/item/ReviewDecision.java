package dev.orchestrate.item;

import java.time.Instant;

/**
 * A reviewer's decision on an item awaiting review, queued for the run that holds the state
 * (docs/review.md): {@code approve} or {@code reject} from the command line, while a run works on
 * the items. The run applies it through its own commit path and deletes it in the same transaction
 * ({@link StateRepository#applyDecision}).
 *
 * @param id          the queue's own id (0 before it is queued)
 * @param itemId      the item decided on
 * @param approve     true: approve; false: reject
 * @param notes       a rejection's notes for the agent (null for an approval)
 * @param phase       the phase a rejection sends the item back to (null: its pipeline's last phase)
 * @param requestedAt when the command queued it
 */
public record ReviewDecision(long id, String itemId, boolean approve, String notes, String phase,
    Instant requestedAt) {

  /** The stored word for the decision. */
  public String kind() {
    return approve ? "approve" : "reject";
  }
}
