package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentOutcome.Ending;
import dev.orchestrate.outcome.AgentSession;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches one spawned agent until it is over: waits for it to exit, time out or be cancelled,
 * stops its process tree if needed, drains its output and turns all that into an outcome.
 */
final class AgentSupervisor {

  /** How long output may keep flowing after the agent ended; see {@link OutputCapture#finish}. */
  static final Duration READER_WAIT = Duration.ofSeconds(2);
  private static final Duration EXIT_WAIT_AFTER_KILL = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(AgentSupervisor.class);

  private final JobRequest request;
  private final Process process;
  private final OutputCapture capture;
  private final StopSignal stop;
  private final ResultFile resultFile;
  private final Clock clock;
  private final Instant started;
  private final long spawnedNanos;
  /** Null when {@code agent.stop_leftover_processes} is off. */
  private final JobProcesses members;
  private final Secrets secrets;

  AgentSupervisor(JobRequest request, Process process, OutputCapture capture, StopSignal stop,
      ResultFile resultFile, Clock clock, Instant started, long spawnedNanos) {
    this(request, process, capture, stop, resultFile, clock, started, spawnedNanos, null, Secrets.NONE);
  }

  AgentSupervisor(JobRequest request, Process process, OutputCapture capture, StopSignal stop,
      ResultFile resultFile, Clock clock, Instant started, long spawnedNanos, JobProcesses members,
      Secrets secrets) {
    this.members = members;
    this.secrets = secrets;
    this.request = request;
    this.process = process;
    this.capture = capture;
    this.stop = stop;
    this.resultFile = resultFile;
    this.clock = clock;
    this.started = started;
    this.spawnedNanos = spawnedNanos;
  }

  /**
   * The supervisor thread's body. Completes {@code outcome} whatever happens, so that no caller
   * of {@link RunningAgent#await()} hangs on a bug in here, and never leaves the agent running
   * unwatched.
   */
  void run(CompletableFuture<AgentOutcome> outcome) {
    try {
      outcome.complete(supervise());
    } catch (InterruptedException e) {
      abandon();
      outcome.completeExceptionally(e);
    } catch (RuntimeException | Error e) {
      LOG.error("supervising agent pid {} failed; killing it", process.pid(), e);
      abandon();
      outcome.completeExceptionally(e);
    }
  }

  /** Blocks until the attempt is over. */
  AgentOutcome supervise() throws InterruptedException {
    AgentOutcome outcome = outcome();
    String session = capture.sessionId(); // the conversation a retry may continue (docs/verification.md)
    return secrets.mask(session == null ? outcome : outcome.withSession(new AgentSession(session,
        AgentSession.Start.FRESH)));
  }

  private AgentOutcome outcome() throws InterruptedException {
    AgentConfig agent = request.agent();
    Ending ending = awaitExitOrStop();
    int descendants = 0;
    ProcessTree tree = new ProcessTree(process.toHandle(), members);
    if (ending != Ending.EXITED) {
      LOG.debug("stopping agent pid {} ({}), grace {}", process.pid(), ending, agent.killGrace());
      descendants = tree.terminate(agent.killGrace(), stop.hurry());
      process.waitFor(EXIT_WAIT_AFTER_KILL.toMillis(), TimeUnit.MILLISECONDS);
    } else if (members != null && tree.anyRunning()) {
      // Before the output is drained and the result file read: leftovers hold the pipes and may
      // still write the file.
      int left = tree.terminate(agent.killGrace(), stop.hurry());
      LOG.debug("agent pid {} exited and left {} process(es) running; stopped them", process.pid(), left);
    }
    OutputCapture.Tails tails = capture.finish(READER_WAIT);
    Duration elapsed = Duration.between(started, clock.instant());
    if (ending == Ending.TIMED_OUT) {
      return Outcomes.timedOut(agent.timeout(), descendants, tails, elapsed).withUsage(capture.report().usage())
          .withAnswer(capture.report().finalText());
    }
    if (ending == Ending.STALLED) {
      return Outcomes.stalled(agent.stallTimeout(), descendants, tails, elapsed).withUsage(capture.report().usage())
          .withAnswer(capture.report().finalText());
    }
    if (ending == Ending.CANCELLED) {
      return Outcomes.cancelled(elapsed).withUsage(capture.report().usage()); // what it spent until the stop
    }
    if (ending == Ending.REFUSED) {
      return Outcomes.refused(capture.refused().join(), descendants, tails, elapsed)
          .withUsage(capture.report().usage()).withAnswer(capture.report().finalText());
    }
    int exitCode = process.exitValue();
    LOG.debug("agent pid {} exited with code {} after {}", process.pid(), exitCode, elapsed);
    return Outcomes.exited(exitCode, resultFile.read(request.resultFile(), secrets),
        agent.resultFallback(), tails, elapsed, capture.report());
  }

  private Ending awaitExitOrStop() throws InterruptedException {
    Duration stall = request.agent().stallTimeout();
    while (true) {
      long remaining = nanosOrMax(request.agent().timeout()) - (System.nanoTime() - spawnedNanos);
      // With a stall timeout, also wake up when the agent would have been quiet for that long.
      long wait = stall == null ? remaining : Math.min(remaining, nanosOrMax(stall) - capture.quietNanos());
      try {
        CompletableFuture.anyOf(process.onExit(), stop.cancelRequested(), capture.refused())
            .get(Math.max(0, wait), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        if (wait < remaining && process.isAlive() && capture.quietNanos() < nanosOrMax(stall)) {
          continue; // it wrote something meanwhile: not stalled
        }
        // Fall through: the timeout or stall is claimed below unless a cancel won the race.
      } catch (ExecutionException e) {
        throw new IllegalStateException("waiting for agent pid " + process.pid() + " failed",
            e.getCause());
      }
      if (!process.isAlive()) {
        return Ending.EXITED; // an agent that exited just as it was stopped did finish by itself
      }
      if (capture.refused().isDone()) {
        return stop.refuse();
      }
      if (stop.cancelRequested().isDone()) {
        return Ending.CANCELLED;
      }
      return wait < remaining ? stop.stall() : stop.timeOut();
    }
  }

  private void abandon() {
    ProcessHandle agent = process.toHandle();
    agent.descendants().forEach(ProcessHandle::destroyForcibly);
    agent.destroyForcibly();
    if (members != null) {
      members.find().forEach(ProcessHandle::destroyForcibly);
    }
  }

  private static long nanosOrMax(Duration duration) {
    try {
      return duration.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE / 2;
    }
  }
}
