package dev.orchestrate.item;

/**
 * The result of landing a done item ({@link ItemLanding#integrateSlowly}).
 *
 * @param kind    none (shared workspace), integrated, skipped (merge: none), pushed (merge: push),
 *                awaiting_checks, deferred, conflict, refused (the worktree was replaced: nothing is
 *                integrated from it), push_failed (merge: push failed too many times in a row),
 *                integration_failed (a gate was red on the work as it would land)
 * @param message for the event log and the operator; the block reason for a conflict or a refusal
 */
public record IntegrationResult(String kind, String message) {
  public static final IntegrationResult NONE = new IntegrationResult("none", null);

  /**
   * Whether the item is blocked with the message: a conflict, a worktree orchestrate refuses to
   * use, a push that kept failing, or a red integration gate.
   */
  public boolean blocks() {
    return kind.equals("conflict") || kind.equals("refused") || kind.equals("push_failed")
        || kind.equals("integration_failed");
  }
}
