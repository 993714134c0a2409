package dev.orchestrate.jobs;

import dev.orchestrate.backlog.AgentConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts agent attempts as subprocesses following the agent protocol (DESIGN §4). A failure of
 * the agent itself, including a binary that cannot be started, is an {@link AgentOutcome}, never
 * an exception.
 */
public final class AgentRunner implements AgentLauncher {

  private static final Logger LOG = LoggerFactory.getLogger(AgentRunner.class);

  private final Clock clock;
  private final ResultFile resultFile = new ResultFile();

  public AgentRunner(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Prepares {@code request.jobDir()} and spawns the agent.
   *
   * @throws UncheckedIOException if the job directory, prompt file or log cannot be written
   * @throws IllegalArgumentException if {@code request.agent()} lacks a timeout, kill grace or
   *     result fallback, or has a negative output tail: a config-loading bug, caught before
   *     anything is spawned
   */
  @Override
  public RunningAgent start(JobRequest request) {
    AgentConfig agent = request.agent();
    requireRunnable(agent);
    CappedLog log = prepareJobDir(request);
    Instant started = clock.instant();
    Process process;
    try {
      process = processBuilder(request).start();
    } catch (IOException | IllegalArgumentException e) {
      String context = spawnFailure(request, e);
      LOG.debug("{} ({})", context, e.toString());
      log.writeLine(context);
      log.close("");
      return RunningAgent.finished(
          Outcomes.spawnFailed(context, Duration.between(started, clock.instant())));
    }
    long spawnedNanos = System.nanoTime();
    String name = "agent-" + process.pid();
    LOG.debug("started {} for {} phase {} attempt {}: {} in {}", name, request.itemId(),
        request.phase(), request.attempt(), agent.command(), request.workDir());

    OutputCapture capture = OutputCapture.start(process, log, agent.outputTailChars(), name,
        dev.orchestrate.jobs.presets.OutputReaders.of(agent.preset()));
    feedPrompt(process, request.prompt(), name);
    StopSignal stop = new StopSignal();
    AgentSupervisor supervisor = new AgentSupervisor(request, process, capture, stop, resultFile,
        clock, started, spawnedNanos);
    CompletableFuture<AgentOutcome> outcome = new CompletableFuture<>();
    Daemon.start(name + "-supervisor", () -> supervisor.run(outcome));
    return new RunningAgent(process.toHandle(), stop, outcome);
  }

  private static void requireRunnable(AgentConfig agent) {
    if (agent.timeout() == null || agent.killGrace() == null || agent.resultFallback() == null) {
      throw new IllegalArgumentException("agent config needs timeout, kill grace and result"
          + " fallback, got " + agent);
    }
    if (agent.outputTailChars() < 0) {
      throw new IllegalArgumentException("agent.output_tail_chars must not be negative, got "
          + agent.outputTailChars());
    }
  }

  private static CappedLog prepareJobDir(JobRequest request) {
    try {
      Files.createDirectories(request.jobDir());
      Files.writeString(request.promptFile(), request.prompt(), StandardCharsets.UTF_8);
      // A result file left by an earlier run in the same directory must not speak for this one.
      Files.deleteIfExists(request.resultFile());
      return CappedLog.create(request.logFile(), request.agent().logMaxBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("could not prepare job directory " + request.jobDir(), e);
    }
  }

  private static ProcessBuilder processBuilder(JobRequest request) {
    ProcessBuilder builder = new ProcessBuilder(request.agent().command())
        .directory(request.workDir().toFile());
    builder.environment().putAll(request.protocolEnv());
    builder.environment().putAll(request.agent().env());
    return builder;
  }

  /**
   * Writes the prompt on its own thread: a prompt larger than the pipe buffer would otherwise
   * block this thread until the agent reads it, which it may never do.
   */
  private static void feedPrompt(Process process, String prompt, String name) {
    byte[] bytes = prompt.getBytes(StandardCharsets.UTF_8);
    Daemon.start(name + "-stdin", () -> {
      try (OutputStream stdin = process.getOutputStream()) {
        stdin.write(bytes);
      } catch (IOException e) {
        // Reading stdin is optional: the prompt is also in ORCHESTRATE_PROMPT_FILE.
        LOG.debug("{} did not read its whole prompt from stdin: {}", name, e.getMessage());
      }
    });
  }

  private static String spawnFailure(JobRequest request, Exception e) {
    String agentName = request.agent().command().get(0);
    Path workDir = request.workDir();
    if (!Files.isDirectory(workDir)) {
      return "could not start agent '" + agentName + "': working directory " + workDir
          + " is not a directory";
    }
    return "could not start agent '" + agentName + "': " + reason(e) + " (working directory "
        + workDir + ")";
  }

  /** "error=2, No such file or directory" from the JDK's cause becomes the OS's own words. */
  private static String reason(Exception e) {
    String message = e.getCause() != null && e.getCause().getMessage() != null
        ? e.getCause().getMessage()
        : String.valueOf(e.getMessage());
    return message.replaceFirst("^error=\\d+, ", "");
  }
}
