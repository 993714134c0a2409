package dev.orchestrate.scheduler;

import dev.orchestrate.jobs.AgentHandle;
import dev.orchestrate.outcome.AgentOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a run that failed with an error of its own does before it returns: no agent left running. */
final class StopOnFailure {
  /** The run's log lines keep the category they always had (log configurations and tests name it). */
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  /** How long one wait for an agent lasts before a new stop request is looked for. */
  private static final long POLL_MS = 500;

  private StopOnFailure() {
  }

  /**
   * Cancels every running agent (TERM, grace, KILL of everything it started) and waits until each
   * is over, so that a run ended by an error leaves no agent behind once it returns. The wait is
   * bounded: kill_grace plus {@link #STOP_WAIT_MARGIN}. {@code stopAgain} says (and takes) a stop
   * request made meanwhile: the operator wants out now, and the agents are killed at once.
   */
  static void stopAgents(JobTable<Job> jobs, Duration killGrace, Throwable cause, BooleanSupplier stopAgain) {
    List<AgentHandle> agents = new ArrayList<>();
    for (JobTable.Entry<Job> entry : jobs.active()) {
      agents.add(entry.handle().agent());
    }
    if (agents.isEmpty()) {
      return;
    }
    log.info("the run failed ({}); stopping {} running agent(s) first", cause.toString(), agents.size());
    agents.forEach(AgentHandle::cancel);
    long deadline = System.nanoTime() + killGrace.plus(STOP_WAIT_MARGIN).toNanos();
    boolean interrupted = Thread.interrupted();
    for (AgentHandle agent : agents) {
      java.util.concurrent.CompletableFuture<AgentOutcome> finished = agent.finished().toCompletableFuture();
      while (!finished.isDone() && deadline - System.nanoTime() > 0) {
        try {
          finished.get(Math.min(POLL_MS, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1),
              TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          interrupted = true;
          agents.forEach(AgentHandle::cancel); // a second cancel kills at once
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          // not over yet, or its supervisor failed (and killed it): see below
        }
        if (stopAgain.getAsBoolean()) {
          agents.forEach(AgentHandle::cancel); // Ctrl-C meanwhile: the operator wants out now
        }
      }
      if (!finished.isDone()) {
        log.warn("an agent was not confirmed stopped within {} s",
            killGrace.plus(STOP_WAIT_MARGIN).toSeconds());
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Beyond kill_grace: the KILL, its confirmation and the output drain of a stopped agent. */
  static final Duration STOP_WAIT_MARGIN = Duration.ofSeconds(15);
}
