package dev.orchestrate.scheduler;

import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.LeaseLostException;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.jobs.AgentOutcome;
import dev.orchestrate.jobs.AgentResult;
import dev.orchestrate.jobs.CommandRun;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.jobs.OutcomeClass;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a run does with the items' workspaces ({@link ItemWorkspaces}: a git worktree per item, or
 * the one shared directory): a successful attempt's work becomes a commit, an ended job's
 * workspace is inspected (an agent that left it blocks its item) and its set-up recorded, a done
 * item is integrated (a conflict blocks it), and a finished item's workspace is kept or pruned by
 * retention. The state changes this asks for (a block) go through the scheduler's commit, given
 * as a {@code Predicate<Step>} that says whether it was written.
 */
final class Integration {
  /** The run's log lines keep the category they always had (log configurations and tests name it). */
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  private final ItemWorkspaces workspaces;
  private final StateRepository store;
  private final Clock clock;
  /**
   * The agent session of each item's last successful phase in this run, by item: a red check that
   * sends the item back to that phase continues it (with agent.resume). Kept in memory only: after
   * a restart the attempt starts fresh. Bounded by the items awaiting their checks or a deferred
   * push: an item integrated any other way leaves it.
   */
  private final Map<String, LastSession> sessions = new java.util.HashMap<>();

  private record LastSession(String phase, dev.orchestrate.item.Progress.Resume resume) {
  }

  /**
   * The stored push retries and checks waits are read at most this often: a tick can come many
   * times a second, and the backoffs and poll intervals they serve are a second or more.
   */
  static final java.time.Duration READ_EVERY = java.time.Duration.ofSeconds(1);
  private java.time.Instant retriesReadAt;
  private java.time.Instant checksReadAt;

  private boolean readDue(java.time.Instant last) {
    return last == null || !clock.instant().isBefore(last.plus(READ_EVERY));
  }

  Integration(ItemWorkspaces workspaces, StateRepository store, Clock clock) {
    this.workspaces = workspaces;
    this.store = store;
    this.clock = clock;
  }

  /** A job's attempt completed: its workspace's work is the item's now. */
  void committed(String itemId) {
    workspaces.committed(itemId);
  }

  /**
   * Looks at a job's workspace once the job ended: returns why the agent left it (it moved the base
   * branch, replaced its worktree), null when it did not. A set-up that ran to the end and passed is
   * recorded, so that it never runs again in this worktree.
   */
  String inspect(JobRequest request, AgentOutcome outcome) {
    String breach = workspaces.inspect(request.itemId());
    List<?> setup = request.steps().setup();
    if (!setup.isEmpty()
        && outcome.checks().stream().filter(c -> c.kind() == CommandRun.Kind.SETUP).count() == setup.size()
        && outcome.checks().stream().allMatch(c -> c.kind() != CommandRun.Kind.SETUP || c.passed())) {
      workspaces.setUp(request.itemId());
    }
    return breach;
  }

  /**
   * A successful attempt's work becomes the item's phase commit (before the job is recorded); a
   * commit that fails turns the attempt into a failed one, retried like any other.
   */
  AgentOutcome commitWork(long jobId, JobRequest request, AgentOutcome outcome, PhaseDef phase) {
    if (outcome.result() != AgentResult.PHASE_COMPLETE && outcome.result() != AgentResult.SUBPHASE_COMPLETE) {
      return outcome;
    }
    try {
      String commit = workspaces.commit(request.itemId(), request.phase(), request.attempt(), jobId,
          outcome.summary());
      if (commit == null && request.workspace() != null && phase != null
          && phase.changes() == PhaseDef.Changes.REQUIRED) {
        return outcome.refutedAs(OutcomeClass.NO_CHANGES, NO_CHANGES);
      }
      return outcome;
    } catch (RuntimeException e) {
      log.warn("{}: could not commit the work of phase {}: {}", request.itemId(), request.phase(), e.getMessage());
      return new AgentOutcome(AgentResult.FAILED, outcome.summary(), "orchestrate could not commit the phase's work: "
          + e.getMessage(), outcome.memories(), outcome.followUps(), outcome.exitCode(), outcome.ending(),
          outcome.elapsed());
    }
  }

  /** The next prompt's Previous Failure after an attempt that changed nothing in a {@code changes: required} phase. */
  static final String NO_CHANGES = "You reported the phase complete, but your worktree is exactly as the attempt "
      + "started: no file was changed, added or removed (files git ignores do not count). This phase requires "
      + "changes (changes: required): make the changes the task asks for, then report again.";

  /**
   * An item that just reached Done is integrated; one that reached Blocked keeps its workspace.
   * Either way the workspaces' retention runs then, so that finished items' worktrees stay within
   * their policy during a long run too (with merge: none every done item keeps one).
   */
  void finished(ItemState item, Predicate<Step> commit) {
    if (item.status() == ItemStatus.DONE) {
      integrate(item, commit);
    } else if (item.status() == ItemStatus.BLOCKED) {
      workspaces.blocked(item.id());
    }
    if (item.status().isTerminal()) {
      workspaces.maintain();
    }
  }

  /** Done items whose integration a crash, a deferral or a conflict left to do (after unblock: done again). */
  void integratePending(Map<String, ItemState> items, Predicate<Step> commit) {
    for (String id : workspaces.integrationPending()) {
      ItemState item = items.get(id);
      if (item != null && item.status() == ItemStatus.DONE) {
        integrate(item, commit);
      }
    }
  }

  /** Done items whose failed integration is due for its retry now (merge: push's backoff), at any tick. */
  void retryDue(Map<String, ItemState> items, Predicate<Step> commit) {
    if (!readDue(retriesReadAt)) {
      return;
    }
    retriesReadAt = clock.instant();
    for (String id : workspaces.retriesDue()) {
      ItemState item = items.get(id);
      if (item != null && item.status() == ItemStatus.DONE) {
        integrate(item, commit);
      }
    }
  }

  /**
   * The item's last phase succeeded and made it done: the attempt's session is the one a red check
   * of its pushed branch continues.
   */
  void succeeded(String itemId, String phase, String profile, AgentOutcome outcome) {
    String id = outcome.session().id();
    if (id != null && profile != null && phase != null) {
      sessions.put(itemId, new LastSession(phase, new dev.orchestrate.item.Progress.Resume(profile, id)));
    } else {
      sessions.remove(itemId);
    }
  }

  /** Whether some item awaits its checks (execution.checks): the run waits for them. */
  boolean awaitingChecks() {
    return workspaces.awaitingChecks();
  }

  /**
   * Polls the checks of the items whose poll is due (execution.checks), at any tick: green makes
   * the item done, red sends it back to its phase with the report, too many reds or a wait past
   * checks_timeout block it. Returns whether an item changed.
   */
  boolean checksDue(Map<String, ItemState> items, Map<String, Pipeline> pipelines, Predicate<Step> commit) {
    if (!readDue(checksReadAt)) {
      return false;
    }
    checksReadAt = clock.instant();
    boolean changed = false;
    for (String id : workspaces.checksDue()) {
      ItemState item = items.get(id);
      if (item == null || item.status() != ItemStatus.AWAITING_CHECKS) {
        continue; // unblocked, reset or removed meanwhile: the next push starts a new wait
      }
      ItemWorkspaces.Checks checks = workspaces.check(id);
      if (checks == null || checks.kind().equals("pending")) {
        continue;
      }
      Pipeline pipeline = pipelines.get(item.definition().pipeline());
      Step step = switch (checks.kind()) {
        case "green" -> Transitions.checksGreen(item, checks.message());
        case "red" -> pipeline == null ? Transitions.checksBlocked(item, "checks red, and its pipeline "
            + item.definition().pipeline() + " is gone: " + checks.message())
            : Transitions.checksRed(item, pipeline, checks.phase(), checks.message(), checks.round());
        default -> Transitions.checksBlocked(item, checks.message());
      };
      LastSession last = sessions.remove(id);
      if (last != null && checks.kind().equals("red") && last.phase().equals(step.next().progress().phase())) {
        step = new Step(step.next().with(step.next().progress().withResume(last.resume())), step.events(),
            step.truncatedValues());
      }
      log.info("{}: checks {}", id, checks.kind());
      if (commit.test(step)) {
        changed = true;
        if (step.next().status().isTerminal()) {
          workspaces.maintain();
        }
      }
    }
    return changed;
  }

  private void integrate(ItemState item, Predicate<Step> commit) {
    ItemWorkspaces.Integration result = workspaces.integrate(item.id(), item.definition().title());
    if (!result.kind().equals("awaiting_checks") && !result.kind().equals("deferred")) {
      // only a red check continues a session: the map holds the items awaiting theirs (or a push)
      sessions.remove(item.id());
    }
    if (result.blocks()) {
      commit.test(Transitions.integrationConflict(item, result.message()));
    } else if (result.kind().equals("awaiting_checks")) {
      commit.test(Transitions.awaitChecks(item, result.message()));
    } else if (result.message() != null) {
      try {
        store.apply(new Step(item, List.of(new Event(item.id(), "workspace." + result.kind(),
            Map.of("message", result.message())))), clock.instant());
      } catch (LeaseLostException e) {
        log.warn("{}: {} not recorded: {}", item.id(), result.message(), e.getMessage());
      }
    }
  }

  /**
   * The pipelines as action selection sees them: with a worktree per item, a destructive phase no
   * longer needs the tree to itself, so it runs alone only if execution.destructive_runs_alone.
   */
  Map<String, Pipeline> selectionPipelines(Map<String, Pipeline> pipelines) {
    if (workspaces.destructiveRunsAlone()) {
      return pipelines;
    }
    Map<String, Pipeline> shared = new LinkedHashMap<>();
    pipelines.forEach((name, p) -> shared.put(name, new Pipeline(name, notDestructive(p.prePhases()),
        notDestructive(p.phases())).withReview(p.review())));
    return shared;
  }

  private static List<PhaseDef> notDestructive(List<PhaseDef> phases) {
    return phases.stream().map(p -> new PhaseDef(p.name(), p.instructions(), p.workflow(), false)).toList();
  }
}
