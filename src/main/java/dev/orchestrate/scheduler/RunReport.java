package dev.orchestrate.scheduler;

import dev.orchestrate.item.RunFigures;
import dev.orchestrate.item.SyncResult;

import dev.orchestrate.outcome.Usage;
import java.time.Duration;
import java.util.List;

/**
 * The outcome of one {@code run} session.
 *
 * @param done             items done now (all time, items still in the backlog)
 * @param blocked          items blocked now
 * @param remaining        items neither done nor blocked
 * @param doneThisRun      items that reached done during this run
 * @param blockedThisRun   items that became blocked during this run
 * @param interruptedJobs  jobs a previous, crashed run left running (recorded as interrupted)
 * @param figures          the phase-summary map and job table of this session, measured
 * @param usage            the tokens and cost this run's agents reported, summed; unknown figures null
 * @param budget           the budget it ran under
 * @param runnerId         this runner's id when several runners share the state; null when it held it alone
 * @param haltDetail       what the halt reason does not say by itself (which agent hit its usage
 *                         limit and when it resets, the provider's refusal); null when nothing
 * @param unselected       the ids of {@code waiting} that the run's {@code --only} criteria leave out
 *                         (empty without them): not the run's to do, as opposed to the rest
 * @param awaitingReview   the ids of items awaiting review (review: required), which wait for
 *                         {@code approve} or {@code reject}, not for a run; counted in neither
 *                         {@code done}, {@code blocked} nor {@code remaining}
 * @param awaitingChecks   the ids of items awaiting their checks (execution.checks) when the run
 *                         ended; counted in neither {@code done}, {@code blocked} nor {@code remaining}
 * @param landing          the ids of items still landing (in the merge queue) when the run ended: a
 *                         landing the run deferred, or a stop; the next run lands them; counted in
 *                         neither {@code done}, {@code blocked} nor {@code remaining}
 * @param blockedIds       the ids of the blocked items ({@code blocked} of them), in backlog order
 * @param blockedSelected  how many of {@code blockedIds} the run may work on (its {@code --only} and
 *                         {@code --target} admit them): work this run could not finish
 * @param waitsOn          the unmet dependencies of the remaining items the run may work on, each
 *                         once with its status ({@code WRK-3 (awaiting_review)}, {@code WRK-4 (not
 *                         selected)}): what a {@code waiting_on_blocked} halt waits on
 */
public record RunReport(
    long runId,
    int total,
    int done,
    int blocked,
    int remaining,
    int doneThisRun,
    int blockedThisRun,
    int phasesRun,
    HaltReason haltReason,
    Duration duration,
    int interruptedJobs,
    SyncResult sync,
    List<String> waiting,
    RunFigures figures,
    Usage usage,
    Budget budget,
    String runnerId,
    String haltDetail,
    java.util.Map<String, Integer> limited,
    List<String> unselected,
    List<String> awaitingReview,
    List<String> awaitingChecks,
    List<String> landing,
    List<String> blockedIds,
    int blockedSelected,
    List<String> waitsOn) {

  public RunReport {
    blockedIds = blockedIds == null ? List.of() : List.copyOf(blockedIds);
    waitsOn = waitsOn == null ? List.of() : List.copyOf(waitsOn);
    landing = landing == null ? List.of() : List.copyOf(landing);
    awaitingChecks = awaitingChecks == null ? List.of() : List.copyOf(awaitingChecks);
    awaitingReview = awaitingReview == null ? List.of() : List.copyOf(awaitingReview);
    waiting = List.copyOf(waiting);
    unselected = unselected == null ? List.of() : List.copyOf(unselected);
    usage = usage == null ? Usage.UNKNOWN : usage;
    budget = budget == null ? Budget.NONE : budget;
    limited = limited == null ? java.util.Map.of()
        : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(limited));
  }
}
