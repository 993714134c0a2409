package dev.orchestrate.item;

/**
 * The result of landing a done item ({@link ItemLanding#integrateSlowly}).
 *
 * @param kind    none (shared workspace), integrated, skipped (merge: none), pushed (merge: push),
 *                awaiting_checks, deferred, conflict, refused (the worktree was replaced: nothing is
 *                integrated from it), push_failed (merge: push failed too many times in a row),
 *                integration_failed (a gate was red on the work as it would land)
 * @param message for the event log and the operator; the block reason for a conflict or a refusal;
 *                the gate's report for integration_failed
 * @param round   for integration_failed, how many times the item's gates were red since it last
 *                landed, this time included; else 0
 * @param attempt the gated attempt this result comes from (what was tested, by which gates, how
 *                long), or null when no gate ran
 */
public record IntegrationResult(String kind, String message, int round, Attempt attempt) {
  public static final IntegrationResult NONE = new IntegrationResult("none", null);

  public IntegrationResult(String kind, String message) {
    this(kind, message, 0, null);
  }

  public IntegrationResult(String kind, String message, int round) {
    this(kind, message, round, null);
  }

  /**
   * One gated landing attempt, as recorded in its event.
   *
   * @param baseCommit the base branch's tip the work was rebased onto (or merged with)
   * @param tested     the commit the gates ran on: what would have landed
   * @param gates      each gate run, with how it ended and how long it took
   * @param millis     how long the gates ran, in all
   */
  public record Attempt(String baseCommit, String tested, String gates, long millis) {
  }

  /** This result, from {@code attempt}. */
  public IntegrationResult with(Attempt next) {
    return new IntegrationResult(kind, message, round, next);
  }

  /** Whether the work is where it lands (the base branch, or the remote with nothing to wait for). */
  public boolean landed() {
    return kind.equals("integrated") || kind.equals("pushed") || kind.equals("skipped") || kind.equals("none");
  }

  /**
   * Whether the item is blocked with the message: a conflict, a worktree orchestrate refuses to
   * use, a push that kept failing, or a red integration gate.
   */
  public boolean blocks() {
    return kind.equals("conflict") || kind.equals("refused") || kind.equals("push_failed")
        || kind.equals("integration_failed");
  }
}
