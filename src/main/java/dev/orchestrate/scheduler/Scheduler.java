package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogSource;
import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.OnUsageLimit;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.context.PriorContext;
import dev.orchestrate.context.TurnHistory;
import dev.orchestrate.item.Housekeeping;
import dev.orchestrate.item.ItemLanding;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.LeaseLostException;
import dev.orchestrate.item.RunFigures;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.jobs.AgentLauncher;
import dev.orchestrate.memory.ProjectMemory;
import dev.orchestrate.outcome.AgentOutcome;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code run} session: drives items through their pipelines, up to {@code max_concurrent}
 * agents at once. Every change is committed through the {@link StateRepository} before the next
 * decision, so a new session after a crash or Ctrl-C continues where this one stopped.
 *
 * <h2>Threads</h2>
 * {@link #run} is the scheduler thread and owns all mutable state: the items, the
 * {@link PhaseSummaryMap}, the {@link JobTable} and every database write. Agents are processes;
 * each one's end is reported by the thread that supervises it, which only puts a message on the
 * scheduler's queue. {@link #requestStop} (a signal handler) does the same. Nothing else touches
 * the state, so there are no locks around it.
 *
 * <h2>A tick</h2>
 * Take in every job that ended (commit its result, then update the maps); decide whether to halt;
 * pick up an edited backlog file; ask {@link ActionSelection} what to do and do it (status
 * changes are committed, phases are spawned); sweep the summary map and give
 * {@link Housekeeping} its slot. When there is nothing to do, wait for the next message.
 *
 * <h2>Halting</h2>
 * A halt (phase cap, circuit breaker, targets finished) stops starting work and lets running jobs
 * finish and be recorded. A stop request also cancels them (TERM, grace, KILL; a second request
 * kills at once); they are recorded as cancelled and their items stay where they were.
 *
 * <h2>A shared state (several runners)</h2>
 * With {@link ItemLeases} that are {@linkplain ItemLeases#shared() shared}, other runners work on
 * the same backlog. Before every action the scheduler claims its item ({@link ItemLeases#claim}):
 * a refused claim skips the item's other actions this tick and makes the next tick re-read. The
 * items and the others' leases are read again every {@link Claims#REFRESH_MS} (which also takes dead
 * runners over); items others hold ({@code Snapshot.elsewhere}) are never eligible, and those in
 * progress count toward {@code max_wip}, of which this runner takes at most what is in progress
 * elsewhere plus its own {@code max_concurrent}. It waits, rather than halts, while another runner
 * holds an unfinished item, and never halts on a picture it has not just re-read, nor on one its
 * own claims just contradicted (an item found changed, a claim refused anew, a claim refused only
 * by another connection's row lock, for up to the lease timeout). A write that
 * finds its lease lost ({@link LeaseLostException}) drops the item, never another's progress.
 *
 * <h2>Its parts</h2>
 * The scheduler keeps the loop, the halts, the messages, the round of actions and the commit of
 * a status change; the rest is delegated, each part owning its state: {@link Session} (the run's
 * items, maps and tallies), {@link Claims} (the multi-runner claim protocol), {@link Integration}
 * (the items' workspaces), {@link RunBudget} (spend, grants, warnings), {@link JobStarts} and
 * {@link JobEnds} (a job's start and end), {@link ProviderPauses} (limits), {@link StopOnFailure}.
 * It stays over 500 lines for a reason: about 110 of them are the public {@link Builder} that
 * {@code app/} wires (kept where it is, so that its callers are unchanged), and the loop with its
 * halt, stop and wait decisions reads as one state machine; split further, each decision would
 * hide half of what it depends on.
 */
public final class Scheduler {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  /** How long an idle scheduler waits before it looks at the backlog file again. */
  private static final long IDLE_POLL_MS = 500;
  /**
   * How long housekeeping may go on while an ended job waits: long enough that a pass does not
   * re-read its tables for every single unit on a busy run, short next to any real agent.
   */
  static final long HOUSEKEEPING_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final StateRepository store;
  private final Config config;
  private final BacklogSource backlogs;
  private final BacklogReloads reloads;
  private final Path jobsRoot;
  private final AgentLauncher launcher;
  private final Clock clock;
  private final RunListener listener;
  private final TurnHistory history;
  private final ProjectMemory memory;
  private final Housekeeping housekeeping;
  /** The claim protocol when other runners share the state (a no-op for one). */
  private final Claims claims;
  /** How each job starts. */
  private final JobStarts starts;
  /** What the end of each job does to the state. */
  private final JobEnds ends;
  /** The agent profiles a provider's limit paused, and what a limit does to the run. */
  private final ProviderPauses pauses;
  /** The approve and reject decisions queued while this run holds the state. */
  private final QueuedReviews reviews;

  /** Messages to the scheduler thread: job ends (from supervising threads) and stop requests. */
  private final BlockingQueue<Message> inbox = new LinkedBlockingQueue<>();
  private volatile boolean stopRequested;
  /** The scheduler thread while it may wait for a summarizer, so that a stop can cut the wait short. */
  private volatile Thread summarizing;
  /** Where each item's agents work (the backlog's directory unless execution.workspace is worktree). */
  private ItemWorkspaces workspaces = ItemWorkspaces.SHARED;
  /** What a run does with those workspaces: commits, inspection, landing done items. */
  private Integration integration;
  /** The threads that run the worktrees' git; null for the shared workspace. */
  private WorkspaceWorkers workers;

  Scheduler(SchedulerBuilder b) {
    this.store = b.store;
    this.config = b.config;
    this.backlogs = b.backlogs;
    this.reloads = new BacklogReloads(b.store, b.backlogs, b.listener, b.clock);
    this.jobsRoot = b.jobsRoot;
    this.launcher = b.launcher;
    this.clock = b.clock;
    this.listener = b.listener;
    this.history = b.history;
    this.memory = b.memory;
    this.housekeeping = b.housekeeping;
    this.integration = new Integration(workspaces, ItemLanding.NONE, store, clock,
        done -> inbox.add(new Message.Offloaded(done)));
    this.claims = new Claims(b.leases, store, config, launcher, listener);
    this.pauses = new ProviderPauses(b.pauses, new LimitPolicy(config.agent().onUsageLimit(),
        config.agent().maxWait(), clock.getZone(),
        () -> java.util.concurrent.ThreadLocalRandom.current().nextDouble()));
    this.starts = new JobStarts(store, config, backlogs, jobsRoot, launcher, clock, listener, history, memory, pauses,
        claims, () -> stopRequested, this::prepareContext,
        (jobId, outcome, error, looked) -> inbox.add(new Message.Ended(jobId, outcome, error, looked)));
    this.ends = new JobEnds(store, config, clock, listener, history, memory, pauses, claims, () -> stopRequested);
    this.reviews = new QueuedReviews(store, config.pipelines(), clock);
  }

  /**
   * Starts a scheduler for a backlog read once, as tests and one-off runs have it; the same as
   * {@link #builder(StateRepository, Config, BacklogSource, Path, AgentLauncher, Clock)} with
   * {@link BacklogSource#fixed}.
   */
  public static SchedulerBuilder builder(StateRepository store, Config config, Backlog backlog, Path jobsRoot,
      AgentLauncher launcher, Clock clock) {
    return builder(store, config, BacklogSource.fixed(backlog), jobsRoot, launcher, clock);
  }

  /**
   * Starts a scheduler with what every run needs; the rest is optional and defaults to doing
   * nothing (see {@link SchedulerBuilder}).
   *
   * @param backlogs where the backlog comes from; asked for changes every tick, so edits to the
   *                 file during the run are picked up
   */
  public static SchedulerBuilder builder(StateRepository store, Config config, BacklogSource backlogs, Path jobsRoot,
      AgentLauncher launcher, Clock clock) {
    return new SchedulerBuilder(store, config, backlogs, jobsRoot, launcher, clock);
  }

  /**
   * Gives each item its own workspace (a git worktree), and says how a done item's work lands from
   * it; call before {@link #run}.
   */
  public Scheduler workspaces(ItemWorkspaces workspaces, ItemLanding landing) {
    this.workspaces = Objects.requireNonNull(workspaces, "workspaces");
    this.integration = new Integration(workspaces, Objects.requireNonNull(landing, "landing"), store, clock,
        done -> inbox.add(new Message.Offloaded(done))).gatedBy(config.pipelines());
    if (workspaces != ItemWorkspaces.SHARED) {
      workers = new WorkspaceWorkers(WorkspaceWorkers.threadsFor(config.execution().maxConcurrent()));
      integration.sweepingOn(workers);
      starts.offThread(workers, integration);
    }
    return this;
  }

  /**
   * Asks the run to stop: no new work starts and every running agent is terminated (TERM, grace,
   * KILL). Calling it again while agents are in their grace period kills them at once. Safe to
   * call from any thread; returns at once.
   */
  public void requestStop() {
    stopRequested = true;
    inbox.add(Message.STOP);
    Thread waiting = summarizing;
    if (waiting != null) {
      waiting.interrupt(); // the summarizer gives up; the fallback still writes a summary
    }
  }

  public boolean stopRequested() {
    return stopRequested;
  }

  /** Runs every item until it is done or blocked, the cap is reached, or a stop is requested. */
  public RunReport run(int phaseCap) {
    return run(RunOptions.cap(phaseCap));
  }

  /** Runs the items {@code options} admits, until a halt (see the class comment). */
  public RunReport run(RunOptions options) {
    Instant started = clock.instant();
    long runId = store.runStarted(started, ProcessHandle.current().pid());
    listener.runRecorded(runId);
    int leftovers = launcher.stopLeftovers(jobsRoot, config.agent().killGrace());
    if (leftovers > 0) {
      log.warn("stopped {} process(es) that agents of an earlier, killed run left running", leftovers);
    }
    // A shared state: dead runners are taken over first, so their running jobs count as interrupted.
    int takenOver = claims.start();
    int interrupted = store.interruptRunningJobs(started) + takenOver;
    if (interrupted > 0) {
      log.info("{} job(s) left running by an earlier session were recorded as interrupted", interrupted);
    }
    Session s = new Session(runId, options.phaseCap(), new RunBudget(config, store, clock, listener, options));
    SyncResult sync = reloads.sync(s.items, started);
    s.filter = options.filter().asOfRunStart(s.items.values());
    listener.runStarted(List.copyOf(s.items.values()), s.filter);
    s.summaries.restore(s.items.values());
    pausesAtStart(s, started);
    integration.integratePending(s.items, change -> commit(s, change), id -> claims.claim(s.items,
        new Action.Realign(id)));
    if (ReviewTimeouts.any(config)) { // else a run never looks at review waits
      s.reviewWaits.putAll(store.reviewWaits());
    }
    reviewed(s); // decisions queued while no run (or a killed one) held the state
    workspaces.maintain();

    HaltReason halt;
    try (dev.orchestrate.limits.LoopThread.Mark loopThread = dev.orchestrate.limits.LoopThread.enter()) {
      halt = loop(s, sync);
      // pushes still running end and are recorded; checks polls (and on a stop, pushes) are stopped
      integration.drain(halt == HaltReason.INTERRUPTED || stopRequested, () -> takeMessages(s, true));
    } catch (RuntimeException | Error e) {
      integration.stop();
      closeWorkers();
      // A failure of our own (the store, say) must not leave agents running on their own.
      StopOnFailure.stopAgents(s.jobs, config.agent().killGrace(), e, () -> inbox.remove(Message.STOP));
      throw e;
    }
    closeWorkers();
    sync = s.sync;
    halt = tidiedUp(halt);

    claims.releaseAll();
    Instant ended = clock.instant();
    RunFigures figures = new RunFigures(s.summaries.size(), s.summaries.peak(), s.jobs.peakActive(),
        s.jobs.peakInactive(), s.jobs.size());
    Budget budget = RunBudget.budget(config);
    store.runSpend(runId, s.budget.spend(), budget.maxCostUsd(), budget.maxTokens());
    store.runEnded(runId, ended, halt.key(), figures);
    return s.report(halt, Duration.between(started, ended), interrupted, sync, figures, budget, claims.runnerId());
  }

  /** The pauses the run starts with: a limit still in force halts it at once, or is shown as a pause. */
  private void pausesAtStart(Session s, Instant started) {
    pauses.start(profile(), started, config.agent().onUsageLimit() == OnUsageLimit.HALT
        && !pauses.fallbackFor(config, profile(), started)).ifPresent(d -> {
          s.limitHalt = d.halt();
          s.haltDetail = d.message();
          log.warn("{}", d.message());
        });
    if (s.limitHalt == null) {
      pauses.inForce(config, started).forEach(listener::pausedAtStart);
    }
  }

  /** The worktrees' git still running (a retention sweep) ends before the run's own tidying up. */
  private void closeWorkers() {
    if (workers != null) {
      workers.close();
    }
  }

  /**
   * Nothing runs any more: the state is left within its retention policies (not after Ctrl-C, where
   * the operator wants out at once; a Ctrl-C meanwhile cuts it short, and counts).
   */
  private HaltReason tidiedUp(HaltReason halt) {
    if (halt == HaltReason.INTERRUPTED) {
      return halt;
    }
    interruptibly(() -> {
      housekeeping.atEnd(clock.instant(), () -> stopRequested);
      return null;
    });
    if (stopRequested) {
      Thread.interrupted();
      return HaltReason.INTERRUPTED;
    }
    workspaces.maintain();
    workspaces.runEnded();
    return halt;
  }

  private HaltReason loop(Session s, SyncResult initialSync) {
    s.sync = initialSync;
    HaltReason halt = null;
    while (true) {
      takeMessages(s, false);
      s.budget.warnIfSpent(); // a job ended: before deciding anything, and before a halt
      if (stopRequested) {
        Thread.interrupted(); // a stop that raced the end of a summarization must not linger
        halt = HaltReason.INTERRUPTED;
      } else if (halt == null) {
        halt = s.haltReason(config.execution().circuitBreaker());
      }
      if (halt != null) {
        if (s.jobs.activeCount() == 0) {
          // The cap-th phase may have been the last one needed: then the run is simply done.
          return halt == HaltReason.PHASE_CAP && s.remaining().isEmpty() && !integration.awaitingChecks()
              && !integration.landingAhead(s.items) ? HaltReason.ALL_DONE : halt;
        }
        takeMessages(s, true); // running jobs finish (or are cancelled) and are recorded
        continue;
      }
      s.sync = s.sync.then(reloads.reload(s.items));
      claims.refresh(s.items, s.runningItems);
      claims.newRound(); // the integration's claims below count in this round, as act's do
      pauses.reread(clock.instant()).forEach(profile -> listener.providerLimit(profile
          + ": its pause was cleared in the state (orchestrate agents resume, or another runner's job got "
          + "through); its work starts again"));
      // merge: push's failed pushes, on their backoff; the checks due (each item claimed first)
      integration.retryDue(s.items, change -> commit(s, change), id -> claims.claim(s.items, new Action.Realign(id)));
      boolean acted = integration.checksDue(s.items, config.pipelines(), change -> commit(s, change),
          id -> claims.claim(s.items, new Action.Realign(id)))
          | reviewTimedOut(s) | reviewed(s)
          | integration.landDue(s.items, change -> commit(s, change), id -> claims.claim(s.items,
              new Action.Realign(id)))
          | act(s);
      endOfTick(s);
      if (acted) {
        s.checkedBeforeHalt = false;
      } else if (!stopRequested) {
        HaltReason done = idle(s);
        if (done != null) {
          return done;
        }
      }
    }
  }

  /** A tick that did nothing: the run halts (the reason returned) or waits for what it waits for (null). */
  private HaltReason idle(Session s) {
    if (s.jobs.activeCount() == 0 && claims.shared() && !s.checkedBeforeHalt) {
      // Never halt on a stale picture: read the others' work again and decide once more.
      s.checkedBeforeHalt = true;
      claims.markStale();
      return null;
    }
    if (s.jobs.activeCount() == 0 && (s.heldByPause || pauses.anyPaused(clock.instant())) && !s.remaining().isEmpty()) {
      s.heldByPause = false;
      s.waitingFor(clock.instant(), listener,
          pauses.nextEnd(clock.instant()).map(end -> "a paused agent profile, until "
              + Session.WAIT_TIME.format(end)).orElse("a paused agent profile"));
      takeMessages(s, true); // an agent profile waits for its provider: so does the run
      return null;
    }
    if (s.jobs.activeCount() == 0 && (integration.awaitingChecks() || integration.landingAhead(s.items))) {
      // items await their checks (execution.checks) or their turn to land: the run waits for them
      s.waitingFor(clock.instant(), listener, integration.waitingFor(s.items));
      takeMessages(s, true);
      return null;
    }
    if (s.jobs.activeCount() == 0 && !claims.othersWorkOn(s.remaining())) {
      if (s.remaining().isEmpty()) {
        return HaltReason.ALL_DONE;
      }
      // A claim of this round was refused or found its item changed: the leases were read
      // before the items (and both before the claims), so what looks like nothing left for
      // this runner may be items another runner took meanwhile. Wait and read again instead.
      if (!claims.contradicted()) {
        if (claims.shared()) {
          log.info("nothing left that this runner can take: {}", claims.haltPicture(s.remaining(), s.items));
        }
        return HaltReason.WAITING_ON_BLOCKED;
      }
    }
    takeMessages(s, true);
    claims.markStale(); // waited: look at what the others did meanwhile
    return null;
  }

  /**
   * Handles the messages waiting in the inbox; with {@code block}, first waits for one (up to a
   * short poll interval, so that an idle run still notices an edited backlog file).
   */
  private void takeMessages(Session s, boolean block) {
    try {
      Message first = block ? inbox.poll(IDLE_POLL_MS, TimeUnit.MILLISECONDS) : inbox.poll();
      for (Message m = first; m != null; m = inbox.poll()) {
        handle(s, m);
      }
    } catch (InterruptedException e) {
      // Only requestStop interrupts this thread (while summarizing); the flag says what to do.
      if (!stopRequested) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("the scheduler thread was interrupted", e);
      }
    }
  }

  private void handle(Session s, Message m) {
    if (m instanceof Message.Stop) {
      // Every stop request reaches every running agent: the second one kills at once.
      for (JobTable.Entry<Job> entry : s.jobs.active()) {
        s.jobs.cancelRequested(entry.jobId());
        entry.handle().agent().cancel();
      }
      integration.stop(); // and every push, pull-request command and checks poll
    } else if (m instanceof Message.Offloaded offloaded) {
      integration.landed(offloaded.done(), s.items, config.pipelines(), change -> commit(s, change));
    } else if (m instanceof Message.Ended ended) {
      if (ended.error() != null) {
        throw new IllegalStateException("supervising the agent of job " + ended.jobId() + " failed",
            ended.error());
      }
      ends.finish(s, ended.jobId(), ended.outcome(), ended.looked(), integration, change -> commit(s, change));
    }
  }

  /**
   * Applies one round of {@link ActionSelection}: status changes are committed, phases spawned
   * (within the phase cap). Returns whether anything happened.
   */
  private boolean act(Session s) {
    s.budget.newRound();
    boolean acted = blockOrphans(s);
    // Only the items the decision depends on, not the whole backlog (see SelectionIndex).
    Snapshot snapshot = s.items.frontier(integration.selectionPipelines(config.pipelines()), claims.wipLimit(s.items),
        config.execution().maxConcurrent(), s.running(), s.filter, claims.elsewhere());
    java.util.Set<String> skipped = new java.util.HashSet<>();
    for (Action action : ActionSelection.select(snapshot, s.items)) {
      if (stopRequested) {
        return true;
      }
      // An item's later actions build on its earlier ones: once one is skipped, so are the rest.
      if (skipped.contains(action.itemId()) || !claims.claim(s.items, action)) {
        skipped.add(action.itemId()); // another runner has it, or changed it meanwhile: decide again
        continue;
      }
      ItemState item = s.items.get(action.itemId());
      Pipeline pipeline = config.pipelines().get(item.definition().pipeline());
      if (action instanceof Action.Realign) {
        if (!commit(s, Transitions.realign(item, pipeline))) {
          skipped.add(item.id());
        }
      } else if (s.jobsStarted >= s.phaseCap) {
        continue; // no phase can start in this run: leave statuses for the run that will work on them
      } else if (action instanceof Action.RunPhase) {
        AgentConfig agent = starts.choose(s, pipeline, Transitions.currentPhase(item, pipeline));
        if (agent == null) {
          continue; // its profiles are paused by a limit or at their max_concurrent: the item keeps its place
        }
        Budget.Launch launch = s.budget.launch(agent, s.jobs.activeCount());
        if (!(launch instanceof Budget.Launch.Start start)) {
          // Spent: it could pass the budget, so nothing more starts (and the run halts, which is
          // acting); Wait: the first job runs alone.
          if (launch instanceof Budget.Launch.Spent) {
            acted = true;
          }
          continue;
        }
        starts.spawn(s, item, pipeline, start, agent, workspaces, change -> commit(s, change));
      } else if (action instanceof Action.Promote && !budgetAdmits(s, item, pipeline)) {
        skipped.add(item.id()); // ready until a job of it can start: never in_progress with nothing run
      } else if (!commit(s, Transitions.advance(item, pipeline))) { // Advance (new →) and Promote (ready →)
        skipped.add(item.id());
      }
      acted = true;
    }
    return acted;
  }

  /**
   * Whether the budgets let the first job of {@code item}, about to be promoted, start now; when
   * they never will (spent), the budget is marked so and the run halts for it.
   */
  private boolean budgetAdmits(Session s, ItemState item, Pipeline pipeline) {
    PhaseDef phase = Transitions.currentPhase(item, pipeline);
    if (phase == null && !pipeline.phases().isEmpty()) {
      phase = pipeline.phases().get(0); // a ready item starts its first phase
    }
    AgentConfig agent = phase == null ? null : starts.choose(s, pipeline, phase);
    if (agent == null || s.budget.admits(agent, s.jobs.activeCount(), waitingToStart(s))) {
      return true;
    }
    s.budget.launch(agent, s.jobs.activeCount()); // records a refusal, so that the halt names it
    return false;
  }

  /**
   * The items this runner has in progress (or scoping) that no job runs for and that it would start:
   * each will want a share of the budget before a newly promoted one.
   */
  private int waitingToStart(Session s) {
    int waiting = 0;
    for (String id : s.items.inPhases()) {
      ItemState item = s.items.get(id);
      if (item != null && item.inBacklog() && !s.runningItems.containsKey(id) && !claims.elsewhere().contains(id)
          && s.filter.matches(item)) {
        waiting++;
      }
    }
    return waiting;
  }

  /** Applies on_review_timeout ({@link ReviewTimeouts}); returns whether an item changed. */
  private boolean reviewTimedOut(Session s) {
    return new ReviewTimeouts(config, clock, claims).apply(s, this::landing, step -> commit(s, step),
        item -> integration.finished(item, change -> commit(s, change)));
  }

  /**
   * The step, landing instead of done when the run lands through the merge queue: the item is done
   * once its work is on the base branch ({@link Transitions#toLand}).
   */
  private Step landing(Step step) {
    return step != null && integration.queues() ? Transitions.toLand(step) : step;
  }

  /** Applies the reviewers' queued decisions (approve, reject); returns whether an item changed. */
  private boolean reviewed(Session s) {
    return reviews.apply(s.items, claims, (step, decision) -> {
      Step landing = landing(step);
      return commit(s, landing, () -> store.applyDecision(decision, landing, clock.instant()));
    }, item -> {
      integration.finished(s.items.get(item.id()), change -> commit(s, change));
      return true;
    });
  }

  /**
   * Blocks the listed items whose pipeline is gone. Only a follow-up item gets here (backlog
   * entries are checked against the config): its pipeline was the default one when it was added,
   * and the config has changed since.
   */
  private boolean blockOrphans(Session s) {
    boolean blocked = false;
    for (ItemState item : s.items.orphans(config.pipelines(), s.filter)) {
      if (!s.runningItems.containsKey(item.id()) && !claims.elsewhere().contains(item.id())) {
        if (!claims.claim(s.items, new Action.Realign(item.id()))) {
          continue;
        }
        commit(s, Transitions.block(item, "unknown pipeline '" + item.definition().pipeline()
            + "' (the config changed since this follow-up was added)"));
        blocked = true;
      }
    }
    return blocked;
  }

  private void endOfTick(Session s) {
    int swept = s.summaries.sweep(id -> {
      ItemState item = s.items.get(id);
      return item != null && item.inBacklog() && !item.status().isTerminal();
    });
    if (swept > 0) {
      log.debug("swept {} phase summaries of items no longer active", swept);
    }
    if (!stopRequested) {
      // Lowest priority: once a job has ended it gets what is left of its slice, then steps
      // aside; a stop makes it step aside at once and cuts short a summarizer it waits for.
      long sliceEnd = System.nanoTime() + HOUSEKEEPING_SLICE_NANOS;
      interruptibly(() -> {
        housekeeping.afterTick(clock.instant(),
            () -> stopRequested || (!inbox.isEmpty() && System.nanoTime() - sliceEnd >= 0));
        return null;
      });
    }
  }

  private PriorContext prepareContext(String itemId) {
    return interruptibly(() -> stopRequested ? PriorContext.EMPTY : history.prepare(itemId));
  }

  /** Runs work that may wait for a summarizer so that {@link #requestStop} can cut the wait short. */
  private <T> T interruptibly(java.util.function.Supplier<T> work) {
    summarizing = Thread.currentThread();
    try {
      return work.get();
    } finally {
      summarizing = null;
      if (Thread.interrupted() && !stopRequested) {
        Thread.currentThread().interrupt(); // not ours: keep it
      }
    }
  }

  /** The default agent profile (the agent: block, or the first of agents:). */
  private String profile() {
    return config.agent().profileName();
  }

  /** Commits the step and takes it in; false when another runner holds the item now (nothing changed). */
  private boolean commit(Session s, Step step) {
    return commit(s, step, () -> {
      store.apply(step, clock.instant());
      return true;
    });
  }

  /** Commits the step by {@code write} (false: it wrote nothing) and takes it in, as {@link #commit(Session, Step)}. */
  private boolean commit(Session s, Step step, java.util.function.BooleanSupplier write) {
    ItemState before = s.items.get(step.next().id());
    try {
      if (!write.getAsBoolean()) {
        return false;
      }
    } catch (LeaseLostException e) {
      log.warn("{}: not changed: {}", before.id(), e.getMessage());
      claims.markStale();
      return false;
    }
    ends.remember(before, step.next(), s.summaries.get(before.id()).orElse(before.progress().phaseSummary()));
    s.items.put(step.next().id(), step.next());
    s.count(before, step.next());
    if (step.next().status().isTerminal()) {
      s.summaries.finished(before.id());
    }
    listener.statusChanged(before, step.next());
    if (step.next().status() == ItemStatus.BLOCKED) {
      workspaces.blocked(before.id());
    }
    return true;
  }

  private sealed interface Message {
    Stop STOP = new Stop();

    record Stop() implements Message {
    }

    record Ended(long jobId, AgentOutcome outcome, Throwable error, Integration.Looked looked) implements Message {
    }

    /** A push, pull-request command or checks poll ended off the scheduler thread. */
    record Offloaded(Offload.Done done) implements Message {
    }
  }
}
