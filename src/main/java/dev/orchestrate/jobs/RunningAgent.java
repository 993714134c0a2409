package dev.orchestrate.jobs;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/** A started agent attempt: wait for its outcome, or stop it. Safe to share between threads. */
public final class RunningAgent implements AgentHandle {

  private final ProcessHandle process;
  private final StopSignal stop;
  private final CompletableFuture<AgentOutcome> outcome;

  RunningAgent(ProcessHandle process, StopSignal stop, CompletableFuture<AgentOutcome> outcome) {
    this.process = process;
    this.stop = Objects.requireNonNull(stop, "stop");
    this.outcome = Objects.requireNonNull(outcome, "outcome");
  }

  /** An attempt that ended before a process existed, e.g. the agent binary is missing. */
  static RunningAgent finished(AgentOutcome outcome) {
    return new RunningAgent(null, new StopSignal(), CompletableFuture.completedFuture(outcome));
  }

  /** The agent's process id, or -1 if it never started. */
  public long pid() {
    return process == null ? -1 : process.pid();
  }

  /**
   * True until the attempt is over. The process may already have exited while its remaining
   * output is drained; once this is false, {@link #await()} returns at once.
   */
  public boolean isAlive() {
    return !outcome.isDone();
  }

  /** Blocks until the attempt is over; every call, from any thread, gets the same outcome. */
  public AgentOutcome await() throws InterruptedException {
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
