package dev.orchestrate.backlog;

import dev.orchestrate.config.BacklogSourceConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.yaml.Problem;
import dev.orchestrate.yaml.ValidationException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The backlog {@code backlog.source.command} prints (docs/backlog.md, "A backlog from a command"):
 * run once when the run starts (a failure there refuses the run, exit 2, as an invalid backlog file
 * does), then again every {@code refresh} on a thread of its own, so the scheduler never waits for
 * it. A new output whose bytes differ from the last good one is checked and handed over; a failing
 * command, an output too large, not JSON, without ids or with a duplicate is reported once (until
 * what is wrong changes) and the run goes on with the last good backlog: no item is ever dropped
 * because a forge was down.
 */
public final class CommandBacklog implements BacklogSource {
  private final Path file;
  private final Config config;
  private final Map<String, String> env;
  private final Clock clock;
  private Backlog current;
  /** The last good output's hash: an unchanged output is not checked and synced again. */
  private String seen;
  private Instant lastStarted;
  private CompletableFuture<Read> refreshing;
  /** The thread of the refresh under way: interrupted at {@link #close}, it kills the command. */
  private volatile Thread refresher;
  /** What the last failed refresh said, reported once until it changes or a refresh succeeds. */
  private String lastProblem;

  /** What one run of the command came to: its output's hash and its backlog, or the problems. */
  private record Read(String hash, Backlog backlog, List<Problem> problems) {
  }

  CommandBacklog(Path file, Config config, Map<String, String> env, Clock clock) {
    this.file = file;
    this.config = config;
    this.env = Map.copyOf(env);
    this.clock = clock;
    this.lastStarted = clock.instant();
    Read first = read();
    if (first.problems() != null) {
      throw new ValidationException(first.problems());
    }
    this.current = first.backlog();
    this.seen = first.hash();
  }

  /**
   * Runs the command once and starts watching it.
   *
   * @param file where the backlog stands: the directory agents and the command run in is its
   * @throws ValidationException naming the command and what was wrong with it or its output
   */
  public static CommandBacklog load(Path file, Config config) {
    if (config.backlogSource() == null) {
      throw new IllegalArgumentException("the config has no backlog.source");
    }
    return new CommandBacklog(file, config, SecretEnv.of(config).forCommands(System.getenv()), Clock.systemUTC());
  }

  @Override
  public Backlog current() {
    return current;
  }

  @Override
  public void synced() {
    if (!current.items().isEmpty()) {
      current = new Backlog(current.file(), List.of());
    }
  }

  @Override
  public Optional<Backlog> changed(Consumer<List<Problem>> rejected) {
    BacklogSourceConfig source = config.backlogSource();
    if (refreshing == null) {
      Instant now = clock.instant();
      if (!now.isBefore(lastStarted.plus(source.refresh()))) {
        lastStarted = now;
        refreshing = CompletableFuture.supplyAsync(this::read, runnable -> {
          Thread thread = new Thread(runnable, "backlog-command");
          thread.setDaemon(true);
          refresher = thread;
          thread.start();
        });
      }
      return Optional.empty();
    }
    if (!refreshing.isDone()) {
      return Optional.empty();
    }
    Read read = refreshing.join();
    refreshing = null;
    lastStarted = clock.instant(); // the interval runs from the end of a refresh: a slow command never runs back to back
    if (read.problems() != null) {
      String said = read.problems().toString();
      if (!said.equals(lastProblem)) {
        lastProblem = said;
        rejected.accept(read.problems());
      }
      return Optional.empty();
    }
    lastProblem = null;
    if (read.hash().equals(seen)) {
      return Optional.empty();
    }
    seen = read.hash();
    current = read.backlog();
    return Optional.of(current);
  }

  /**
   * Kills a refresh under way with its process tree (its command runs in a session of its own,
   * which the JVM's exit would leave running) and waits for that, at most 10 s.
   */
  @Override
  public void close() {
    Thread thread = refresher;
    if (thread != null && thread.isAlive()) {
      thread.interrupt();
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Whether a refresh is under way (tests). */
  boolean refreshing() {
    return refreshing != null;
  }

  /** Runs the command and reads its output; never throws. */
  private Read read() {
    BacklogSourceConfig source = config.backlogSource();
    String label = BacklogJson.label(source);
    BacklogCommand.Result result;
    try {
      result = BacklogCommand.run(source.command(), Map.of(), directory(), env, config.backlogMaxBytes());
    } catch (RuntimeException e) {
      return failed(label, "failed: " + e);
    }
    String problem = result.problem(config.backlogMaxBytes());
    if (problem != null) {
      return failed(label, "failed: " + problem);
    }
    String hash = SizeCap.hex(SizeCap.sha256().digest(result.stdout()));
    try {
      return new Read(hash, BacklogJson.parse(new String(result.stdout(), StandardCharsets.UTF_8), file, config),
          null);
    } catch (ValidationException e) {
      return new Read(hash, null, e.problems());
    }
  }

  private Path directory() {
    Path parent = file.toAbsolutePath().getParent();
    return parent == null ? Path.of(".").toAbsolutePath() : parent;
  }

  private static Read failed(String label, String message) {
    return new Read(null, null, List.of(new Problem(label, 0, 0, message)));
  }
}
