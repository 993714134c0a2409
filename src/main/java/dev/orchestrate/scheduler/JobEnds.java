package dev.orchestrate.scheduler;

import dev.orchestrate.config.Config;
import dev.orchestrate.context.TurnHistory;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobRepository;
import dev.orchestrate.item.LeaseLostException;
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
 * the run ({@link LimitPolicy}). A cut by the agent's own budget flag ({@code budget_exhausted}) is
 * answered: recorded with what it spent, it costs the item no attempt and the phase runs again
 * (continuing the session) when the run's budget lets a job start. The turn, the agent's memories and
 * the outcome memory are kept.
 */
final class JobEnds {
  /** The run's log lines keep the category they always had (log configurations and tests name it). */
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  private final JobRepository store;
  private final Config config;
  private final Clock clock;
  private final RunListener listener;
  private final TurnHistory history;
  private final ProjectMemory memory;
  private final ProviderPauses pauses;
  private final Claims claims;
  /** Whether a stop was requested: an agent that failed then died of the Ctrl-C, not of its phase. */
  private final BooleanSupplier stopRequested;
  /** Shows a pause's end as the pauses' own messages do (in the run clock's zone, rounded up to the minute). */
  private final LimitPolicy times;

  JobEnds(JobRepository store, Config config, Clock clock, RunListener listener, TurnHistory history,
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
    this.times = new LimitPolicy(config.agent().onUsageLimit(), config.agent().maxWait(), clock.getZone(), () -> 0.5);
  }

  /** The ways a job ends, each handled on its own ({@link #finish}). */
  enum Ending {
    /** The run was interrupted or the job cancelled: recorded as cancelled, the phase runs again. */
    CANCELLED,
    /** Its provider ended it (a usage or rate limit, a refused key): it costs the item nothing. */
    LIMITED,
    /** The agent answered (or failed, stalled, was blocked): the item moves on as its outcome says. */
    ANSWERED;

    /**
     * How a job with {@code outcome} ended. {@code stopping}: the job's cancel or the run's stop
     * was requested; an agent that then failed died of the Ctrl-C (which reaches its process group
     * too), not of its phase.
     */
    static Ending of(AgentOutcome outcome, boolean stopping) {
      if (outcome.ending() == AgentOutcome.Ending.CANCELLED || (stopping && outcome.result() == AgentResult.FAILED)) {
        return CANCELLED;
      }
      OutcomeClass kind = outcome.kind();
      return (kind.isLimit() || kind == OutcomeClass.AUTH || kind == OutcomeClass.SANDBOX) && outcome.provider() != null
          ? LIMITED : ANSWERED;
    }
  }

  /**
   * Takes in the end of job {@code jobId}: its figures, its workspace, then one handler for the way it
   * ended ({@link Ending}): {@link #cancelled}, {@link #limited} or {@link #answered}. An agent that
   * left its workspace (moved the base branch, replaced its worktree) is blocked, whatever it reported
   * and even if the run was interrupted meanwhile. {@code commit} writes a state change the
   * integration asks for (a conflict blocks the item).
   */
  void finish(Session s, long jobId, AgentOutcome reported, Integration integration, Predicate<Step> commit) {
    finish(s, jobId, reported, null, integration, commit);
  }

  /** As above, with what the look at the job's worktree found off the scheduler thread (null: look now). */
  void finish(Session s, long jobId, AgentOutcome reported, Integration.Looked looked, Integration integration,
      Predicate<Step> commit) {
    EndingJob ending = EndingJob.of(s, jobId, request -> FollowUpItem.of(request.itemId(), request.phase(),
        reported.followUps(), config.defaultPipeline()));
    AgentOutcome outcome = counted(ending, reported);
    String breach = looked != null ? looked.breach() : integration.inspect(ending.request, outcome);
    Ending way = breach != null ? Ending.ANSWERED
        : Ending.of(outcome, ending.entry.cancelRequested() || stopRequested.getAsBoolean());
    if (breach != null) {
      outcome = blocked(outcome, breach);
    }
    switch (way) {
      case CANCELLED -> cancelled(ending, outcome);
      case LIMITED -> limited(ending, outcome);
      case ANSWERED -> {
        if (outcome.kind().providerAnswered() && pauses.worked(ending.profile(), ending.entry.startedAt())) {
          listener.pauseEnded(ending.profile()); // its provider answered after the pause began: it is over
        }
        answered(ending, outcome, looked, integration, commit);
      }
    }
  }

  /**
   * The job's figures as they count: a resumed session's running totals less what its earlier jobs
   * were recorded with, within their ceilings, added to the run's budget (a cancelled job spent too).
   */
  private AgentOutcome counted(EndingJob ending, AgentOutcome outcome) {
    Job job = ending.job;
    if (outcome.session().start() == AgentSession.Start.RESUMED) {
      outcome = outcome.withUsage(outcome.usage().withoutEarlier(job.sessionBefore(),
          job.profile().preset().sessionTokens(), job.profile().preset().sessionCost()));
    }
    outcome = outcome.withUsage(outcome.usage().bounded());
    if (outcome.usage().note() != null) {
      log.warn("{}: phase {} attempt {}: {}", ending.item.id(), ending.request.phase(), ending.request.attempt(),
          outcome.usage().note());
    }
    ending.session.budget.ended(ending.jobId, outcome.usage());
    return outcome;
  }

  /**
   * Blocked by orchestrate, not by the agent: the verdict says so (orchestrate's own check), so the
   * reason names orchestrate and what it found (issue 43: it began "agent reported blocked").
   */
  private static AgentOutcome blocked(AgentOutcome outcome, String breach) {
    return new AgentOutcome(AgentResult.BLOCKED, outcome.summary(), breach, List.of(), outcome.followUps(),
        outcome.exitCode(), outcome.ending(), outcome.elapsed()).withUsage(outcome.usage())
        .withAnswer(outcome.answer()).withSession(outcome.session()).withChecks(outcome.checks())
        .withVerdict(OutcomeClass.BLOCKED);
  }

  /** Recorded as cancelled, with what it spent; its follow-ups still join; the phase runs again. */
  private void cancelled(EndingJob ending, AgentOutcome outcome) {
    ItemState item = ending.item;
    JobEnd end = new JobEnd(JobState.CANCELLED, null, outcome.exitCode().isPresent() ? outcome.exitCode().getAsInt()
        : null, "cancelled: the run was interrupted", clock.instant()).withUsage(outcome.usage())
        .with(outcome.session(), outcome.checks());
    List<ItemState> added = store.jobEnded(ending.jobId, ending.withLogBytes(end), null, ending.followUps,
        clock.instant());
    ending.leaveTable(JobState.CANCELLED);
    history.recordAnswer(item.id(), ending.request.phase(), ending.request.attempt(), new TurnHistory.Answer(
        "cancelled", outcome.summary(), outcome.context(), outcome.answer(), ending.plainOutput()));
    // Shown as cancelled, as recorded, even when the agent died of the Ctrl-C before its cancel.
    listener.jobFinished(item, item, new AgentOutcome(outcome.result(), outcome.summary(), outcome.context(),
        outcome.memories(), outcome.followUps(), outcome.exitCode(), AgentOutcome.Ending.CANCELLED,
        outcome.elapsed()));
    join(ending.session, added);
  }

  /**
   * An attempt its provider ended (a usage or rate limit, a refused key): recorded with its class,
   * but it costs the item nothing (no attempt of its phase counted, no step towards blocking or the
   * circuit breaker, no phase of the cap), and the item keeps its place; the profile pauses, or the
   * run halts, as {@link LimitPolicy} decides.
   */
  private void limited(EndingJob ending, AgentOutcome outcome) {
    Session s = ending.session;
    String profile = ending.profile();
    LimitPolicy.Decision d = pauses.failed(profile, outcome.provider(), ending.entry.startedAt(), clock.instant());
    s.limited.merge(outcome.kind().key(), 1, Integer::sum);
    Step step = Transitions.afterLimit(ending.item, outcome, profile);
    try {
      store.jobEnded(ending.jobId, ending.withLogBytes(JobEnd.of(outcome, JobState.FAILED, clock.instant())), step,
          List.of(), clock.instant());
    } catch (LeaseLostException e) {
      log.warn("{}: the end of phase {} is dropped: {}", ending.item.id(), ending.request.phase(), e.getMessage());
    }
    ending.leaveTable(JobState.FAILED);
    s.jobsStarted--; // a limit costs no phase of the cap
    history.recordAnswer(ending.item.id(), ending.request.phase(), ending.request.attempt(), new TurnHistory.Answer(
        outcome.kind().key(), "", outcome.provider().message(), outcome.answer(), ending.plainOutput()));
    s.items.put(step.next().id(), step.next());
    listener.jobFinished(ending.item, step.next(), outcome);
    // with a fallback that is not paused, a usage limit pauses the profile instead of halting the run
    // (a further job of the same wave comes with no pause and no message: the fallback covers it too)
    boolean fallback = d.halt() == HaltReason.USAGE_LIMIT && pauses.fallbackFor(config, profile, clock.instant());
    String message = d.message() == null || !fallback ? d.message()
        : profile + " hit its usage limit: " + (d.pause() != null && d.pause().until() != null ? "paused until "
            + times.clock(d.pause().until(), clock.instant()) + "; " : "") + "its fallback takes its phases meanwhile";
    if (message != null) { // null: one more job refused in the same wave, already said
      log.debug("{}", message);
      listener.providerLimit(message);
    }
    if (d.pause() != null) {
      listener.profilePaused(d.pause());
    }
    if (fallback) {
      return; // another profile takes its phases over while it is paused
    }
    if (d.halt() != null && s.limitHalt == null) {
      s.limitHalt = d.halt();
      s.haltDetail = d.message() != null ? d.message() : profile + " hit a provider's limit";
    }
  }

  /**
   * The agent answered: its work is committed, its result becomes the item's next state in one
   * commit with the job's record ({@link Transitions#afterAttempt}), or is dropped when another
   * runner took the item over ({@link #leaseLost}); then the turn, the memories and the maps, and a
   * done item is integrated.
   */
  private void answered(EndingJob ending, AgentOutcome reported, Integration.Looked looked, Integration integration,
      Predicate<Step> commit) {
    ItemState item = ending.item;
    JobRequest request = ending.request;
    AgentOutcome outcome = looked != null ? looked.committed().apply(reported)
        : integration.commitWork(ending.jobId, request, reported, ending.job.pipeline(),
            Transitions.currentPhase(item, ending.job.pipeline()));
    Step step = Transitions.afterAttempt(item, ending.job.pipeline(), outcome, config.execution().maxRetries(),
        ending.profile());
    if (integration.queues()) {
      step = Transitions.toLand(step); // done once its work has landed
    }
    ending.session.trackExhaustion(outcome, step);
    ending.session.trackBudgetCut(item, request.phase(), outcome);
    JobState state = JobState.of(outcome);
    List<ItemState> added;
    try {
      added = store.jobEnded(ending.jobId, ending.withLogBytes(JobEnd.of(outcome, state, clock.instant())), step,
          ending.followUps, clock.instant());
    } catch (LeaseLostException e) {
      leaseLost(ending, e);
      return;
    }
    if (state == JobState.COMPLETED) {
      integration.committed(item.id());
    }
    ending.leaveTable(state);
    history.recordAnswer(item.id(), request.phase(), request.attempt(), new TurnHistory.Answer(
        outcome.result().key(), outcome.summary(), outcome.context(), outcome.answer(), ending.plainOutput()));
    memory.agentMemories(item.id(), agentMemories(item, outcome));
    moveOn(ending.session, item, step.next(), outcome);
    if (step.next().status() == ItemStatus.DONE || step.next().status() == ItemStatus.LANDING) {
      integration.succeeded(item.id(), request.phase(), ending.profile(), outcome);
    }
    integration.finished(step.next(), commit);
    join(ending.session, added);
  }

  /**
   * Another runner took the item over (this one's heartbeat was too old): the result is not recorded,
   * and the phase runs again there, as after a kill -9.
   */
  private void leaseLost(EndingJob ending, LeaseLostException e) {
    log.warn("{}: the result of phase {} is dropped: {}", ending.item.id(), ending.request.phase(), e.getMessage());
    ending.leaveTable(JobState.INTERRUPTED);
    claims.markStale();
  }

  /** The session's maps follow the committed state: a terminal item leaves them, a success puts its summary. */
  private void moveOn(Session s, ItemState before, ItemState after, AgentOutcome outcome) {
    remember(before, after, outcome.summary());
    s.items.put(after.id(), after);
    s.count(before, after);
    if (after.status().isTerminal()) {
      s.summaries.finished(before.id());
    } else if (outcome.result() == AgentResult.PHASE_COMPLETE || outcome.result() == AgentResult.SUBPHASE_COMPLETE) {
      s.summaries.put(before.id(), after.progress().phaseSummary());
    }
    listener.jobFinished(before, after, outcome);
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
