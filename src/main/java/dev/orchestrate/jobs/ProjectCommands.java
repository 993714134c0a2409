package dev.orchestrate.jobs;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.SandboxConfig;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.outcome.CommandRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the project's own commands for a job (docs/verification.md): the worktree's
 * {@code workspace.setup} before the agent, the phase's {@code verify:} gates after it. Each runs
 * like an agent does: in a session of its own, with the agent's masked environment and the job's
 * token, its output drained into a capped log ({@code setup-NAME.log}, {@code gate-NAME.log}) with
 * secrets masked, stopped with its whole process tree at its timeout or when the job is cancelled.
 * What they run is the agent's work, so they are treated as untrusted as the agent is.
 */
final class ProjectCommands {
  private static final Logger LOG = LoggerFactory.getLogger(ProjectCommands.class);

  private final Clock clock;
  private final Path workDir;
  private final Path jobDir;
  private final Map<String, String> env;
  private final Secrets secrets;
  private final StopSignal stop;
  private final Optional<Path> setsid;
  private final String pathVariable;
  private final Duration killGrace;
  private final long logMaxBytes;
  private final JobProcesses members;
  private final java.util.concurrent.atomic.AtomicReference<ProcessHandle> current;
  private SandboxConfig box;
  private Path bwrap;

  ProjectCommands(Clock clock, Path workDir, Path jobDir, Map<String, String> env, Secrets secrets, StopSignal stop,
      Optional<Path> setsid, java.util.concurrent.atomic.AtomicReference<ProcessHandle> current, Duration killGrace,
      long logMaxBytes, JobProcesses members) {
    this.current = current;
    this.clock = clock;
    this.workDir = workDir;
    this.jobDir = jobDir;
    this.env = Map.copyOf(env);
    this.secrets = secrets;
    this.stop = stop;
    this.setsid = setsid;
    this.pathVariable = env.get("PATH");
    this.killGrace = killGrace;
    this.logMaxBytes = logMaxBytes;
    this.members = members;
  }

  /**
   * Runs {@code commands} in order and stops at the first that does not pass (a later gate of a red
   * build only adds noise; a later set-up step needs the earlier one). Returns the runs made.
   */
  List<CommandRun> runAll(CommandRun.Kind kind, List<ProjectCommand> commands) throws InterruptedException {
    List<CommandRun> runs = new ArrayList<>();
    for (ProjectCommand command : commands) {
      if (stop.cancelRequested().isDone()) {
        break;
      }
      CommandRun run = run(kind, command);
      runs.add(run);
      if (!run.passed()) {
        break;
      }
    }
    return runs;
  }

  CommandRun run(CommandRun.Kind kind, ProjectCommand command) throws InterruptedException {
    Path logFile = jobDir.resolve(kind.key() + "-" + command.name() + ".log");
    Instant started = clock.instant();
    CappedLog log;
    try {
      log = CappedLog.create(logFile, logMaxBytes);
    } catch (IOException e) {
      return new CommandRun(kind, command.name(), null, CommandRun.Ending.SPAWN_FAILED, Duration.ZERO, null,
          "could not create " + logFile + ": " + e.getMessage());
    }
    Process process;
    try {
      process = builder(command).start();
    } catch (IOException | IllegalArgumentException e) {
      String reason = secrets.mask("could not start " + describe(command) + ": " + reason(e));
      log.writeLine(reason);
      log.close("");
      return new CommandRun(kind, command.name(), null, CommandRun.Ending.SPAWN_FAILED,
          Duration.between(started, clock.instant()), logFile, reason);
    }
    long spawned = System.nanoTime();
    current.set(process.toHandle());
    OutputCapture capture = OutputCapture.start(process, log, CommandRun.TAIL_MAX_CHARS,
        kind.key() + "-" + command.name() + "-" + process.pid(), secrets);
    try {
      process.getOutputStream().close(); // nothing on stdin: a command that reads it sees the end
    } catch (IOException e) {
      // it exited already
    }
    CommandRun.Ending ending = await(process, spawned, command.timeout());
    if (ending != null) {
      new ProcessTree(process.toHandle(), members).terminate(killGrace, stop.hurry());
      process.waitFor(5, TimeUnit.SECONDS);
    } else if (members != null && new ProcessTree(process.toHandle(), members).anyRunning()) {
      new ProcessTree(process.toHandle(), members).terminate(killGrace, stop.hurry()); // what it left behind
    }
    OutputCapture.Tails tails = capture.finish(AgentSupervisor.READER_WAIT);
    Duration elapsed = Duration.between(started, clock.instant());
    String tail = tail(tails);
    if (ending != null) {
      LOG.debug("{} {} stopped: {}", kind.key(), command.name(), ending);
      return new CommandRun(kind, command.name(), null, ending, elapsed, logFile, tail);
    }
    int exit = process.exitValue();
    return new CommandRun(kind, command.name(), exit, exit == 0 ? CommandRun.Ending.PASSED : CommandRun.Ending.FAILED,
        elapsed, logFile, tail);
  }

  /** Null when the process exited by itself; else why it is to be stopped. */
  private CommandRun.Ending await(Process process, long spawnedNanos, Duration timeout) throws InterruptedException {
    long remaining = timeout.toNanos() - (System.nanoTime() - spawnedNanos);
    try {
      CompletableFuture.anyOf(process.onExit(), stop.cancelRequested()).get(Math.max(0, remaining),
          TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // below
    } catch (ExecutionException e) {
      throw new IllegalStateException("waiting for pid " + process.pid() + " failed", e.getCause());
    }
    if (!process.isAlive()) {
      return null;
    }
    return stop.cancelRequested().isDone() ? CommandRun.Ending.CANCELLED : CommandRun.Ending.TIMED_OUT;
  }

  /**
   * These commands in {@code box} ({@code agent.sandbox}, as the agent's); null: not sandboxed.
   * {@code bwrap} null with a box: bwrap went missing since preflight, and each command fails to start.
   */
  ProjectCommands sandboxed(SandboxConfig box, Path bwrap) {
    this.box = box;
    this.bwrap = bwrap;
    return this;
  }

  private ProcessBuilder builder(ProjectCommand command) throws IOException {
    List<String> argv = new ArrayList<>(command.argv());
    Map<String, String> environment = new HashMap<>(env);
    if (setsid.isPresent() || box != null) {
      argv.set(0, Executables.resolve(argv.get(0), workDir, pathVariable).toString());
    }
    if (box != null) {
      if (bwrap == null) {
        throw new IOException("agent.sandbox: bwrap is not on PATH (install bubblewrap)");
      }
      environment.put("TMPDIR", Bubblewrap.scratch(jobDir).toString());
      argv = new ArrayList<>(new Bubblewrap(bwrap, box).argv(argv, workDir, jobDir, AgentPreset.COMMAND,
          environment, true));
    }
    if (setsid.isPresent()) {
      argv.add(0, setsid.get().toString());
    }
    ProcessBuilder builder = new ProcessBuilder(argv).directory(workDir.toFile());
    builder.environment().clear();
    builder.environment().putAll(environment);
    return builder;
  }

  /**
   * The end of what it printed (stdout, then stderr), masked, with control characters (bidi
   * overrides included) made visible as the rest of orchestrate shows them ({@code Quote}).
   */
  private static String tail(OutputCapture.Tails tails) {
    StringBuilder b = new StringBuilder();
    if (!tails.stdout().isBlank()) {
      b.append(tails.stdout().strip());
    }
    if (!tails.stderr().isBlank()) {
      b.append(b.length() > 0 ? "\n" : "").append(tails.stderr().strip());
    }
    return SizeCap.cap(Quote.escapedLines(b.toString()), CommandRun.TAIL_MAX_CHARS);
  }

  static String describe(ProjectCommand command) {
    return "'" + command.name() + "' (" + command.text() + ")";
  }

  private static String reason(Exception e) {
    String message = e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage()
        : String.valueOf(e.getMessage());
    return message.replaceFirst("^error=\\d+, ", "");
  }
}
