package dev.orchestrate.scheduler;

import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.item.ChecksReport;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.item.ItemLanding;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.LastSession;
import dev.orchestrate.item.LeaseLostException;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.SlowWork;
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
  private final ItemLanding landing;
  /** The pipelines whose integration gates a done item's work must pass ({@link #gatedBy}). */
  private Map<String, Pipeline> gatesOf = Map.of();
  private final StateRepository store;
  private final Clock clock;
  /**
   * The agent session of each item's last successful phase in this run, by item: a red check that
   * sends the item back to that phase continues it (with agent.resume). Kept with the item's
   * workspace too ({@link ItemLanding#lastSession}), which a restarted run reads. Bounded by the
   * items awaiting their checks or a deferred push: an item integrated any other way leaves it.
   */
  private final Map<String, LastSession> sessions = new java.util.HashMap<>();

  /**
   * The slow commands (a push, a pull-request command, a checks poll) running off the scheduler
   * thread, by item: one at a time per item. Null without an executor (they run inline).
   */
  private final Offload offload;

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

  /** Runs every slow command inline, on the scheduler thread (tests, one-off integration). */
  Integration(ItemWorkspaces workspaces, ItemLanding landing, StateRepository store, Clock clock) {
    this(workspaces, landing, store, clock, null);
  }

  /**
   * @param post hands a finished slow command to the scheduler thread (its inbox), which then calls
   *             {@link #landed}; null: every slow command runs inline
   */
  Integration(ItemWorkspaces workspaces, ItemLanding landing, StateRepository store, Clock clock,
      java.util.function.Consumer<Offload.Done> post) {
    this.workspaces = workspaces;
    this.landing = landing;
    this.store = store;
    this.clock = clock;
    this.offload = post == null ? null : new Offload(post);
  }

  /** Integrates each done item under the integration gates of its pipeline among {@code pipelines}. */
  Integration gatedBy(Map<String, Pipeline> pipelines) {
    this.gatesOf = Map.copyOf(pipelines);
    return this;
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
    integratePending(items, commit, id -> true);
  }

  /** As above; with several runners, only the items this runner could claim ({@code claim}). */
  void integratePending(Map<String, ItemState> items, Predicate<Step> commit, Predicate<String> claim) {
    for (String id : landing.integrationPending()) {
      ItemState item = items.get(id);
      if (item != null && item.status() == ItemStatus.DONE && claim.test(id)) {
        integrate(items.get(id), commit);
      }
    }
  }

  /** Done items whose failed integration is due for its retry now (merge: push's backoff), at any tick. */
  void retryDue(Map<String, ItemState> items, Predicate<Step> commit) {
    retryDue(items, commit, id -> true);
  }

  /** As above; with several runners, only the items this runner could claim ({@code claim}). */
  void retryDue(Map<String, ItemState> items, Predicate<Step> commit, Predicate<String> claim) {
    if (!readDue(retriesReadAt)) {
      return;
    }
    retriesReadAt = clock.instant();
    for (String id : landing.retriesDue()) {
      ItemState item = items.get(id);
      if (item != null && item.status() == ItemStatus.DONE && !running(id) && claim.test(id)) {
        integrate(items.get(id), commit);
      }
    }
  }

  /** Whether a slow command of the item runs now. */
  private boolean running(String itemId) {
    return offload != null && offload.running(itemId);
  }

  /**
   * The item's last phase succeeded and made it done: the attempt's session is the one a red check
   * of its pushed branch continues.
   */
  void succeeded(String itemId, String phase, String profile, AgentOutcome outcome) {
    String id = outcome.session().id();
    if (id != null && profile != null && phase != null) {
      LastSession last = new LastSession(phase,
          new Progress.Resume(profile, id));
      sessions.put(itemId, last);
      landing.lastSession(itemId, last);
    } else {
      sessions.remove(itemId);
      landing.lastSession(itemId, null);
    }
  }

  /**
   * Whether some item awaits its checks (execution.checks), or a push or poll still runs off the
   * scheduler thread: the run waits for them.
   */
  boolean awaitingChecks() {
    return (offload != null && offload.busy()) || landing.awaitingChecks();
  }

  /**
   * Polls the checks of the items whose poll is due (execution.checks), at any tick: green makes
   * the item done, red sends it back to its phase with the report, too many reds or a wait past
   * checks_timeout block it. Returns whether an item changed.
   */
  boolean checksDue(Map<String, ItemState> items, Map<String, Pipeline> pipelines, Predicate<Step> commit) {
    return checksDue(items, pipelines, commit, id -> true);
  }

  /**
   * As above; with several runners, only the items this runner could claim ({@code claim}: it holds
   * their lease, so no other runner polls them meanwhile). Each poll's command runs off the scheduler
   * thread: what it said is applied by {@link #landed} (at once without an executor).
   */
  boolean checksDue(Map<String, ItemState> items, Map<String, Pipeline> pipelines, Predicate<Step> commit,
      Predicate<String> claim) {
    if (!readDue(checksReadAt)) {
      return false;
    }
    checksReadAt = clock.instant();
    boolean changed = false;
    for (String id : landing.checksDue()) {
      ItemState item = items.get(id);
      if (item == null || item.status() != ItemStatus.AWAITING_CHECKS) {
        continue; // unblocked, reset or removed meanwhile: the next push starts a new wait
      }
      if (running(id) || (offload != null && offload.full()) || !claim.test(id)) {
        continue; // polled now, or another runner holds it: not twice at once
      }
      changed |= start(id, landing.checkSlowly(id), Offload.Kind.CHECKS, items, pipelines, commit);
    }
    return changed;
  }

  /**
   * Runs a slow command of the item: off the scheduler thread when there is an executor and the
   * work has a slow part, else at once. Returns whether an item changed (at once only).
   */
  private boolean start(String id, SlowWork<?> work, Offload.Kind kind, Map<String, ItemState> items,
      Map<String, Pipeline> pipelines, Predicate<Step> commit) {
    if (offload != null && work.offThread()) {
      offload.submit(id, work, kind);
      return false;
    }
    for (SlowWork<?> part = work;; part = part.next()) {
      part.run();
      Object result = part.finish();
      if (part.next() == null) {
        return apply(id, kind, result, items, pipelines, commit);
      }
    }
  }

  /**
   * On the scheduler thread, from its inbox: a slow command ended; what it did is recorded and
   * applied (or its next part starts). Returns whether an item changed.
   */
  boolean landed(Offload.Done done, Map<String, ItemState> items, Map<String, Pipeline> pipelines,
      Predicate<Step> commit) {
    if (offload == null || !offload.ended(done)) {
      return false; // not this run's, or already drained
    }
    Object result;
    try {
      result = done.work().finish();
    } catch (RuntimeException e) {
      log.warn("{}: recording what its {} did failed: {}", done.itemId(), done.kind().word, e.getMessage());
      return false; // the persisted wait or retry stays: tried again later
    }
    SlowWork<?> next = done.work().next();
    if (next != null) {
      if (offload.stopping()) {
        return false; // the next part (a pull request after its push) waits for the next run, as a retry
      }
      return start(done.itemId(), next, done.kind(), items, pipelines, commit);
    }
    return apply(done.itemId(), done.kind(), result, items, pipelines, commit);
  }

  private boolean apply(String id, Offload.Kind kind, Object result, Map<String, ItemState> items,
      Map<String, Pipeline> pipelines, Predicate<Step> commit) {
    if (result == null) {
      return false; // stopped: nothing recorded, the persisted wait or retry stays
    }
    ItemState item = items.get(id);
    if (kind == Offload.Kind.CHECKS) {
      return checked(item, (ChecksReport) result, pipelines, commit);
    }
    integrated(id, item, (IntegrationResult) result, commit);
    return true;
  }

  private boolean checked(ItemState item, ChecksReport checks, Map<String, Pipeline> pipelines,
      Predicate<Step> commit) {
    if (item == null || item.status() != ItemStatus.AWAITING_CHECKS || checks.kind().equals("pending")) {
      return false;
    }
    String id = item.id();
    Pipeline pipeline = pipelines.get(item.definition().pipeline());
    Step step = switch (checks.kind()) {
      case "green" -> Transitions.checksGreen(item, checks.message());
      case "red" -> pipeline == null ? Transitions.checksBlocked(item, "checks red, and its pipeline "
          + item.definition().pipeline() + " is gone: " + checks.message())
          : Transitions.checksRed(item, pipeline, checks.phase(), checks.message(), checks.round());
      default -> Transitions.checksBlocked(item, checks.message());
    };
    LastSession last = sessions.remove(id);
    if (last == null) {
      last = checks.last(); // kept with the workspace: a run restarted since the push
    }
    if (last != null) {
      landing.lastSession(id, null); // used now, or never: a new phase success writes the next
    }
    if (last != null && checks.kind().equals("red") && last.phase().equals(step.next().progress().phase())) {
      step = new Step(step.next().with(step.next().progress().withResume(last.resume())), step.events(),
          step.truncatedValues());
    }
    log.info("{}: checks {}", id, checks.kind());
    if (commit.test(step)) {
      if (step.next().status().isTerminal()) {
        workspaces.maintain();
      }
      return true;
    }
    return false;
  }

  /** Asks every slow command to stop (a stop request): their processes get TERM, then KILL. */
  void stop() {
    if (offload != null) {
      offload.stop();
    }
  }

  /**
   * The run's loop ended: a stop (or a halt) cancels the checks polls (polled again by the next
   * run), a stop the pushes too; what still runs is waited for ({@code take} handles the inbox,
   * calling {@link #landed}) up to a few seconds after a stop, and the executor ends.
   */
  void drain(boolean stopping, Runnable take) {
    if (offload == null) {
      return;
    }
    offload.drain(stopping, take);
  }

  private void integrate(ItemState item, Predicate<Step> commit) {
    if (running(item.id())) {
      return; // its push runs now: at most one at a time
    }
    Pipeline pipeline = gatesOf.get(item.definition().pipeline());
    List<ProjectCommand> gates = pipeline == null ? List.of() : pipeline.integrationGates();
    start(item.id(), landing.integrateSlowly(item.id(), item.definition().title(), gates), Offload.Kind.PUSH,
        Map.of(item.id(), item), Map.of(), commit);
  }

  private void integrated(String id, ItemState item, IntegrationResult result, Predicate<Step> commit) {
    if (!result.kind().equals("awaiting_checks") && !result.kind().equals("deferred")) {
      // only a red check continues a session: the map holds the items awaiting theirs (or a push)
      sessions.remove(id);
      landing.lastSession(id, null);
    }
    if (item == null || item.status() != ItemStatus.DONE) {
      log.warn("{}: integrated ({}) while no longer done; its status stays", id, result.kind());
      return;
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
