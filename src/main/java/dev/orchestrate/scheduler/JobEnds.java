package dev.orchestrate.scheduler;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.Config;
import dev.orchestrate.context.TurnHistory;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.LeaseLostException;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.NewMemory;
import dev.orchestrate.memory.ProjectMemory;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of a job, on the scheduler thread: what its agent reported becomes the item's next state
 * in one commit with the job's record ({@link Transitions#afterAttempt}), a cancelled job is recorded
 * as such, and a provider's limit or refusal costs the item nothing and pauses the profile or halts
 * the run ({@link LimitPolicy}). The turn, the agent's memories and the outcome memory are kept.
 */
final class JobEnds {
  /** The run's log lines keep the category they always had (log configurations and tests name it). */
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  private final StateRepository store;
  private final Config config;
  private final Clock clock;
  private final RunListener listener;
  private final TurnHistory history;
  private final ProjectMemory memory;
  private final ProviderPauses pauses;
  private final Claims claims;
  /** Whether a stop was requested: an agent that failed then died of the Ctrl-C, not of its phase. */
  private final BooleanSupplier stopRequested;

  JobEnds(StateRepository store, Config config, Clock clock, RunListener listener, TurnHistory history,
      ProjectMemory memory, ProviderPauses pauses, Claims claims, BooleanSupplier stopRequested) {
    this.store = store;
    this.config = config;
    this.clock = clock;
    this.listener = listener;
    this.history = history;
    this.memory = memory;
    this.pauses = pauses;
    this.claims = claims;
    this.stopRequested = stopRequested;
  }

  /**
   * Takes in the end of job {@code jobId}: its figures, its workspace, its result committed with the
   * item's next state (or dropped when another runner took the item over), the turn, the memories,
   * the maps; a done item is integrated. {@code commit} writes a state change the integration asks
   * for (a conflict blocks the item).
   */
  void finish(Session s, long jobId, AgentOutcome outcome, Integration integration, Predicate<Step> commit) {
    JobTable.Entry<Job> entry = s.jobs.get(jobId)
        .orElseThrow(() -> new IllegalStateException("job " + jobId + " ended but is not in the job table"));
    Job job = entry.handle();
    JobRequest request = job.request();
    ItemState item = s.items.get(request.itemId());
    s.runningItems.remove(request.itemId());
    boolean cancelled = outcome.ending() == AgentOutcome.Ending.CANCELLED
        // Ctrl-C reaches the agent's process group too; its death is not a failure of the phase.
        || ((entry.cancelRequested() || stopRequested.getAsBoolean()) && outcome.result() == AgentResult.FAILED);
    List<FollowUpItem> followUps = FollowUpItem.of(item.id(), request.phase(), outcome.followUps(),
        config.defaultPipeline());
    if (outcome.session().start() == AgentSession.Start.RESUMED) {
      // The session's running totals, less what its earlier jobs were recorded with: this job's share.
      outcome = outcome.withUsage(outcome.usage().withoutEarlier(job.sessionBefore(),
          job.profile().preset().sessionTokens(), job.profile().preset().sessionCost()));
    }
    // Whatever launched it, a job's figures are within their ceilings before they are counted or stored.
    outcome = outcome.withUsage(outcome.usage().bounded());
    if (outcome.usage().note() != null) {
      log.warn("{}: phase {} attempt {}: {}", item.id(), request.phase(), request.attempt(), outcome.usage().note());
    }
    s.budget.ended(jobId, outcome.usage()); // a cancelled job spent too
    // An agent that left its workspace (moved the base branch, replaced its worktree) is blocked,
    // whatever it reported and even if the run was interrupted meanwhile.
    String breach = integration.inspect(request, outcome);
    if (breach != null) {
      cancelled = false;
      outcome = new AgentOutcome(AgentResult.BLOCKED, outcome.summary(), breach, List.of(), outcome.followUps(),
          outcome.exitCode(), outcome.ending(), outcome.elapsed()).withUsage(outcome.usage())
          .withAnswer(outcome.answer())
          .withSession(outcome.session()).withChecks(outcome.checks());
    }
    OutcomeClass kind = outcome.kind();
    if (!cancelled && (kind.isLimit() || kind == OutcomeClass.AUTH) && outcome.provider() != null) {
      limited(s, jobId, item, request, outcome, job.profile().profileName(), plainOutput(job));
      return;
    }
    if (!cancelled && (kind == OutcomeClass.SUCCEEDED || kind == OutcomeClass.FAILED || kind == OutcomeClass.BLOCKED
        || kind == OutcomeClass.DENIED || kind == OutcomeClass.VERIFY_FAILED || kind == OutcomeClass.NO_CHANGES
        || kind == OutcomeClass.PROTECTED_CHANGED)) {
      // (a red gate or no changes: the agent's provider answered, whatever orchestrate made of it)
      // answered after the pause began: it is over
      if (pauses.worked(job.profile().profileName(), entry.startedAt())) {
        listener.pauseEnded(job.profile().profileName());
      }
    }
    if (cancelled) {
      List<ItemState> added = store.jobEnded(jobId, new JobEnd(JobState.CANCELLED, null,
          outcome.exitCode().isPresent() ? outcome.exitCode().getAsInt() : null,
          "cancelled: the run was interrupted", clock.instant()).withUsage(outcome.usage())
          .with(outcome.session(), outcome.checks()), null, followUps, clock.instant());
      store.jobLogBytes(jobId, directoryBytes(request.logFile().getParent()));
      s.jobs.ended(jobId, JobState.CANCELLED);
      s.jobs.cleanUp();
      history.recordAnswer(item.id(), request.phase(), request.attempt(), new TurnHistory.Answer("cancelled",
          outcome.summary(), outcome.context(), outcome.answer(), plainOutput(job)));
      // Shown as cancelled, as recorded, even when the agent died of the Ctrl-C before its cancel.
      listener.jobFinished(item, item, new AgentOutcome(outcome.result(), outcome.summary(), outcome.context(),
          outcome.memories(), outcome.followUps(), outcome.exitCode(), AgentOutcome.Ending.CANCELLED,
          outcome.elapsed()));
      join(s, added);
      return;
    }
    outcome = integration.commitWork(jobId, request, outcome, job.pipeline(),
        Transitions.currentPhase(item, job.pipeline()));
    Step step = Transitions.afterAttempt(item, job.pipeline(), outcome, config.execution().maxRetries(),
        job.profile().profileName());
    if (integration.queues()) {
      step = Transitions.toLand(step); // done once its work has landed
    }
    s.trackExhaustion(outcome, step);
    JobState state = JobState.of(outcome);
    List<ItemState> added;
    try {
      added = store.jobEnded(jobId, JobEnd.of(outcome, state, clock.instant()), step, followUps, clock.instant());
    } catch (LeaseLostException e) {
      // Another runner took the item over (this one's heartbeat was too old): its result is not
      // recorded, and the phase runs again there, as after a kill -9.
      log.warn("{}: the result of phase {} is dropped: {}", item.id(), request.phase(), e.getMessage());
      s.jobs.ended(jobId, JobState.INTERRUPTED);
      s.jobs.cleanUp();
      claims.markStale();
      return;
    }
    store.jobLogBytes(jobId, directoryBytes(request.logFile().getParent()));
    if (state == JobState.COMPLETED) {
      integration.committed(item.id());
    }
    s.jobs.ended(jobId, state);
    s.jobs.cleanUp();
    history.recordAnswer(item.id(), request.phase(), request.attempt(), new TurnHistory.Answer(
        outcome.result().key(), outcome.summary(), outcome.context(), outcome.answer(), plainOutput(job)));
    memory.agentMemories(item.id(), agentMemories(item, outcome));
    remember(item, step.next(), outcome.summary());
    s.items.put(step.next().id(), step.next());
    s.count(item, step.next());
    // The map follows the committed state: a terminal item leaves it, a success puts its summary.
    if (step.next().status().isTerminal()) {
      s.summaries.finished(item.id());
    } else if (outcome.result() == AgentResult.PHASE_COMPLETE || outcome.result() == AgentResult.SUBPHASE_COMPLETE) {
      s.summaries.put(item.id(), step.next().progress().phaseSummary());
    }
    listener.jobFinished(item, step.next(), outcome);
    if (step.next().status() == ItemStatus.DONE || step.next().status() == ItemStatus.LANDING) {
      integration.succeeded(item.id(), request.phase(), job.profile().profileName(), outcome);
    }
    integration.finished(step.next(), commit);
    join(s, added);
  }

  /**
   * An attempt its provider ended (a usage or rate limit, a refused key): recorded with its class,
   * but it costs the item nothing (no attempt of its phase counted, no step towards blocking or the
   * circuit breaker, no phase of the cap), and the item keeps its place; the profile pauses, or the
   * run halts, as {@link LimitPolicy} decides.
   */
  private void limited(Session s, long jobId, ItemState item, JobRequest request, AgentOutcome outcome,
      String profile, Path plainOutput) {
    LimitPolicy.Decision d = pauses.failed(profile, outcome.provider(), clock.instant());
    s.limited.merge(outcome.kind().key(), 1, Integer::sum);
    Step step = Transitions.afterLimit(item, outcome, profile);
    try {
      store.jobEnded(jobId, JobEnd.of(outcome, JobState.FAILED, clock.instant()), step, List.of(), clock.instant());
    } catch (LeaseLostException e) {
      log.warn("{}: the end of phase {} is dropped: {}", item.id(), request.phase(), e.getMessage());
    }
    store.jobLogBytes(jobId, directoryBytes(request.logFile().getParent()));
    s.jobs.ended(jobId, JobState.FAILED);
    s.jobs.cleanUp();
    s.jobsStarted--; // a limit costs no phase of the cap
    history.recordAnswer(item.id(), request.phase(), request.attempt(), new TurnHistory.Answer(
        outcome.kind().key(), "", outcome.provider().message(), outcome.answer(), plainOutput));
    s.items.put(step.next().id(), step.next());
    listener.jobFinished(item, step.next(), outcome);
    log.debug("{}", d.message());
    listener.providerLimit(d.message());
    if (d.pause() != null) {
      listener.profilePaused(d.pause());
    }
    if (d.halt() == HaltReason.USAGE_LIMIT && pauses.fallbackFor(config, profile, clock.instant())) {
      return; // another profile takes its phases over while it is paused
    }
    if (d.halt() != null && s.limitHalt == null) {
      s.limitHalt = d.halt();
      s.haltDetail = d.message();
    }
  }

  /**
   * The output log whose tail the turn keeps: a plain command's, which is what it printed. A preset's
   * log is its CLI's JSON event stream (usage, model figures, tool calls): its turn keeps the answer
   * the preset's reader parsed instead, never raw events, which every later prompt would pay for.
   */
  private static Path plainOutput(Job job) {
    return job.profile().preset() == AgentPreset.COMMAND ? job.request().logFile() : null;
  }

  /**
   * The bytes of the regular files directly in a job's directory (output log, prompt, result); 0 if
   * unreadable. Links an agent planted there are not followed: they would count another file's size.
   */
  static long directoryBytes(Path dir) {
    long bytes = 0;
    try (java.nio.file.DirectoryStream<Path> files = java.nio.file.Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        try {
          java.nio.file.attribute.BasicFileAttributes attributes = java.nio.file.Files.readAttributes(file,
              java.nio.file.attribute.BasicFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
          if (attributes.isRegularFile()) {
            bytes += attributes.size();
          }
        } catch (java.io.IOException e) {
          // gone in between: not counted
        }
      }
    } catch (java.io.IOException e) {
      return 0;
    }
    return bytes;
  }

  /** Follow-up items join this session at the end of backlog order, so they run in this run. */
  private void join(Session s, List<ItemState> added) {
    for (ItemState item : added) {
      s.items.put(item.id(), item);
      listener.itemAdded(item);
    }
  }

  /** Records the outcome memory when an item has just reached Done or Blocked. */
  void remember(ItemState before, ItemState after, String summary) {
    if (before.status() == after.status() || !after.status().isTerminal()
        || after.status() == ItemStatus.AWAITING_REVIEW || after.status() == ItemStatus.LANDING) {
      return; // an item awaiting review or landing is neither done nor blocked yet
    }
    boolean done = after.status() == ItemStatus.DONE;
    memory.itemFinished(after.id(), after.definition().title(),
        done ? ProjectMemory.FinalStatus.DONE : ProjectMemory.FinalStatus.BLOCKED,
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
}
