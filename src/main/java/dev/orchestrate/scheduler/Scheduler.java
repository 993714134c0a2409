package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogSource;
import dev.orchestrate.backlog.Config;
import dev.orchestrate.backlog.PhaseDef;
import dev.orchestrate.backlog.Pipeline;
import dev.orchestrate.context.PriorContext;
import dev.orchestrate.context.PromptBuilder;
import dev.orchestrate.context.PromptInput;
import dev.orchestrate.context.TurnHistory;
import dev.orchestrate.jobs.AgentOutcome;
import dev.orchestrate.jobs.AgentResult;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.jobs.JobState;
import dev.orchestrate.jobs.RunningAgent;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.NewMemory;
import dev.orchestrate.memory.ProjectMemory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code run} session: takes items in backlog order and drives each through its pipeline, one
 * phase at a time. Every change is committed through the {@link StateRepository} before the next
 * decision, so a new session after a crash or Ctrl-C continues where this one stopped. Before each
 * decision the {@link BacklogSource} is asked for an edited backlog, which is synced into the state.
 *
 * <p>Single-threaded by design: {@link #run} owns all state; {@link #requestStop} is the only
 * method meant to be called from another thread (a signal handler).
 */
public final class Scheduler {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  private final StateRepository store;
  private final Config config;
  private final BacklogSource backlogs;
  private final Path jobsRoot;
  private final AgentRunner runner;
  private final Clock clock;
  private final RunListener listener;
  private final TurnHistory history;
  private final ProjectMemory memory;

  private volatile boolean stopRequested;
  private volatile RunningAgent current;
  /** The scheduler thread while it waits for a summarizer, so that a stop can cut the wait short. */
  private volatile Thread summarizing;

  public Scheduler(StateRepository store, Config config, Backlog backlog, Path jobsRoot,
      AgentRunner runner, Clock clock, RunListener listener) {
    this(store, config, backlog, jobsRoot, runner, clock, listener, TurnHistory.NONE, ProjectMemory.NONE);
  }

  public Scheduler(StateRepository store, Config config, Backlog backlog, Path jobsRoot,
      AgentRunner runner, Clock clock, RunListener listener, TurnHistory history) {
    this(store, config, backlog, jobsRoot, runner, clock, listener, history, ProjectMemory.NONE);
  }

  public Scheduler(StateRepository store, Config config, Backlog backlog, Path jobsRoot,
      AgentRunner runner, Clock clock, RunListener listener, ProjectMemory memory) {
    this(store, config, backlog, jobsRoot, runner, clock, listener, TurnHistory.NONE, memory);
  }

  public Scheduler(StateRepository store, Config config, Backlog backlog, Path jobsRoot,
      AgentRunner runner, Clock clock, RunListener listener, TurnHistory history, ProjectMemory memory) {
    this(store, config, BacklogSource.fixed(backlog), jobsRoot, runner, clock, listener, history, memory);
  }

  /**
   * @param backlogs where the backlog comes from; asked for changes before every decision, so edits
   *                 to the file during the run are picked up
   * @param history  turn history: records each attempt's turns and supplies the prior context of
   *                 each prompt (summarizing older turns just before a phase is spawned)
   * @param memory   project memory: boot context in every prompt, outcome and agent memories recorded
   */
  public Scheduler(StateRepository store, Config config, BacklogSource backlogs, Path jobsRoot,
      AgentRunner runner, Clock clock, RunListener listener, TurnHistory history, ProjectMemory memory) {
    this.history = history;
    this.memory = memory;
    this.store = store;
    this.config = config;
    this.backlogs = backlogs;
    this.jobsRoot = jobsRoot;
    this.runner = runner;
    this.clock = clock;
    this.listener = listener;
  }

  /**
   * Asks the run to stop: no new work starts and the running agent is terminated (TERM, grace,
   * KILL). Calling it again while the agent is in its grace period kills it at once.
   */
  public void requestStop() {
    stopRequested = true;
    RunningAgent agent = current;
    if (agent != null) {
      agent.cancel();
    }
    Thread waiting = summarizing;
    if (waiting != null) {
      waiting.interrupt(); // the summarizer gives up; the fallback still writes a summary
    }
  }

  public boolean stopRequested() {
    return stopRequested;
  }

  /** Runs until every item is done or blocked, the cap is reached, or a stop is requested. */
  public RunReport run(int phaseCap) {
    Instant started = clock.instant();
    long runId = store.runStarted(started, ProcessHandle.current().pid());
    int interrupted = store.interruptRunningJobs(started);
    if (interrupted > 0) {
      log.info("{} job(s) left running by an earlier session were recorded as interrupted", interrupted);
    }
    SyncResult sync = store.sync(backlogs.current().items(), started);
    Map<String, ItemState> items = new LinkedHashMap<>();
    load(items);

    Counters counters = new Counters();
    HaltReason halt;
    int jobNumber = 0;
    while (true) {
      if (stopRequested) {
        halt = HaltReason.INTERRUPTED;
        Thread.interrupted(); // a stop that raced the end of a summarization must not linger
        break;
      }
      if (counters.consecutiveExhaustions >= config.execution().circuitBreaker()) {
        halt = HaltReason.CIRCUIT_BREAKER;
        break;
      }
      if (counters.phasesRun >= phaseCap) {
        halt = HaltReason.PHASE_CAP;
        break;
      }
      sync = sync.then(reload(items));
      ItemState next = nextRunnable(items);
      if (next == null) {
        halt = remaining(items).isEmpty() ? HaltReason.ALL_DONE : HaltReason.WAITING_ON_BLOCKED;
        break;
      }
      Pipeline pipeline = config.pipelines().get(next.definition().pipeline());
      if (pipeline == null) {
        // Only a follow-up item gets here (backlog entries are checked against the config): its
        // pipeline was the default one when it was added, and the config has changed since.
        commit(items, Transitions.block(next, "unknown pipeline '" + next.definition().pipeline()
            + "' (the config changed since this follow-up was added)"), counters);
        continue;
      }
      if (!next.status().isRunningPhases()) {
        commit(items, Transitions.advance(next, pipeline), counters);
        continue;
      }
      Step realigned = Transitions.realign(next, pipeline);
      if (realigned != null) {
        commit(items, realigned, counters);
        continue;
      }
      runPhase(runId, ++jobNumber, next, pipeline, items, counters);
    }

    Instant ended = clock.instant();
    store.runEnded(runId, ended, halt.key());
    int done = count(items, ItemStatus.DONE);
    int blocked = count(items, ItemStatus.BLOCKED);
    int inBacklog = (int) items.values().stream().filter(ItemState::inBacklog).count();
    return new RunReport(runId, inBacklog, done, blocked, inBacklog - done - blocked,
        counters.doneThisRun, counters.blockedThisRun, counters.phasesRun, halt,
        Duration.between(started, ended), interrupted, sync, remaining(items));
  }

  /** Syncs an edited backlog file into the state and takes the items from there again. */
  private SyncResult reload(Map<String, ItemState> items) {
    Optional<Backlog> edited = backlogs.changed(listener::backlogRejected);
    if (edited.isEmpty()) {
      return SyncResult.NONE;
    }
    SyncResult changes = store.sync(edited.get().items(), clock.instant());
    load(items);
    listener.backlogReloaded(changes);
    return changes;
  }

  /** The stored items in backlog order; the state, not this map, is the truth between decisions. */
  private void load(Map<String, ItemState> items) {
    items.clear();
    for (ItemState item : store.items()) {
      items.put(item.id(), item);
    }
  }

  private void runPhase(long runId, int jobNumber, ItemState item, Pipeline pipeline,
      Map<String, ItemState> items, Counters counters) {
    PhaseDef phase = Transitions.currentPhase(item, pipeline);
    Progress progress = item.progress();
    int attempt = progress.attempts() + 1;
    Path jobDir = jobsRoot.resolve(String.format("run%d-%04d-%s-%s-%d",
        runId, jobNumber, item.id(), phase.name(), attempt));
    // Summarizing what aged out of the window happens here, awaited: a failure degrades the
    // summary but never stops the phase.
    PriorContext prior = prepareContext(item.id());
    if (stopRequested) {
      return; // the stop came while summarizing: spawn nothing
    }
    JobRequest request = new JobRequest(item.id(), phase.name(), attempt,
        PromptBuilder.build(new PromptInput(item.definition(), phase,
            progress.status() == ItemStatus.SCOPING ? "pre-phase" : "phase", attempt,
            config.execution().maxRetries() + 1, progress.phaseSummary(), progress.unblockNotes(),
            progress.lastFailure(), jobDir.resolve("result.json"))
            .withProjectMemory(memory.bootContext()).withPriorContext(prior)),
        config.agent(), backlogs.current().directory(), jobDir);

    long jobId = store.jobStarted(new JobStart(runId, item.id(), phase.name(), attempt,
        clock.instant(), request.logFile()));
    history.recordTask(item.id(), phase.name(), attempt, PromptBuilder.task(phase));
    listener.jobStarted(item, phase.name(), attempt);
    RunningAgent agent = runner.start(request);
    current = agent;
    try {
      finishPhase(jobId, agent, item, pipeline, items, counters, request);
    } catch (RuntimeException | Error e) {
      // A failure of our own (the store, say) must not leave the agent running on its own.
      agent.cancel();
      throw e;
    } finally {
      current = null;
    }
  }

  private PriorContext prepareContext(String itemId) {
    summarizing = Thread.currentThread();
    try {
      if (stopRequested) {
        return PriorContext.EMPTY;
      }
      return history.prepare(itemId);
    } finally {
      summarizing = null;
      if (Thread.interrupted() && !stopRequested) {
        Thread.currentThread().interrupt(); // not ours: keep it
      }
    }
  }

  private void finishPhase(long jobId, RunningAgent agent, ItemState item, Pipeline pipeline,
      Map<String, ItemState> items, Counters counters, JobRequest request) {
    if (stopRequested) {
      agent.cancel(); // the stop arrived between the check in run() and the spawn
    }
    AgentOutcome outcome = awaitQuietly(agent);
    counters.phasesRun++;
    boolean cancelled = outcome.ending() == AgentOutcome.Ending.CANCELLED
        // Ctrl-C reaches the agent's process group too; its death is not a failure of the phase.
        || (stopRequested && outcome.result() == AgentResult.FAILED);
    List<FollowUpItem> followUps = FollowUpItem.of(item.id(), request.phase(), outcome.followUps(),
        config.defaultPipeline());
    if (cancelled) {
      List<ItemState> added = store.jobEnded(jobId, new JobEnd(JobState.CANCELLED, null,
          outcome.exitCode().isPresent() ? outcome.exitCode().getAsInt() : null,
          "cancelled: the run was interrupted", clock.instant()), null, followUps, clock.instant());
      history.recordAnswer(item.id(), request.phase(), request.attempt(), new TurnHistory.Answer("cancelled",
          outcome.summary(), outcome.context(), request.logFile()));
      listener.jobFinished(item, item, outcome);
      join(items, added);
      return;
    }
    Step step = Transitions.afterAttempt(item, pipeline, outcome, config.execution().maxRetries());
    trackExhaustion(outcome, step, counters);
    List<ItemState> added = store.jobEnded(jobId, JobEnd.of(outcome, JobState.of(outcome), clock.instant()), step,
        followUps, clock.instant());
    history.recordAnswer(item.id(), request.phase(), request.attempt(), new TurnHistory.Answer(
        outcome.result().key(), outcome.summary(), outcome.context(), request.logFile()));
    memory.agentMemories(item.id(), agentMemories(item, outcome));
    remember(item, step.next(), outcome.summary());
    items.put(step.next().id(), step.next());
    count(item, step.next(), counters);
    listener.jobFinished(item, step.next(), outcome);
    join(items, added);
  }

  /** Follow-up items join this session at the end of backlog order, so they run in this run. */
  private void join(Map<String, ItemState> items, List<ItemState> added) {
    for (ItemState item : added) {
      items.put(item.id(), item);
      listener.itemAdded(item);
    }
  }

  private void commit(Map<String, ItemState> items, Step step, Counters counters) {
    ItemState before = items.get(step.next().id());
    store.apply(step, clock.instant());
    remember(before, step.next(), before.progress().phaseSummary());
    items.put(step.next().id(), step.next());
    count(before, step.next(), counters);
    listener.statusChanged(before, step.next());
  }

  /** Records the outcome memory when an item has just reached Done or Blocked. */
  private void remember(ItemState before, ItemState after, String summary) {
    if (before.status() == after.status() || !after.status().isTerminal()) {
      return;
    }
    boolean done = after.status() == ItemStatus.DONE;
    memory.itemFinished(after.id(), after.definition().title(),
        done ? ProjectMemory.Outcome.DONE : ProjectMemory.Outcome.BLOCKED,
        done ? summary : after.progress().blockedReason());
  }

  private static List<NewMemory> agentMemories(ItemState item, AgentOutcome outcome) {
    List<NewMemory> out = new ArrayList<>();
    for (AgentOutcome.MemoryNote note : outcome.memories()) {
      try {
        out.add(new NewMemory(null, MemoryKind.fromKey(note.kind()), null, note.content(), note.tags(), item.id()));
      } catch (IllegalArgumentException e) {
        log.warn("{}: ignored a memory from the agent: {}", item.id(), e.getMessage());
      }
    }
    return out;
  }

  private static void count(ItemState before, ItemState after, Counters counters) {
    if (before.status() != after.status()) {
      if (after.status() == ItemStatus.DONE) {
        counters.doneThisRun++;
      } else if (after.status() == ItemStatus.BLOCKED) {
        counters.blockedThisRun++;
      }
    }
  }

  /** The first item in backlog order that is listed, not terminal, and whose dependencies are done. */
  private static ItemState nextRunnable(Map<String, ItemState> items) {
    for (ItemState item : items.values()) {
      if (!item.inBacklog() || item.status().isTerminal()) {
        continue;
      }
      if (Dependencies.unmet(item, items).isEmpty()) {
        return item;
      }
    }
    return null;
  }

  private static List<String> remaining(Map<String, ItemState> items) {
    List<String> ids = new ArrayList<>();
    for (ItemState item : items.values()) {
      if (item.inBacklog() && !item.status().isTerminal()) {
        ids.add(item.id());
      }
    }
    return ids;
  }

  private static int count(Map<String, ItemState> items, ItemStatus status) {
    return (int) items.values().stream().filter(i -> i.inBacklog() && i.status() == status).count();
  }

  private static AgentOutcome awaitQuietly(RunningAgent agent) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return agent.await();
        } catch (InterruptedException e) {
          interrupted = true;
          agent.cancel();
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * The circuit breaker counts retry exhaustions in a row (a systematic failure: a broken agent,
   * no network, a full disk) and any completed phase or subphase resets it. An agent that reports
   * blocked is a decision, not a failure, and does neither.
   */
  private static void trackExhaustion(AgentOutcome outcome, Step step, Counters counters) {
    if (outcome.result() == AgentResult.PHASE_COMPLETE || outcome.result() == AgentResult.SUBPHASE_COMPLETE) {
      counters.consecutiveExhaustions = 0;
    } else if (outcome.result() == AgentResult.FAILED && step.next().status() == ItemStatus.BLOCKED) {
      counters.consecutiveExhaustions++;
    }
  }

  private static final class Counters {
    int consecutiveExhaustions;
    int phasesRun;
    int doneThisRun;
    int blockedThisRun;
  }
}
