package dev.orchestrate.scheduler;

import dev.orchestrate.item.Placement;
import dev.orchestrate.item.WorkspaceUnavailableException;
import dev.orchestrate.jobs.AgentHandle;
import dev.orchestrate.jobs.AgentLauncher;
import dev.orchestrate.jobs.JobRequest;
import dev.orchestrate.outcome.AgentOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A job whose worktree is prepared on a {@link WorkspaceWorkers} thread before its agent starts
 * there: the scheduler records the job and goes on at once, and the git of {@code git worktree add}
 * or a reset (seconds on a large repository) never holds it up. A worktree that cannot be prepared
 * ends the job as a set-up that failed (the item blocked with the reason, the agent never
 * started, as when it was prepared on the scheduler thread); a cancel before the agent started
 * ends it as cancelled without starting it.
 */
final class PreparedStart implements AgentHandle {
  private final CompletableFuture<AgentOutcome> finished = new CompletableFuture<>();
  private final JobRequest provisional;
  private volatile JobRequest request;
  private AgentHandle agent;
  private boolean cancelled;

  /** @param provisional the job as known before its worktree is: its item, phase, attempt and directory */
  private PreparedStart(JobRequest provisional) {
    this.provisional = provisional;
  }

  /**
   * Starts preparing on {@code workers}: {@code prepare} makes the worktree ready, {@code request}
   * makes the job's request for it, {@code launcher} starts its agent.
   */
  static PreparedStart begin(WorkspaceWorkers workers, JobRequest provisional, Supplier<Placement> prepare,
      Function<Placement, JobRequest> request, AgentLauncher launcher) {
    PreparedStart start = new PreparedStart(provisional);
    workers.item(() -> start.run(prepare, request, launcher));
    return start;
  }

  private void run(Supplier<Placement> prepare, Function<Placement, JobRequest> make, AgentLauncher launcher) {
    long began = System.nanoTime();
    try {
      if (cancelRequested()) {
        finished.complete(AgentOutcome.cancelled(Duration.ofNanos(System.nanoTime() - began)));
        return;
      }
      Placement placement;
      try {
        placement = prepare.get();
      } catch (WorkspaceUnavailableException e) {
        finished
            .complete(AgentOutcome.setupFailed(e.getMessage(), List.of(), Duration.ofNanos(System.nanoTime() - began)));
        return;
      }
      JobRequest made = make.apply(placement);
      request = made;
      AgentHandle started;
      synchronized (this) {
        if (cancelled) {
          finished.complete(AgentOutcome.cancelled(Duration.ofNanos(System.nanoTime() - began)));
          return;
        }
        started = launcher.start(made);
        agent = started;
      }
      started.finished().whenComplete((outcome, error) -> {
        if (error != null) {
          finished.completeExceptionally(error);
        } else {
          finished.complete(outcome);
        }
      });
    } catch (RuntimeException | Error e) {
      finished.completeExceptionally(e);
    }
  }

  /** The job's request: as made for its worktree once prepared, else as known at its start. */
  JobRequest request() {
    JobRequest made = request;
    return made != null ? made : provisional;
  }

  synchronized boolean cancelRequested() {
    return cancelled;
  }

  @Override
  public CompletionStage<AgentOutcome> finished() {
    return finished;
  }

  @Override
  public void cancel() {
    AgentHandle started;
    synchronized (this) {
      cancelled = true;
      started = agent;
    }
    if (started != null) {
      started.cancel();
    }
  }
}
