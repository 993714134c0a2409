package dev.orchestrate.item;

import dev.orchestrate.config.ProjectCommand;
import java.util.List;

/**
 * How a done item's work lands (docs/workspaces.md): integrated into the base branch, or pushed
 * with its pull request and its checks awaited. The scheduler calls it when an item reaches Done,
 * for the items a crash, a deferral or an unblock left to land, and to poll checks. With the shared
 * workspace (the default) nothing lands: the agents worked in the user's checkout. The git
 * implementation lives in {@code landing/}.
 *
 * <p>Called on the scheduler thread only; the slow parts of its work run off it ({@link SlowWork}).
 */
public interface ItemLanding {
  ItemLanding NONE = new ItemLanding() {
  };

  /**
   * Whether a finished item waits in the merge queue ({@link ItemStatus#LANDING}) until its work
   * has landed, rather than being done at once.
   */
  default boolean queues() {
    return false;
  }

  /**
   * The item is recorded as done (or landing): its work lands, its slow part (the integration gates, merge:
   * push's push and pull-request command) left to run off the scheduler thread; a result that
   * {@link IntegrationResult#blocks() blocks} blocks the item.
   *
   * @param gates the gates its work must pass on top of the base branch's tip before the base
   *              moves (the pipeline's {@code integrationGates()}); empty: none
   */
  default SlowWork<IntegrationResult> integrateSlowly(String itemId, String title, List<ProjectCommand> gates) {
    return SlowWork.done(IntegrationResult.NONE);
  }

  /**
   * How many landing items one run of the integration gates may land together
   * ({@code execution.integration_batch}); 1: one at a time.
   */
  default int batchSize() {
    return 1;
  }

  /**
   * Lands {@code items} (in queue order) after one run of their gates on their combined tree, each
   * item's work on top of the one before it; on red, the batch is bisected to find the first item
   * whose work turns it red: the items before it land, it is red, the items after it stay landing
   * for a later batch. The result holds one entry for each item, in order.
   */
  default SlowWork<java.util.Map<String, IntegrationResult>> integrateBatch(List<LandingItem> items) {
    java.util.Map<String, IntegrationResult> none = new java.util.LinkedHashMap<>();
    items.forEach(item -> none.put(item.itemId(), IntegrationResult.NONE));
    return SlowWork.done(none);
  }

  /** As {@link #integrateSlowly}, all of it on this thread. */
  default IntegrationResult integrate(String itemId, String title, List<ProjectCommand> gates) {
    return SlowWork.inline(integrateSlowly(itemId, title, gates));
  }

  /** Done items whose landing is still to do (after a crash, a deferral, an unblock). */
  default List<String> integrationPending() {
    return List.of();
  }

  /**
   * Done items whose failed landing is to be retried now, during the run (merge: push retries a
   * failed push on a backoff); the other modes wait for the next run ({@link #integrationPending}).
   */
  default List<String> retriesDue() {
    return List.of();
  }

  /** Items whose checks (execution.checks) are due for a poll now. */
  default List<String> checksDue() {
    return List.of();
  }

  /** Whether some item awaits its checks (the run waits for them). */
  default boolean awaitingChecks() {
    return false;
  }

  /** The items awaiting their checks, in id order (at most a few dozen: a wait holds a pushed branch each). */
  default List<String> checksWaiting() {
    return List.of();
  }

  /** When the next poll of some item's checks is due, or null when none waits. */
  default java.time.Instant nextChecksPoll() {
    return null;
  }

  /**
   * Polls the item's checks once (execution.checks), its command off the scheduler thread; the
   * result is null when the item awaits none.
   */
  default SlowWork<ChecksReport> checkSlowly(String itemId) {
    return SlowWork.done(null);
  }

  /** As {@link #checkSlowly}, all of it on this thread. */
  default ChecksReport check(String itemId) {
    return SlowWork.inline(checkSlowly(itemId));
  }

  /**
   * Keeps with the item the agent session of its last successful phase, which a red report of its
   * checks continues (with agent.resume), so that a restarted run continues it too; null forgets it.
   */
  default void lastSession(String itemId, LastSession session) {
  }
}
