package dev.orchestrate.scheduler;

import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.item.ChecksReport;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.item.ItemLanding;
import dev.orchestrate.item.ItemRepository;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.LandingItem;
import dev.orchestrate.item.LastSession;
import dev.orchestrate.item.LeaseLostException;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.SlowWork;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.OutcomeClass;
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
  private final ItemRepository store;
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
  Integration(ItemWorkspaces workspaces, ItemLanding landing, ItemRepository store, Clock clock) {
    this(workspaces, landing, store, clock, null);
  }

  /**
   * @param post hands a finished slow command to the scheduler thread (its inbox), which then calls
   *             {@link #landed}; null: every slow command runs inline
   */
  Integration(ItemWorkspaces workspaces, ItemLanding landing, ItemRepository store, Clock clock,
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

  /** One local integration at a time: each moves the base branch (issue 46: one integration per base). */
  private final Object integrating = new Object();
  /**
   * Where the worktrees' retention runs; null: on the scheduler thread. With it, a landing's local
   * integration is made off the scheduler thread too ({@link SlowWork#madeOffThread}).
   */
  private WorkspaceWorkers workers;

  /** Runs the worktrees' retention on {@code workers}, never on the scheduler thread. */
  Integration sweepingOn(WorkspaceWorkers workers) {
    this.workers = workers;
    return this;
  }

  /** The worktrees' retention: finished items' worktrees past their policy removed. */
  private void maintain() {
    if (workers != null) {
      workers.sweep(workspaces::maintain);
    } else {
      workspaces.maintain();
    }
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
  AgentOutcome commitWork(long jobId, JobRequest request, AgentOutcome outcome, Pipeline pipeline, PhaseDef phase) {
    return commit(jobId, request, outcome, pipeline, phase).apply(outcome);
  }

  /**
   * What the end of a job found in its worktree, looked at off the scheduler thread
   * ({@link #lookAfter}): why the agent left it (null: it did not), and what the phase commit makes
   * of the outcome as the scheduler counts it (identity: as it was).
   */
  record Looked(String breach, java.util.function.UnaryOperator<AgentOutcome> committed) {
  }

  /**
   * On a {@link WorkspaceWorkers} thread, once job {@code jobId}'s agent ended: {@link #inspect}, then,
   * for an attempt that the scheduler will take as answered, the phase commit of {@link #commitWork}.
   * Whether the scheduler takes it as answered depends on a stop only for a failed attempt, which
   * commits nothing either way; an attempt taken otherwise leaves a commit it never confirms, as a
   * crash would, which the next attempt's reset drops.
   */
  Looked lookAfter(long jobId, JobRequest request, AgentOutcome outcome, Pipeline pipeline, PhaseDef phase) {
    String breach = inspect(request, outcome);
    if (breach != null || JobEnds.Ending.of(outcome, false) != JobEnds.Ending.ANSWERED) {
      return new Looked(breach, java.util.function.UnaryOperator.identity());
    }
    return new Looked(null, commit(jobId, request, outcome, pipeline, phase));
  }

  private java.util.function.UnaryOperator<AgentOutcome> commit(long jobId, JobRequest request, AgentOutcome outcome,
      Pipeline pipeline, PhaseDef phase) {
    if (outcome.result() != AgentResult.PHASE_COMPLETE && outcome.result() != AgentResult.SUBPHASE_COMPLETE) {
      return java.util.function.UnaryOperator.identity();
    }
    try {
      if (pipeline != null && phase != null && !phase.changesGates() && request.workspace() != null) {
        List<String> changed = workspaces.changedAmong(request.itemId(), ProtectedFiles.scripts(pipeline),
            pipeline.verifyProtected());
        if (!changed.isEmpty()) {
          log.warn("{}: phase {} changed protected files: {}", request.itemId(), request.phase(), changed);
          String failure = ProtectedFiles.failure(changed);
          return o -> o.refutedAs(OutcomeClass.PROTECTED_CHANGED, failure);
        }
      }
      String commit = workspaces.commit(request.itemId(), request.phase(), request.attempt(), jobId,
          outcome.summary());
      if (commit == null && request.workspace() != null && phase != null
          && phase.changes() == PhaseDef.Changes.REQUIRED) {
        return o -> o.refutedAs(OutcomeClass.NO_CHANGES, NO_CHANGES);
      }
      return java.util.function.UnaryOperator.identity();
    } catch (dev.orchestrate.item.ProtectedFilesCommitted e) {
      log.warn("{}: phase {} committed changes to protected files: {}", request.itemId(), request.phase(), e.paths());
      String failure = ProtectedFiles.failure(e.paths());
      return o -> o.refutedAs(OutcomeClass.PROTECTED_CHANGED, failure);
    } catch (RuntimeException e) {
      log.warn("{}: could not commit the work of phase {}: {}", request.itemId(), request.phase(), e.getMessage());
      String failure = "orchestrate could not commit the phase's work: " + e.getMessage();
      return o -> new AgentOutcome(AgentResult.FAILED, o.summary(), failure, o.memories(), o.followUps(),
          o.exitCode(), o.ending(), o.elapsed());
    }
  }

  /** The next prompt's Previous Failure after an attempt that changed nothing in a {@code changes: required} phase. */
  static final String NO_CHANGES = "You reported the phase complete, but your worktree is exactly as the attempt "
      + "started: no file was changed, added or removed (files git ignores do not count). This phase requires "
      + "changes (changes: required): make the changes the task asks for, then report again.";

  /**
   * An item that just reached Done is integrated (one that is landing waits for its turn in the
   * queue, {@link #landDue}); one that reached Blocked keeps its workspace. Either way the
   * workspaces' retention runs then, so that finished items' worktrees stay within their policy
   * during a long run too (with merge: none every done item keeps one).
   */
  void finished(ItemState item, Predicate<Step> commit) {
    if (item.status() == ItemStatus.DONE) {
      integrate(item, commit);
    } else if (item.status() == ItemStatus.BLOCKED) {
      workspaces.blocked(item.id());
    }
    if (item.status().isTerminal()) {
      maintain();
    }
  }

  /** Whether a finished item goes to the merge queue (landing) rather than straight to done. */
  boolean queues() {
    return landing.queues();
  }

  /**
   * The merge queue (docs/verification.md, "What lands"): when no landing runs, the first landing
   * item in order (priority, then readiness) that was not deferred in this run and that this runner
   * could claim starts landing, off the scheduler thread. One at a time: a run has one base branch,
   * and each landing is gated on the base's tip, which the one before it may have moved. Returns
   * whether an item changed (at once, without an executor).
   */
  boolean landDue(SelectionIndex items, Predicate<Step> commit, Predicate<String> claim) {
    if (landingNow != null || !landing.queues()) {
      return false;
    }
    int size = landing.batchSize();
    List<ItemState> next = new java.util.ArrayList<>();
    for (ItemState item : items.landingQueue()) {
      if (next.size() == size) {
        break;
      }
      if (deferred.contains(item.id()) || running(item.id()) || !claim.test(item.id())) {
        continue;
      }
      next.add(items.get(item.id()));
    }
    if (next.isEmpty()) {
      return false;
    }
    landingNow = next.get(0).id();
    if (next.size() == 1) {
      return integrate(next.get(0), commit, items);
    }
    List<LandingItem> batch = next.stream().map(item -> {
      Pipeline pipeline = gatesOf.get(item.definition().pipeline());
      return new LandingItem(item.id(), item.definition().title(),
          pipeline == null ? List.of() : pipeline.integrationGates());
    }).toList();
    return start(landingNow, workers == null ? landing.integrateBatch(batch) : SlowWork.madeOffThread(() -> {
      synchronized (integrating) {
        return landing.integrateBatch(batch);
      }
    }), Offload.Kind.BATCH, items, Map.of(), commit);
  }

  /**
   * Whether the run has landing to wait for: a landing under way, or an item in the queue that this
   * run has not deferred (a deferral, like a user's uncommitted change in the way, waits for the next run).
   */
  boolean landingAhead(SelectionIndex items) {
    if (landingNow != null) {
      return true;
    }
    if (!landing.queues()) {
      return false;
    }
    for (ItemState item : items.landingQueue()) {
      if (!deferred.contains(item.id())) {
        return true;
      }
    }
    return false;
  }

  /** What the run waits for while only landings and checks are left: said to the operator. */
  String waitingFor(SelectionIndex items) {
    List<String> parts = new java.util.ArrayList<>();
    if (landingNow != null) {
      parts.add("landing " + landingNow + " (its integration gates, then the base branch)");
    }
    List<String> queued = items.landingQueue().stream().map(ItemState::id)
        .filter(id -> !id.equals(landingNow) && !deferred.contains(id)).toList();
    if (!queued.isEmpty()) {
      parts.add("the merge queue: " + String.join(", ", queued.subList(0, Math.min(10, queued.size())))
          + (queued.size() > 10 ? " and " + (queued.size() - 10) + " more" : ""));
    }
    if (landing.awaitingChecks()) {
      java.time.Instant next = landing.nextChecksPoll();
      parts.add("the checks of " + String.join(", ", landing.checksWaiting()) + (next == null ? ""
          : " (next poll " + java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss 'UTC'")
              .withZone(java.time.ZoneOffset.UTC).format(next) + ")"));
    } else if (offload != null && offload.busy() && landingNow == null) {
      parts.add("a push or checks poll to finish");
    }
    return parts.isEmpty() ? "landings and checks to finish" : String.join("; ", parts);
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
      if (item != null && (item.status() == ItemStatus.DONE || item.status() == ItemStatus.LANDING) && !running(id)
          && landingNow == null && claim.test(id)) {
        deferred.remove(id);
        if (item.status() == ItemStatus.LANDING) {
          landingNow = id;
        }
        integrate(items.get(id), commit, items);
      }
    }
  }

  /** The item whose landing runs now (the queue lands one at a time), or null. */
  private String landingNow;
  /** Landing items this run deferred (tried, and left for the next run). */
  private final java.util.Set<String> deferred = new java.util.HashSet<>();

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
      result = done.finished().get();
    } catch (RuntimeException e) {
      log.warn("{}: recording what its {} did failed: {}", done.itemId(), done.kind().word, e.getMessage());
      if (done.itemId().equals(landingNow)) {
        landingNow = null; // the queue goes on; the item is landed again by the next run
        deferred.add(done.itemId());
      }
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
    if (kind == Offload.Kind.BATCH) {
      ((Map<?, ?>) result).forEach((key, value) -> integrated((String) key, items.get((String) key),
          (IntegrationResult) value, commit));
      if (id.equals(landingNow)) {
        landingNow = null; // an item of the batch may have been left out of its results
      }
      return true;
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
      case "green", "merged" -> Transitions.checksGreen(item, checks.message());
      case "red" -> pipeline == null ? Transitions.checksBlocked(item, "checks red, and its pipeline "
          + item.definition().pipeline() + " is gone: " + checks.message())
          : Transitions.checksRed(item, pipeline, checks.phase(), checks.message(), checks.round());
      case "changes_requested" -> pipeline == null ? Transitions.checksBlocked(item, "changes requested, and its "
          + "pipeline " + item.definition().pipeline() + " is gone: " + checks.message())
          : Transitions.changesRequested(item, pipeline, checks.phase(), checks.message(), checks.round());
      default -> Transitions.checksBlocked(item, checks.message());
    };
    step = withForgeEvent(step, checks);
    LastSession last = sessions.remove(id);
    if (last == null) {
      last = checks.last(); // kept with the workspace: a run restarted since the push
    }
    if (last != null) {
      landing.lastSession(id, null); // used now, or never: a new phase success writes the next
    }
    boolean back = checks.kind().equals("red") || checks.kind().equals("changes_requested");
    if (last != null && back && step.next().status().isRunningPhases()
        && last.phase().equals(step.next().progress().phase())) {
      step = new Step(step.next().with(step.next().progress().withResume(last.resume())), step.events(),
          step.truncatedValues());
    }
    log.info("{}: checks {}", id, checks.kind());
    if (commit.test(step)) {
      if (step.next().status().isTerminal()) {
        maintain();
      }
      return true;
    }
    return false;
  }

  /**
   * What the forge said, as the item's own event beside its status change: {@code
   * workspace.changes_requested} (the round and the reviews sent back) or {@code workspace.merged}.
   */
  private static Step withForgeEvent(Step step, ChecksReport checks) {
    if (!checks.kind().equals("changes_requested") && !checks.kind().equals("merged")) {
      return step;
    }
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("message", checks.message());
    if (checks.kind().equals("changes_requested")) {
      payload.put("round", checks.round());
    }
    List<Event> events = new java.util.ArrayList<>(step.events());
    events.add(new Event(step.next().id(), "workspace." + checks.kind(), payload));
    return new Step(step.next(), events, step.truncatedValues());
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
    integrate(item, commit, Map.of(item.id(), item));
  }

  /** Starts landing the item; {@code items} is where its state is looked up once the landing ends inline. */
  private boolean integrate(ItemState item, Predicate<Step> commit, Map<String, ItemState> items) {
    if (running(item.id())) {
      return false; // its push runs now: at most one at a time
    }
    Pipeline pipeline = gatesOf.get(item.definition().pipeline());
    List<ProjectCommand> gates = pipeline == null ? List.of() : pipeline.integrationGates();
    return start(item.id(), workers == null ? landing.integrateSlowly(item.id(), item.definition().title(), gates)
        : SlowWork.madeOffThread(() -> {
          synchronized (integrating) { // one local integration at a time: each moves the base branch
            return landing.integrateSlowly(item.id(), item.definition().title(), gates);
          }
        }), Offload.Kind.PUSH, items, Map.of(), commit);
  }

  private void integrated(String id, ItemState item, IntegrationResult result, Predicate<Step> commit) {
    if (id.equals(landingNow)) {
      landingNow = null;
    }
    if (result.kind().equals("deferred")) {
      deferred.add(id);
    }
    if (!result.kind().equals("awaiting_checks") && !result.kind().equals("deferred")) {
      // only a red check continues a session: the map holds the items awaiting theirs (or a push)
      sessions.remove(id);
      landing.lastSession(id, null);
    }
    if (item == null || (item.status() != ItemStatus.DONE && item.status() != ItemStatus.LANDING)) {
      log.warn("{}: integrated ({}) while no longer done or landing; its status stays", id, result.kind());
      return;
    }
    Step step = Transitions.afterLanding(item, gatesOf.get(item.definition().pipeline()), result);
    if (step != null) {
      commit.test(withEvent(step, result));
    } else if (result.message() != null) {
      try {
        store.apply(new Step(item, List.of(event(item.id(), result))), clock.instant());
      } catch (LeaseLostException e) {
        log.warn("{}: {} not recorded: {}", item.id(), result.message(), e.getMessage());
      }
    }
  }

  /** The landing attempt's own event ({@code workspace.<kind>}) beside the status change it made. */
  private static Step withEvent(Step step, IntegrationResult result) {
    if (result.message() == null || (result.blocks() && !result.kind().equals("integration_failed"))) {
      return step; // a conflict's or a refusal's reason is the block's, in the status change
    }
    List<Event> events = new java.util.ArrayList<>(step.events());
    events.add(event(step.next().id(), result));
    return new Step(step.next(), events, step.truncatedValues());
  }

  private static Event event(String itemId, IntegrationResult result) {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("message", result.message());
    if (result.round() > 0) {
      payload.put("round", result.round());
    }
    if (result.attempt() != null) {
      payload.put("base_commit", result.attempt().baseCommit());
      payload.put("tested_commit", result.attempt().tested());
      payload.put("gates", result.attempt().gates());
      payload.put("gates_ms", result.attempt().millis());
    }
    return new Event(itemId, "workspace." + result.kind(), payload);
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
