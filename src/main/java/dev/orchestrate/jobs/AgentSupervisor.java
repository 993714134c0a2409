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
  /** How long an ACP agent whose turn is over may take to exit at the end of its stdin before it is stopped. */
  static final Duration ACP_EXIT_WAIT = Duration.ofMillis(500);
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
  /** The client of an ACP agent ({@code agent.preset: acp}); null for every other agent. */
  private final AcpClient acp;

  AgentSupervisor(JobRequest request, Process process, OutputCapture capture, StopSignal stop,
      ResultFile resultFile, Clock clock, Instant started, long spawnedNanos) {
    this(request, process, capture, stop, resultFile, clock, started, spawnedNanos, null, Secrets.NONE);
  }

  AgentSupervisor(JobRequest request, Process process, OutputCapture capture, StopSignal stop,
      ResultFile resultFile, Clock clock, Instant started, long spawnedNanos, JobProcesses members,
      Secrets secrets) {
    this(request, process, capture, stop, resultFile, clock, started, spawnedNanos, members, secrets, null);
  }

  AgentSupervisor(JobRequest request, Process process, OutputCapture capture, StopSignal stop,
      ResultFile resultFile, Clock clock, Instant started, long spawnedNanos, JobProcesses members,
      Secrets secrets, AcpClient acp) {
    this.acp = acp;
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
    try {
      return ended();
    } finally {
      if (acp != null) {
        acp.close(); // ends its writer, whatever happened
      }
    }
  }

  private AgentOutcome ended() throws InterruptedException {
    AgentConfig agent = request.agent();
    Ending ending = awaitExitOrStop();
    int descendants = 0;
    ProcessTree tree = new ProcessTree(process.toHandle(), members);
    boolean turnOver = acp != null && acp.over().isDone();
    boolean endedByUs = false;
    if (ending != Ending.EXITED) {
      LOG.debug("stopping agent pid {} ({}), grace {}", process.pid(), ending, agent.killGrace());
      cancelTurn(agent.killGrace());
      descendants = tree.terminate(agent.killGrace(), stop.hurry());
      process.waitFor(EXIT_WAIT_AFTER_KILL.toMillis(), TimeUnit.MILLISECONDS);
    } else if (turnOver && process.isAlive()) {
      // An ACP agent serves its session until told otherwise: the turn is over, so is the agent.
      // The end of its stdin first (one that exits then does), then its process tree.
      acp.close();
      process.waitFor(ACP_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      endedByUs = process.isAlive();
      if (tree.anyRunning()) {
        tree.terminate(agent.killGrace(), stop.hurry());
        process.waitFor(EXIT_WAIT_AFTER_KILL.toMillis(), TimeUnit.MILLISECONDS);
      }
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
    // An ACP turn that ended by the protocol stands for an exit of 0 (the agent was ended by
    // orchestrate afterwards); its report carries any failure (a stopReason, an error response).
    int exitCode = turnOver && (acp.answered() || endedByUs) ? 0 : process.exitValue();
    LOG.debug("agent pid {} exited with code {} after {}", process.pid(), exitCode, elapsed);
    return Outcomes.exited(exitCode, resultFile.read(request.resultFile(), secrets),
        agent.resultFallback(), tails, elapsed, capture.report());
  }

  private Ending awaitExitOrStop() throws InterruptedException {
    Duration stall = request.agent().stallTimeout();
    CompletableFuture<Void> turnOver = acp == null ? new CompletableFuture<>() : acp.over();
    while (true) {
      long remaining = nanosOrMax(request.agent().timeout()) - (System.nanoTime() - spawnedNanos);
      // With a stall timeout, also wake up when the agent would have been quiet for that long.
      long wait = stall == null ? remaining : Math.min(remaining, nanosOrMax(stall) - capture.quietNanos());
      try {
        CompletableFuture.anyOf(process.onExit(), stop.cancelRequested(), capture.refused(), turnOver)
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
      if (!process.isAlive() || turnOver.isDone()) {
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

  /**
   * An ACP agent stopped in its turn (a timeout, a stall, a stop) is sent {@code session/cancel} and
   * given {@code grace} to wind the turn down before its process tree is stopped.
   */
  private void cancelTurn(Duration grace) throws InterruptedException {
    if (acp == null || !acp.cancel()) {
      return;
    }
    long deadline = System.nanoTime() + grace.toNanos();
    while (System.nanoTime() < deadline && !acp.over().isDone() && process.isAlive() && stop.hurry().getCount() > 0) {
      Thread.sleep(20);
    }
  }

  private void abandon() {
    if (acp != null) {
      acp.close();
    }
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
