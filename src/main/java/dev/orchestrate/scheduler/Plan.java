package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * What {@code run --dry-run} prints: the phases a run would execute, in order, if every phase
 * succeeded at its first attempt. A pure simulation of the run loop with {@link ActionSelection}:
 * each wave is the set of jobs started together (at most {@code max_concurrent}); all of a wave's
 * jobs then succeed and the next wave is selected. Nothing is written and nothing is spawned.
 *
 * @param steps     the phase executions, in start order
 * @param untouched listed items left unfinished (held by the filter, a blocked dependency, or
 *                  the phase cap), in backlog order
 * @param capped    true when the phase cap ended the plan before the work did
 */
public record Plan(List<PlanStep> steps, List<String> untouched, boolean capped) {

  /** One phase execution: {@code wave} counts from 1; jobs of one wave run at the same time. */
  public record PlanStep(int wave, String itemId, String phase, boolean prePhase, boolean destructive) {
  }

  private static final AgentOutcome SUCCESS = new AgentOutcome(AgentResult.PHASE_COMPLETE, "", "",
      List.of(), List.of(), OptionalInt.of(0), AgentOutcome.Ending.EXITED, Duration.ZERO);

  /**
   * The items as the run would see them after syncing {@code backlog} into {@code stored}: known
   * ids keep their progress and take the file's definition, new ids are appended with their
   * status hint, ids the file no longer lists are kept but not run (follow-ups stay listed).
   */
  public static List<ItemState> preview(List<ItemState> stored, List<BacklogItem> backlog) {
    Map<String, BacklogItem> listed = new LinkedHashMap<>();
    for (BacklogItem item : backlog) {
      listed.put(item.id(), item);
    }
    List<ItemState> out = new ArrayList<>();
    long seq = 0;
    for (ItemState item : stored) {
      BacklogItem def = listed.remove(item.id());
      boolean inBacklog = def != null || item.origin() != null;
      out.add(new ItemState(def != null ? def : item.definition(), item.seq(), inBacklog, item.progress(),
          item.origin()));
      seq = Math.max(seq, item.seq());
    }
    for (BacklogItem def : listed.values()) {
      out.add(new ItemState(def, ++seq, true, Progress.initial(def.initialStatus())));
    }
    return out;
  }

  /** Simulates the run; at most {@code phaseCap} steps. */
  public static Plan simulate(List<ItemState> items, Map<String, Pipeline> pipelines, int maxWip,
      int maxConcurrent, ItemFilter filter, int phaseCap) {
    SelectionIndex now = new SelectionIndex();
    for (ItemState item : items) {
      now.put(item.id(), item);
    }
    ItemFilter pinned = filter.asOfRunStart(items);
    List<PlanStep> steps = new ArrayList<>();
    boolean capped = false;
    for (int wave = 1;; wave++) {
      if (pinned.hasTargets() && pinned.targetsFinished(now)) {
        break;
      }
      for (ItemState orphan : now.orphans(pipelines, pinned)) {
        now.put(orphan.id(), Transitions.block(orphan, "unknown pipeline").next());
      }
      List<Action> actions = ActionSelection.select(
          now.frontier(pipelines, maxWip, maxConcurrent, Map.of(), pinned, java.util.Set.of()), now);
      Map<String, Pipeline> started = new HashMap<>();
      for (Action action : actions) {
        ItemState item = now.get(action.itemId());
        Pipeline pipeline = pipelines.get(item.definition().pipeline());
        if (action instanceof Action.RunPhase run) {
          if (steps.size() >= phaseCap) {
            capped = true;
            continue;
          }
          steps.add(new PlanStep(wave, item.id(), run.phase(), item.status() == ItemStatus.SCOPING, run.destructive()));
          started.put(item.id(), pipeline);
        } else if (action instanceof Action.Realign) {
          now.put(item.id(), Transitions.realign(item, pipeline).next());
        } else {
          now.put(item.id(), Transitions.advance(item, pipeline).next());
        }
      }
      if (started.isEmpty() && (capped || actions.stream().allMatch(a -> a instanceof Action.RunPhase))) {
        break;
      }
      for (Map.Entry<String, Pipeline> e : started.entrySet()) {
        ItemState item = now.get(e.getKey());
        now.put(item.id(), Transitions.afterAttempt(item, e.getValue(), SUCCESS, 0).next());
      }
    }
    List<String> untouched = new ArrayList<>();
    for (ItemState item : now.values()) {
      if (item.inBacklog() && !item.status().isTerminal()) {
        untouched.add(item.id());
      }
    }
    return new Plan(steps, untouched, capped);
  }
}
