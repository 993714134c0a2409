package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.OutcomeClass;
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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
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
  private final SecretEnv secretEnv;
  private final Optional<Path> setsid;
  /** bwrap on the runner's PATH, looked up once (the sandboxed jobs' program). */
  private final Optional<Path> bwrap;
  /** The runner of a shared state this launcher starts agents for; null: the state's one run. */
  private final String runner;

  /** Agents inherit this JVM's environment; no summarizer key is withheld. */
  public AgentRunner(Clock clock) {
    this(clock, System.getenv(), SecretEnv.NONE);
  }

  /**
   * @param runnerEnv        the environment agents inherit (orchestrate's own)
   * @param summarizerKeyEnv {@code context.summarizer.api_key_env}, withheld from agents unless
   *                         {@code agent.pass_summarizer_key} or {@code agent.env} sets it; null
   *                         if there is none
   */
  public AgentRunner(Clock clock, Map<String, String> runnerEnv, String summarizerKeyEnv) {
    this(clock, runnerEnv, SecretEnv.summarizerOnly(summarizerKeyEnv));
  }

  /**
   * @param runnerEnv the environment agents inherit (orchestrate's own)
   * @param secretEnv the secrets the config names: each withheld from the children it is not for
   *                  (agents, the project's commands) and masked in everything they print
   */
  public AgentRunner(Clock clock, Map<String, String> runnerEnv, SecretEnv secretEnv) {
    this(clock, runnerEnv, secretEnv, Executables.find("setsid", runnerEnv.get("PATH")));
  }

  /** {@code setsid}: the program that starts an agent in its own session, if there is one. */
  AgentRunner(Clock clock, Map<String, String> runnerEnv, String summarizerKeyEnv, Optional<Path> setsid) {
    this(clock, runnerEnv, SecretEnv.summarizerOnly(summarizerKeyEnv), setsid);
  }

  AgentRunner(Clock clock, Map<String, String> runnerEnv, SecretEnv secretEnv, Optional<Path> setsid) {
    this(clock, runnerEnv, secretEnv, setsid, null);
  }

  private AgentRunner(Clock clock, Map<String, String> runnerEnv, SecretEnv secretEnv, Optional<Path> setsid,
      String runner) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.runnerEnv = Map.copyOf(runnerEnv);
    this.bwrap = Bubblewrap.find(runnerEnv.get("PATH"));
    this.secretEnv = Objects.requireNonNull(secretEnv, "secretEnv");
    this.setsid = setsid;
    this.runner = runner;
  }

  /**
   * This launcher for runner {@code runnerId} of a state several runners share: its agents' job
   * tokens name the runner, so that its leftovers are told from the live agents of other runners
   * on this host that write to the same jobs directory. Null: the state's one run.
   */
  public AgentRunner forRunner(String runnerId) {
    return new AgentRunner(clock, runnerEnv, secretEnv, setsid, runnerId);
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
    Secrets secrets = Secrets.forAgent(runnerEnv, agent, secretEnv);
    CappedLog log = prepareJobDir(request);
    Instant started = clock.instant();
    String token = JobProcesses.newToken(request.jobDir().getParent(), runner);
    StopSignal stop = new StopSignal();
    JobRequest.Steps steps = request.steps();
    AtomicReference<ProcessHandle> current = new AtomicReference<>();
    CompletableFuture<AgentOutcome> outcome = new CompletableFuture<>();
    List<String> argv = steps.resumeSession() == null ? agent.command()
        : agent.preset().resumeArgv(agent.command(), steps.resumeSession());
    if (steps.setup().isEmpty() && steps.verify().isEmpty() && steps.resumeSession() == null) {
      // The plain job: the agent once, started here so that a spawn failure is known at once.
      Launched launched = launch(request, argv, request.prompt(), null, log, secrets, token, stop, started);
      if (launched.failed() != null) {
        return RunningAgent.finished(launched.failed());
      }
      current.set(launched.process().toHandle());
      Daemon.start(launched.name() + "-supervisor", () -> launched.supervisor().run(outcome));
      return new RunningAgent(current, stop, outcome);
    }
    Daemon.start("job-" + request.itemId() + "-" + request.attempt(), () -> {
      try {
        outcome.complete(new Job(request, argv, log, secrets, token, stop, started, current).run());
      } catch (InterruptedException e) {
        abandon(current.get());
        outcome.completeExceptionally(e);
      } catch (RuntimeException | Error e) {
        LOG.error("running job of {} phase {} failed; killing what it started", request.itemId(), request.phase(), e);
        abandon(current.get());
        outcome.completeExceptionally(e);
      }
    });
    return new RunningAgent(current, stop, outcome);
  }

  private static void abandon(ProcessHandle process) {
    if (process != null) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }

  /** An agent process started (with its supervisor), or the outcome of a start that failed. */
  private record Launched(Process process, String name, AgentSupervisor supervisor, OutputCapture capture,
      AgentOutcome failed) {
  }

  /**
   * Starts the agent with {@code argv}, {@code prompt} on stdin, its output into {@code log}; an ACP
   * agent gets the prompt in its session instead, loading session {@code resume} if not null.
   */
  private Launched launch(JobRequest request, List<String> argv, String prompt, String resume, CappedLog log,
      Secrets secrets, String token, StopSignal stop, Instant started) {
    AgentConfig agent = request.agent();
    boolean ownSession = agent.stopLeftoverProcesses() && setsid.isPresent();
    Process process;
    try {
      process = processBuilder(request, argv, ownSession, token).start();
    } catch (IOException | IllegalArgumentException e) {
      String context = secrets.mask(spawnFailure(request, e));
      LOG.debug("{} ({})", context, e.toString());
      log.writeLine(context);
      log.close("");
      return new Launched(null, null, null, null,
          Outcomes.spawnFailed(context, Duration.between(started, clock.instant())));
    }
    long spawnedNanos = System.nanoTime();
    String name = "agent-" + process.pid();
    LOG.debug("started {} for {} phase {} attempt {}: {} in {}", name, request.itemId(),
        request.phase(), request.attempt(), argv, request.workDir());
    AcpClient acp = agent.preset() == AgentPreset.ACP ? new AcpClient(process.getOutputStream(), name,
        request.workDir(), request.jobDir(), prompt, resume, agent.acp()) : null;
    OutputCapture capture = OutputCapture.start(process, log, agent.outputTailChars(), name, secrets,
        acp != null ? acp : OutputReaders.of(agent.preset()));
    if (acp != null) {
      acp.start();
    } else {
      feedPrompt(process, prompt, name);
    }
    JobProcesses members = agent.stopLeftoverProcesses()
        ? new JobProcesses(ownSession ? process.pid() : -1, token).startedWith(process.pid())
        : null;
    AgentSupervisor supervisor = new AgentSupervisor(request, process, capture, stop, resultFile,
        clock, started, spawnedNanos, members, secrets, acp);
    return new Launched(process, name, supervisor, capture, null);
  }

  /**
   * A job with more than the agent in it (docs/verification.md): the worktree's set-up first, the
   * agent (resuming its last session, or fresh when the CLI no longer knows it), then the phase's
   * gates if the agent reported success. Runs on its own thread; every process it starts is stopped
   * by a cancel, a timeout, or the job's end.
   */
  private final class Job {
    private final JobRequest request;
    private final List<String> argv;
    private final CappedLog log;
    private final Secrets secrets;
    private final String token;
    private final StopSignal stop;
    private final Instant started;
    private final AtomicReference<ProcessHandle> current;
    private final ProjectCommands commands;

    Job(JobRequest request, List<String> argv, CappedLog log, Secrets secrets, String token, StopSignal stop,
        Instant started, AtomicReference<ProcessHandle> current) {
      this.request = request;
      this.argv = argv;
      this.log = log;
      this.secrets = secrets;
      this.token = token;
      this.stop = stop;
      this.started = started;
      this.current = current;
      Map<String, String> env = new HashMap<>(secretEnv.forCommands(runnerEnv));
      env.putAll(request.protocolEnv());
      env.put(JobProcesses.TOKEN_VARIABLE, token);
      this.commands = new ProjectCommands(clock, request.workDir(), request.jobDir(), env, secrets, stop,
          setsid, current, request.agent().killGrace(), request.agent().logMaxBytes(), new JobProcesses(-1, token))
          .sandboxed(request.agent().sandbox().on() ? request.agent().sandbox() : null,
              request.agent().sandbox().on() ? bwrap.orElse(null) : null);
    }

    AgentOutcome run() throws InterruptedException {
      JobRequest.Steps steps = request.steps();
      List<CommandRun> checks = new ArrayList<>();
      AgentOutcome setUpFailed = steps.setup().isEmpty() ? null : setUp(steps, checks);
      if (setUpFailed != null) {
        return setUpFailed;
      }
      boolean resuming = steps.resumeSession() != null;
      Launched launched = launch(request, argv, request.prompt(), steps.resumeSession(), log, secrets, token, stop,
          started);
      AgentOutcome agent = supervise(launched);
      AgentSession session;
      if (resuming && resumeRefused(agent, launched, steps.resumeSession())) {
        LOG.info("{} phase {} attempt {}: the agent CLI could not resume session {}; starting fresh",
            request.itemId(), request.phase(), request.attempt(), steps.resumeSession());
        CappedLog fresh = freshStart(steps.freshPrompt());
        Launched again = launch(request, request.agent().command(), steps.freshPrompt(), null, fresh, secrets, token,
            stop, started);
        agent = supervise(again);
        session = new AgentSession(again.capture() == null ? null : again.capture().sessionId(),
            AgentSession.Start.RESUME_FAILED);
      } else {
        String id = launched.capture() == null ? null : launched.capture().sessionId();
        session = new AgentSession(id != null ? id : resuming ? steps.resumeSession() : null,
            resuming ? AgentSession.Start.RESUMED : AgentSession.Start.FRESH);
      }
      if (agent.kind() == OutcomeClass.SUCCEEDED && !steps.verify().isEmpty()) {
        // the files the gates run, checked before they run them: a script rewritten to put itself
        // back as it runs would leave nothing for the check after the job to see
        String refused = stop.cancelRequested().isDone() ? null : steps.protectedRefusal();
        if (refused != null) {
          agent = agent.refutedAs(OutcomeClass.PROTECTED_CHANGED, refused);
        } else if (stop.cancelRequested().isDone()) {
          // stopped before or while the check ran: a success whose gates never ran is not an answer
          return Outcomes.cancelled(elapsed()).withUsage(agent.usage()).withSession(session).withChecks(checks);
        } else {
          List<CommandRun> gates = commands.runAll(CommandRun.Kind.GATE, steps.verify());
          checks.addAll(gates);
          CommandRun last = gates.isEmpty() ? null : gates.get(gates.size() - 1);
          if (stop.cancelRequested().isDone() || (last != null && last.ending() == CommandRun.Ending.CANCELLED)) {
            return Outcomes.cancelled(elapsed()).withUsage(agent.usage()).withSession(session).withChecks(checks);
          }
          if (last != null && !last.passed()) {
            agent = agent.refutedAs(OutcomeClass.VERIFY_FAILED,
                Outcomes.gateFailure(last, gates.size(), steps.verify().size()));
          }
        }
      }
      return agent.withSession(session).withChecks(checks);
    }

    /** The worktree's set-up, then what it left recorded; the job's outcome when either failed, else null. */
    private AgentOutcome setUp(JobRequest.Steps steps, List<CommandRun> checks) throws InterruptedException {
      List<CommandRun> runs = commands.runAll(CommandRun.Kind.SETUP, steps.setup());
      checks.addAll(runs);
      CommandRun last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
      if (stop.cancelRequested().isDone() || (last != null && last.ending() == CommandRun.Ending.CANCELLED)) {
        log.close("");
        return Outcomes.cancelled(elapsed()).withChecks(checks);
      }
      if (last != null && !last.passed()) {
        log.writeLine("workspace.setup failed: the agent did not run; see " + last.log());
        log.close("");
        String text = steps.setup().stream().filter(c -> c.name().equals(last.name())).findFirst()
            .map(ProjectCommand::text).orElse(null);
        return AgentOutcome.setupFailed(Outcomes.setupFailure(last, text), checks, elapsed());
      }
      String unrecorded = steps.setUpRecorded();
      if (unrecorded != null) {
        log.writeLine(secrets.mask(unrecorded));
        log.close("");
        return AgentOutcome.setupFailed(secrets.mask(unrecorded), checks, elapsed());
      }
      return null;
    }

    private AgentOutcome supervise(Launched launched) throws InterruptedException {
      if (launched.failed() != null) {
        return launched.failed();
      }
      current.set(launched.process().toHandle());
      return launched.supervisor().supervise();
    }

    /**
     * Whether a resumed attempt failed because the CLI could not continue the session: it did not
     * succeed, its provider is not to blame, and it said it found no such conversation or never
     * named the session in its output.
     */
    private boolean resumeRefused(AgentOutcome outcome, Launched launched, String session) {
      if (launched.failed() != null || outcome.kind() != OutcomeClass.FAILED || stop.cancelRequested().isDone()) {
        return false;
      }
      String said = outcome.context().toLowerCase(Locale.ROOT);
      for (String phrase : UNKNOWN_SESSION) {
        if (said.contains(phrase)) {
          return true;
        }
      }
      return !session.equals(launched.capture().sessionId());
    }

    /**
     * The failed resume's prompt and output are kept beside the job's ({@code prompt-resume.md},
     * {@code output-resume.log}); the fresh attempt gets the full prompt and a new log.
     */
    private CappedLog freshStart(String prompt) {
      try {
        JobDirectory.moveAside(request.promptFile(), request.jobDir().resolve("prompt-resume.md"));
        JobDirectory.moveAside(request.logFile(), request.jobDir().resolve("output-resume.log"));
        JobDirectory.writeNew(request.promptFile(), prompt.getBytes(StandardCharsets.UTF_8));
        return CappedLog.create(request.logFile(), request.agent().logMaxBytes());
      } catch (IOException e) {
        throw new UncheckedIOException("could not prepare the fresh start of job " + request.jobDir(), e);
      }
    }

    private Duration elapsed() {
      return Duration.between(started, clock.instant());
    }
  }

  /**
   * What the CLIs print when they do not know a session (recorded in
   * src/test/resources/agent-outputs, "Resuming a session"): Claude Code's result error, Codex's,
   * the Gemini CLI's and opencode's stderr.
   */
  static final List<String> UNKNOWN_SESSION = List.of("no conversation found with session id",
      "no rollout found for thread id", "error resuming session", "no previous sessions found", "session not found");

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

  private ProcessBuilder processBuilder(JobRequest request, List<String> command, boolean ownSession, String token)
      throws IOException {
    AgentConfig agent = request.agent();
    Map<String, String> env = new HashMap<>(secretEnv.forAgent(runnerEnv, agent));
    env.putAll(request.protocolEnv());
    env.putAll(agent.env());
    if (agent.stopLeftoverProcesses()) {
      env.put(JobProcesses.TOKEN_VARIABLE, token);
    }
    List<String> argv = new ArrayList<>(command);
    boolean boxed = agent.sandbox().on();
    if (ownSession || boxed) {
      // setsid (and bwrap) report a missing program as their own exit 1; resolve it first, as Java
      // would, so that it stays a spawn failure.
      argv.set(0, Executables.resolve(argv.get(0), request.workDir(), runnerEnv.get("PATH")).toString());
    }
    if (boxed) {
      env.put("TMPDIR", Bubblewrap.scratch(request.jobDir()).toString());
      Bubblewrap.preparePresetPaths(agent.preset(), env);
      argv = new ArrayList<>(sandbox(agent).argv(argv, request.workDir(), request.jobDir(), agent.preset(), env,
          false));
    }
    if (ownSession) {
      argv.add(0, setsid.get().toString());
    }
    ProcessBuilder builder = new ProcessBuilder(argv).directory(request.workDir().toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    return builder;
  }

  /**
   * The sandbox of {@code agent} ({@code agent.sandbox: bwrap}), with bwrap as found on the
   * runner's PATH (preflight refused a run without it).
   *
   * @throws IOException when bwrap is not there (any more)
   */
  private Bubblewrap sandbox(AgentConfig agent) throws IOException {
    return new Bubblewrap(bwrap.orElseThrow(() -> new IOException(
        "agent.sandbox: bwrap is not on PATH (install bubblewrap)")), agent.sandbox());
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
