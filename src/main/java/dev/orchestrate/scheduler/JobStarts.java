package dev.orchestrate.scheduler;

import dev.orchestrate.backlog.BacklogSource;
import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.context.PriorContext;
import dev.orchestrate.context.PromptBuilder;
import dev.orchestrate.context.PromptInput;
import dev.orchestrate.context.TurnHistory;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.LeaseLostException;
import dev.orchestrate.item.Placement;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.Resumption;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.item.WorkspaceUnavailableException;
import dev.orchestrate.jobs.AgentHandle;
import dev.orchestrate.jobs.AgentLauncher;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.memory.ProjectMemory;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.Usage;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start of a job, on the scheduler thread: which agent profile runs a phase now (paused
 * profiles give way to their fallbacks, a profile's own {@code max_concurrent} waits), and the
 * spawn itself: the item's workspace, a resumed session, the prompt with its prior context, the
 * cost cap the budget granted, the job's record, the launch.
 */
final class JobStarts {
  /** The run's log lines keep the category they always had (log configurations and tests name it). */
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  /** Told of a job's end, by the thread that supervises its agent. */
  interface Ended {
    /** @param looked what the look at its worktree found off the scheduler thread; null: not looked at yet */
    void ended(long jobId, AgentOutcome outcome, Throwable error, Integration.Looked looked);
  }

  private final StateRepository store;
  private final Config config;
  private final BacklogSource backlogs;
  private final Path jobsRoot;
  private final AgentLauncher launcher;
  private final Clock clock;
  private final RunListener listener;
  private final TurnHistory history;
  private final ProjectMemory memory;
  private final ProviderPauses pauses;
  private final Claims claims;
  private final BooleanSupplier stopRequested;
  /** The item's prior context, summarizing what aged out of the window (a stop cuts it short). */
  private final Function<String, PriorContext> prepareContext;
  private final Ended ended;
  /** The threads of the worktrees' git; null: it runs on the scheduler thread (the shared workspace, tests). */
  private WorkspaceWorkers workers;
  private Integration integration;

  JobStarts(StateRepository store, Config config, BacklogSource backlogs, Path jobsRoot, AgentLauncher launcher,
      Clock clock, RunListener listener, TurnHistory history, ProjectMemory memory, ProviderPauses pauses,
      Claims claims, BooleanSupplier stopRequested, Function<String, PriorContext> prepareContext, Ended ended) {
    this.store = store;
    this.config = config;
    this.backlogs = backlogs;
    this.jobsRoot = jobsRoot;
    this.launcher = launcher;
    this.clock = clock;
    this.listener = listener;
    this.history = history;
    this.memory = memory;
    this.pauses = pauses;
    this.claims = claims;
    this.stopRequested = stopRequested;
    this.prepareContext = prepareContext;
    this.ended = ended;
  }

  /** Prepares worktrees, and looks at them after their jobs, on {@code workers}, through {@code integration}. */
  void offThread(WorkspaceWorkers workers, Integration integration) {
    this.workers = workers;
    this.integration = integration;
  }

  /**
   * The agent profile that runs {@code phase} now: its first choice unless a provider's limit
   * paused it, else the first of its fallbacks that is not paused; null when every one is paused
   * (the run waits, or halts as the limit says) or the one to use is at its own max_concurrent.
   */
  AgentConfig choose(Session s, Pipeline pipeline, PhaseDef phase) {
    Instant now = clock.instant();
    for (String name : pipeline.profilesFor(phase)) {
      AgentConfig agent = config.profile(name);
      if (pauses.paused(agent.profileName(), now)) {
        s.heldByPause = true;
        continue;
      }
      if (agent.maxConcurrent() > 0 && running(s, agent.profileName()) >= agent.maxConcurrent()) {
        return null; // a provider's concurrency limit: wait for one of its agents, not a fallback
      }
      return agent;
    }
    return null;
  }

  /** How many agents of the profile {@code name} run now. */
  private static int running(Session s, String name) {
    int n = 0;
    for (JobTable.Entry<Job> entry : s.jobs.active()) {
      n += entry.handle().profile().profileName().equals(name) ? 1 : 0;
    }
    return n;
  }

  /**
   * Starts the job of the item's current phase with {@code agent} and what the budgets granted it,
   * in the item's workspace; an unavailable workspace blocks the item instead ({@code commit}). Its
   * end is reported to {@code ended} by the thread that supervises it.
   */
  void spawn(Session s, ItemState item, Pipeline pipeline, Budget.Launch.Start grant, AgentConfig agent,
      ItemWorkspaces workspaces, Predicate<Step> commit) {
    PhaseDef phase = Transitions.currentPhase(item, pipeline);
    // A retry continues the last attempt's session when its profile resumes (docs/verification.md),
    // in the worktree as that attempt left it.
    String resume = Resumption.sessionFor(item.progress(), agent);
    Path backlogDir = backlogs.current().directory();
    boolean offThread = workers != null && workspaces != ItemWorkspaces.SHARED;
    Placement placement = null;
    if (!offThread) {
      try {
        placement = workspaces.prepare(item.id(), backlogDir, resume != null, item.definition().dependsOn());
      } catch (WorkspaceUnavailableException e) {
        commit.test(Transitions.block(item, e.getMessage()));
        return;
      }
    }
    item = resumeConsumed(s, item);
    if (item == null) {
      return;
    }
    int attempt = item.progress().attempts() + 1;
    Path jobDir = jobsRoot.resolve(String.format("run%d-%04d-%s-%s-%d",
        s.runId, ++s.jobNumber, item.id(), phase.name(), attempt));
    // Summarizing what aged out of the window happens here, awaited: a failure degrades the
    // summary but never stops the phase.
    PriorContext prior = prepareContext.apply(item.id());
    if (stopRequested.getAsBoolean()) {
      return; // the stop came while summarizing: spawn nothing
    }
    PromptInput input = prompt(s, item, pipeline, phase, attempt, jobDir).withPriorContext(prior);
    // A CLI that reports a resumed session's running totals: what its earlier jobs reported is
    // taken off this job's figures when it ends, and added to the cost cap it is given.
    Usage before = resume != null && (agent.preset().sessionCost() || agent.preset().sessionTokens())
        ? store.sessionUsage(resume) : Usage.UNKNOWN;
    String candidate = resume;
    ItemState started = item;
    // asked by the job before its gates run (on its own thread): what the attempt changed among them
    java.util.function.Supplier<String> protectedChanged = phase.changesGates() ? null : () -> {
      List<String> changed = workspaces.changedBeforeGates(started.id(), ProtectedFiles.scripts(pipeline),
          pipeline.verifyProtected());
      return changed.isEmpty() ? null : ProtectedFiles.failure(changed);
    };
    Function<Placement, JobRequest> request = ready -> request(started, phase, attempt, jobDir, input, agent, grant,
        // the worktree had to be made again: the session's edits are gone, start afresh
        candidate != null && ready.workspace() != null && !ready.kept() ? null : candidate, before,
        ready.workspace() == null ? null : protectedChanged, ready);
    if (!offThread) {
      JobRequest made = request.apply(placement);
      launch(s, item, pipeline, phase, made, () -> launcher.start(made), agent, before, grant, workspaces);
      return;
    }
    ItemState preparing = item;
    JobRequest provisional = request.apply(Placement.shared(backlogDir));
    launch(s, item, pipeline, phase, provisional, () -> PreparedStart.begin(workers, provisional,
        () -> workspaces.prepare(preparing.id(), backlogDir, candidate != null, preparing.definition().dependsOn()),
        request, launcher), agent, before, grant, workspaces);
  }

  /** The job's request in the place its worktree gave it; {@code resume} null: a fresh session. */
  private static JobRequest request(ItemState item, PhaseDef phase, int attempt, Path jobDir, PromptInput input,
      AgentConfig agent, Budget.Launch.Start grant, String resume, Usage before,
      java.util.function.Supplier<String> protectedChanged, Placement placement) {
    PromptInput placed = input.withWorkspace(placement.workspace() == null ? null
        : new PromptInput.Workspace(placement.workspace(), placement.branch(), agent.resumes()));
    BigDecimal cap = grant.capUsd() == null ? null
        : resume == null || before.costUsd() == null || !agent.preset().sessionCost() ? grant.capUsd()
            : grant.capUsd().add(BigDecimal.valueOf(before.costUsd()));
    String full = PromptBuilder.build(placed);
    return new JobRequest(item.id(), phase.name(), attempt,
        resume != null ? PromptBuilder.resume(placed) : full,
        cap == null ? agent : agent.withCostCap(cap), placement.workDir(),
        jobDir, placement.workspace(),
        new JobRequest.Steps(placement.setup(), resume, resume != null ? full : null, placed.verify(),
            placement.setUpDone(), protectedChanged));
  }

  /**
   * The item with its resume consumed, recorded before the attempt starts: if this attempt never
   * ends (a crash of the run), the next one starts fresh. Null when the item's lease was lost.
   */
  private ItemState resumeConsumed(Session s, ItemState item) {
    if (item.progress().resume() == null) {
      return item;
    }
    ItemState consumed = item.with(item.progress().withResume(null));
    try {
      store.apply(new Step(consumed, List.of()), clock.instant());
    } catch (LeaseLostException e) {
      log.warn("{}: not started: {}", item.id(), e.getMessage());
      claims.markStale();
      return null;
    }
    s.items.put(item.id(), consumed);
    return consumed;
  }

  /** What the phase's prompt is made of (its prior context added by the caller). */
  private PromptInput prompt(Session s, ItemState item, Pipeline pipeline, PhaseDef phase, int attempt, Path jobDir) {
    Progress progress = item.progress();
    // The summary is copied into the job here: whatever happens to the map later, this phase
    // has what it started with.
    String previousSummary = s.summaries.forSpawn(item).orElse(null);
    return new PromptInput(item.definition(), phase,
        progress.status() == ItemStatus.SCOPING ? "pre-phase" : "phase", attempt,
        config.execution().maxRetries() + 1, previousSummary, progress.unblockNotes(),
        progress.lastFailure(), jobDir.resolve("result.json"))
        .withProjectMemory(memory.bootContext())
        .withVerify(pipeline.verifyFor(phase));
  }

  /** Records the job's start, starts its agent and puts it in the session's tables. */
  private void launch(Session s, ItemState item, Pipeline pipeline, PhaseDef phase, JobRequest request,
      java.util.function.Supplier<AgentHandle> start, AgentConfig agent, Usage before, Budget.Launch.Start grant,
      ItemWorkspaces workspaces) {
    s.jobs.cleanUp();
    long jobId = store.jobStarted(new JobStart(s.runId, item.id(), phase.name(), request.attempt(),
        clock.instant(), request.logFile(), agent.profileName()));
    history.recordTask(item.id(), phase.name(), request.attempt(), PromptBuilder.task(phase));
    listener.jobStarted(item, phase.name(), request.attempt(), agent.profileName());
    AgentHandle handle = start.get();
    s.jobs.started(jobId, item.id(), phase.name(), request.attempt(), clock.instant(),
        new Job(handle, request, pipeline, phase.destructive(), agent, before));
    s.runningItems.put(item.id(), phase.destructive() && workspaces.destructiveRunsAlone());
    s.jobsStarted++;
    s.budget.started(jobId, agent, grant.reserve());
    if (!(handle instanceof PreparedStart prepared)) {
      handle.finished().whenComplete((outcome, error) -> ended.ended(jobId, outcome, error, null));
      return;
    }
    // its worktree is looked at, and its work committed, off the scheduler thread too
    Integration looking = integration;
    handle.finished().whenComplete((outcome, error) -> {
      if (error != null) {
        ended.ended(jobId, outcome, error, null);
        return;
      }
      workers.item(() -> {
        Integration.Looked looked;
        try {
          looked = looking.lookAfter(jobId, prepared.request(), outcome, pipeline, phase);
        } catch (RuntimeException | Error e) {
          ended.ended(jobId, outcome, e, null);
          return;
        }
        ended.ended(jobId, outcome, null, looked);
      });
    });
  }
}
