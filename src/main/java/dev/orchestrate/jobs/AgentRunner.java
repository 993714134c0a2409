package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.jobs.presets.OutputReaders;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts agent attempts as subprocesses following the agent protocol (docs/agents.md). A failure of
 * the agent itself, including a binary that cannot be started, is an {@link AgentOutcome}, never
 * an exception.
 */
public final class AgentRunner implements AgentLauncher {

  private static final Logger LOG = LoggerFactory.getLogger(AgentRunner.class);

  private final Clock clock;
  private final ResultFile resultFile = new ResultFile();
  private final Map<String, String> runnerEnv;
  private final String summarizerKeyEnv;
  private final Optional<Path> setsid;
  /** The runner of a shared state this launcher starts agents for; null: the state's one run. */
  private final String runner;

  /** Agents inherit this JVM's environment; no summarizer key is withheld. */
  public AgentRunner(Clock clock) {
    this(clock, System.getenv(), null);
  }

  /**
   * @param runnerEnv        the environment agents inherit (orchestrate's own)
   * @param summarizerKeyEnv {@code context.summarizer.api_key_env}, withheld from agents unless
   *                         {@code agent.pass_summarizer_key} or {@code agent.env} sets it; null
   *                         if there is none
   */
  public AgentRunner(Clock clock, Map<String, String> runnerEnv, String summarizerKeyEnv) {
    this(clock, runnerEnv, summarizerKeyEnv, Executables.find("setsid", runnerEnv.get("PATH")));
  }

  /** {@code setsid}: the program that starts an agent in its own session, if there is one. */
  AgentRunner(Clock clock, Map<String, String> runnerEnv, String summarizerKeyEnv, Optional<Path> setsid) {
    this(clock, runnerEnv, summarizerKeyEnv, setsid, null);
  }

  private AgentRunner(Clock clock, Map<String, String> runnerEnv, String summarizerKeyEnv, Optional<Path> setsid,
      String runner) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.runnerEnv = Map.copyOf(runnerEnv);
    this.summarizerKeyEnv = summarizerKeyEnv;
    this.setsid = setsid;
    this.runner = runner;
  }

  /**
   * This launcher for runner {@code runnerId} of a state several runners share: its agents' job
   * tokens name the runner, so that its leftovers are told from the live agents of other runners
   * on this host that write to the same jobs directory. Null: the state's one run.
   */
  public AgentRunner forRunner(String runnerId) {
    return new AgentRunner(clock, runnerEnv, summarizerKeyEnv, setsid, runnerId);
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
    Secrets secrets = Secrets.forAgent(runnerEnv, agent, summarizerKeyEnv);
    CappedLog log = prepareJobDir(request);
    Instant started = clock.instant();
    boolean ownSession = agent.stopLeftoverProcesses() && setsid.isPresent();
    String token = JobProcesses.newToken(request.jobDir().getParent(), runner);
    Process process;
    try {
      process = processBuilder(request, ownSession, token).start();
    } catch (IOException | IllegalArgumentException e) {
      String context = secrets.mask(spawnFailure(request, e));
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

    OutputCapture capture = OutputCapture.start(process, log, agent.outputTailChars(), name, secrets,
        OutputReaders.of(agent.preset()));
    feedPrompt(process, request.prompt(), name);
    StopSignal stop = new StopSignal();
    JobProcesses members = agent.stopLeftoverProcesses()
        ? new JobProcesses(ownSession ? process.pid() : -1, token)
        : null;
    AgentSupervisor supervisor = new AgentSupervisor(request, process, capture, stop, resultFile,
        clock, started, spawnedNanos, members, secrets);
    CompletableFuture<AgentOutcome> outcome = new CompletableFuture<>();
    Daemon.start(name + "-supervisor", () -> supervisor.run(outcome));
    return new RunningAgent(process.toHandle(), stop, outcome);
  }

  /**
   * Stops every process an agent of an earlier run on this state left running: after a
   * {@code kill -9} of that run nobody stopped them, and a re-run of their phase would work beside
   * them. Found by the state's key in their job token; only a run holding the state's lock calls
   * this, so no living run's agent can be among them.
   */
  @Override
  public int stopLeftovers(Path jobsRoot, Duration grace) {
    return stopLeftovers(jobsRoot, runner, grace);
  }

  /** Stops what the agents of runner {@code runnerId} (of a shared state, on this host) left running. */
  @Override
  public int stopLeftovers(Path jobsRoot, String runnerId, Duration grace) {
    JobProcesses leftovers = JobProcesses.ofState(jobsRoot, runnerId);
    List<ProcessHandle> found = leftovers.find();
    if (found.isEmpty()) {
      return 0;
    }
    try {
      new ProcessTree(found.get(0), leftovers).terminate(grace, new java.util.concurrent.CountDownLatch(1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return found.size();
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

  /**
   * Creates the job's directory and files afresh, never through a link: an agent of an earlier job
   * may have planted a symbolic link where this job's directory, prompt or log will be, to make
   * orchestrate write outside the state directory. A planted entry is removed (the link itself,
   * not what it points to); a {@code jobs/} directory that is itself a link is refused.
   */
  private static CappedLog prepareJobDir(JobRequest request) {
    try {
      JobDirectory.create(request.jobDir());
      JobDirectory.writeNew(request.promptFile(), request.prompt().getBytes(StandardCharsets.UTF_8));
      return CappedLog.create(request.logFile(), request.agent().logMaxBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("could not prepare job directory " + request.jobDir() + ": "
          + e.getMessage(), e);
    }
  }

  private ProcessBuilder processBuilder(JobRequest request, boolean ownSession, String token)
      throws IOException {
    AgentConfig agent = request.agent();
    List<String> argv = new ArrayList<>(agent.command());
    if (ownSession) {
      // setsid reports a missing program as its own exit 1; resolve it first, as Java would, so
      // that it stays a spawn failure.
      argv.set(0, Executables.resolve(argv.get(0), request.workDir(), runnerEnv.get("PATH")).toString());
      argv.add(0, setsid.get().toString());
    }
    ProcessBuilder builder = new ProcessBuilder(argv).directory(request.workDir().toFile());
    Map<String, String> env = builder.environment();
    env.clear();
    env.putAll(runnerEnv);
    if (summarizerKeyEnv != null && !agent.passSummarizerKey()) {
      env.remove(summarizerKeyEnv);
    }
    env.putAll(request.protocolEnv());
    env.putAll(agent.env());
    if (agent.stopLeftoverProcesses()) {
      env.put(JobProcesses.TOKEN_VARIABLE, token);
    }
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
