package dev.orchestrate.jobs;

import dev.orchestrate.outcome.AgentOutcome;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/** A started agent attempt: wait for its outcome, or stop it. Safe to share between threads. */
final class RunningAgent implements AgentHandle {

  /** The process the job runs now (a set-up step, the agent, a gate); null before the first starts. */
  private final java.util.concurrent.atomic.AtomicReference<ProcessHandle> process;
  private final StopSignal stop;
  private final CompletableFuture<AgentOutcome> outcome;

  RunningAgent(java.util.concurrent.atomic.AtomicReference<ProcessHandle> process, StopSignal stop,
      CompletableFuture<AgentOutcome> outcome) {
    this.process = process;
    this.stop = Objects.requireNonNull(stop, "stop");
    this.outcome = Objects.requireNonNull(outcome, "outcome");
  }

  /** An attempt that ended before a process existed, e.g. the agent binary is missing. */
  static RunningAgent finished(AgentOutcome outcome) {
    return new RunningAgent(new java.util.concurrent.atomic.AtomicReference<>(), new StopSignal(),
        CompletableFuture.completedFuture(outcome));
  }

  /** The process id of what the job runs now (the agent, or a set-up step or gate around it), or -1 if none started. */
  long pid() {
    ProcessHandle now = process.get();
    return now == null ? -1 : now.pid();
  }

  /**
   * True until the attempt is over. The process may already have exited while its remaining
   * output is drained; once this is false, {@link #await()} returns at once.
   */
  boolean isAlive() {
    return !outcome.isDone();
  }

  /** Blocks until the attempt is over; every call, from any thread, gets the same outcome. */
  AgentOutcome await() throws InterruptedException {
    try {
      return outcome.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("supervising agent pid " + pid() + " failed", e.getCause());
    }
  }

  @Override
  public CompletionStage<AgentOutcome> finished() {
    return outcome.minimalCompletionStage();
  }

  /**
   * Stops the agent and its descendants: TERM, then KILL after {@code agent.kill_grace}. Returns
   * at once. Calling again while the grace period runs kills at once; after the attempt is over
   * it does nothing.
   */
  @Override
  public void cancel() {
    stop.cancel();
  }
}
