package dev.orchestrate.cli;

import dev.orchestrate.app.JobDetails;
import dev.orchestrate.app.LogsQuery;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.yaml.DidYouMean;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code orchestrate logs ID}: a job's output.log, found by item (and phase, attempt), not by path. */
@Command(name = "logs", mixinStandardHelpOptions = true,
    description = {"Print the output of one of an item's jobs (its output.log: the agent's stdout and stderr, "
        + "capped at agent.log_max_bytes). Default: the item's latest job; --phase and --attempt pick "
        + "another; --gate and --setup print the log of one of the job's verify: gates or workspace.setup "
        + "steps instead. With --follow, keep printing while the job runs and stop when it ends.",
        "A preset agent's JSON event stream (Claude Code, Codex, Gemini CLI, opencode) is shown as text: what "
            + "the agent said, the tools it ran (->) and what they returned (<-), errors, its end; --raw prints "
            + "the log's lines as written.",
        "Control characters the agent wrote (escape sequences) are shown as \\x1b and the like, never sent "
            + "to the terminal. Reads only the state directory; safe while a run is active."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    printed", "  1    the job's log is gone (deleted by retention or by hand)",
        "  2    unknown item, or no job of it matches --phase/--attempt, or the job",
        "       ran no gate (--gate) or set-up step (--setup) of that name"})
final class LogsCommand implements Callable<Integer> {
  /** How often --follow looks for new output and for the job's end. */
  static final long FOLLOW_POLL_MS = 200;

  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "ID", description = "The item")
  String id;

  @Option(names = "--phase", paramLabel = "P", description = "The latest job of this phase")
  String phase;

  @Option(names = "--attempt", paramLabel = "N", description = "The job of this attempt (of --phase, or of the "
      + "latest job's phase)")
  Integer attempt;

  @Option(names = {"-f", "--follow"}, description = "Keep printing new output until the job ends")
  boolean follow;

  @Option(names = "--raw", description = "Print the log as written (JSON event lines and all; control "
      + "characters still made visible), not as text")
  boolean raw;

  /** A gate or a set-up step of the job, instead of its output.log. */
  @picocli.CommandLine.ArgGroup(exclusive = true)
  Check check;

  /** {@code --gate NAME} or {@code --setup NAME}, one of them. */
  static final class Check {
    @Option(names = "--gate", paramLabel = "NAME", required = true,
        description = "Print the log of the job's verify: gate NAME")
    String gate;

    @Option(names = "--setup", paramLabel = "NAME", required = true,
        description = "Print the log of the job's workspace.setup step NAME")
    String setup;

    CommandRun.Kind kind() {
      return gate != null ? CommandRun.Kind.GATE : CommandRun.Kind.SETUP;
    }

    String name() {
      return gate != null ? gate : setup;
    }
  }

  @Override
  public Integer call() {
    if (attempt != null && attempt < 1) {
      throw CliException.usage("--attempt must be at least 1, got " + attempt);
    }
    StateBackend backend = root.command().backend();
    StateDirectory dir = backend.directory();
    LogsQuery.Found found = found(LogsQuery.job(backend, id, phase, attempt, check != null), dir);
    JobRecord job = found.job();
    List<CheckRecord> checks = found.checks();
    CheckRecord ran = check == null ? null : ran(job, checks);
    if (job.logPath() == null) {
      throw CliException.failure("job " + job.id() + " of " + id + " has no log");
    }
    Path shown = ran == null ? job.logPath() : checkLog(dir, job, ran);
    Path log = dir.root().resolve(shown);
    PrintWriter out = spec.commandLine().getOut();
    Sink visible = raw ? new ControlCharacters(out) : new Rendered(out);
    long offset;
    try {
      offset = copy(log, 0, visible);
      if (!follow) {
        visible.finish();
      }
    } catch (NoSuchFileException e) {
      throw CliException.failure("the log of " + (ran == null ? "" : ran.kind().key() + " " + ran.name() + " of ")
          + "job " + job.id() + " (" + JobsCommand.logPath(dir, shown)
          + ") is gone: retention deletes old jobs' logs (retention.jobs), or it was deleted by hand"
          + (backend.shared() ? "; or a runner on another machine ran the job (job logs stay on each runner's disk)"
              : ""));
    }
    // Which job this is and how it ended, on stderr once the log was read (an error stays one
    // line): stdout stays the log.
    out.flush();
    PrintWriter err = spec.commandLine().getErr();
    err.println("job " + job.id() + ": " + job.itemId() + " " + job.phase() + " attempt " + job.attempt() + ", "
        + JobDetails.state(job) + (found.outcome() != null ? ", outcome " + found.outcome().key() : "")
        + (ran == null ? "" : "; " + TerminalText.safe(ran.kind().key() + " " + ran.name()) + " "
            + JobDetailsView.ending(ran) + " after " + JobsCommand.human(ran.duration())));
    err.flush();
    if (follow) {
      follow(backend, job, log, offset, out, visible);
    }
    out.flush();
    return ExitCode.OK;
  }

  /** The job's check that {@code --gate}/{@code --setup} names; an unknown name exits 2 naming the job's. */
  private CheckRecord ran(JobRecord job, List<CheckRecord> checks) {
    CheckRecord found = null;
    for (CheckRecord c : checks) {
      if (c.kind() == check.kind() && c.name().equals(check.name())) {
        found = c; // names are unique per list; the last one ran last
      }
    }
    if (found != null) {
      return found;
    }
    boolean gate = check.kind() == CommandRun.Kind.GATE;
    List<String> names = checks.stream().filter(c -> c.kind() == check.kind()).map(CheckRecord::name).distinct()
        .toList();
    String none = "it ran none" + (job.state() == JobState.RUNNING ? " yet (they are recorded when it ends)" : "");
    throw CliException.usage("job " + job.id() + " of " + id + " (" + job.phase() + " attempt " + job.attempt()
        + ") ran no " + (gate ? "gate " : "workspace.setup step ") + Quote.value(check.name()) + "; "
        + (names.isEmpty() ? none : "its " + (gate ? "gates" : "set-up steps") + ": " + String.join(", ", names)));
  }

  /**
   * A check's log: a plain file name in the job's directory (where its output.log is), which must
   * be a real directory, not a link; {@link #copy} then opens the log itself without following a
   * link. An agent can write in its job's directory, and nothing it plants there is followed.
   */
  private static Path checkLog(StateDirectory dir, JobRecord job, CheckRecord ran) {
    Path log = ran.log(job);
    if (log == null) {
      throw CliException.failure(ran.kind().key() + " " + ran.name() + " of job " + job.id() + " has no log");
    }
    Path jobDir = dir.root().resolve(log).getParent();
    if (Files.exists(jobDir, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(jobDir, LinkOption.NOFOLLOW_LINKS)) {
      throw CliException.failure("the directory of job " + job.id() + " (" + JobsCommand.logPath(dir, jobDir)
          + ") is not a directory (a link or a file): its logs are not shown");
    }
    return log;
  }

  /** The job looked for, or the usage error that says why there is none. */
  private LogsQuery.Found found(LogsQuery.Lookup lookup, StateDirectory dir) {
    if (lookup instanceof LogsQuery.Found found) {
      return found;
    }
    if (lookup instanceof LogsQuery.NoState) {
      throw CliException.usage("unknown item '" + id + "': there is no state in " + dir.root() + " yet");
    }
    if (lookup instanceof LogsQuery.UnknownItem unknown) {
      throw CliException.usage("unknown item '" + id + "'"
          + DidYouMean.closest(id, unknown.known()).map(s -> "; did you mean '" + s + "'?").orElse("")
          + " (orchestrate status lists them)");
    }
    if (lookup instanceof LogsQuery.NoMatch none) {
      String wantedPhase = none.phase();
      throw CliException.usage("item " + id + " has no job"
          + (wantedPhase == null ? "" : " in phase " + wantedPhase) + (attempt == null ? "" : ", attempt " + attempt)
          + "; its jobs: " + String.join(", ", none.jobs().stream().map(j -> j.phase() + "#" + j.attempt()).toList()));
    }
    throw CliException.usage("item " + id + " has no jobs (yet, or retention deleted them)");
  }

  /**
   * Prints what the job adds to its log until its row says it ended, then the rest. A job whose
   * run died (no run holds the lock) never ends: following stops there too.
   */
  private void follow(StateBackend backend, JobRecord job, Path log, long offset, PrintWriter out, Sink visible) {
    long at = offset;
    try {
      while (LogsQuery.running(backend, job.id())) {
        out.flush();
        Thread.sleep(FOLLOW_POLL_MS);
        at = copy(log, at, visible);
      }
      copy(log, at, visible);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (NoSuchFileException e) {
      // deleted meanwhile: nothing more to print
    }
    visible.finish();
  }

  /**
   * Prints the log from byte {@code from} on (from the start if it was cut shorter); returns where it
   * ended. The log is opened without following a link, and only when it is a regular file (a FIFO an
   * agent left in its place would block): agents write in their job's directory.
   */
  private static long copy(Path log, long from, Sink visible) throws NoSuchFileException {
    if (!Files.isRegularFile(log, LinkOption.NOFOLLOW_LINKS)) {
      if (!Files.exists(log, LinkOption.NOFOLLOW_LINKS)) {
        throw new NoSuchFileException(log.toString());
      }
      throw CliException.failure(log + " is not a regular file (a link or a special file): not shown");
    }
    try (FileChannel channel = FileChannel.open(log, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      long start = channel.size() < from ? 0 : from;
      channel.position(start);
      ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
      long at = start;
      int n;
      while ((n = channel.read(buffer)) > 0) {
        buffer.flip();
        visible.write(buffer);
        buffer.clear();
        at += n;
      }
      return at;
    } catch (NoSuchFileException e) {
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + log + ": " + e.getMessage(), e);
    }
  }

  /** Where the log's bytes go, chunk by chunk, as they are read. */
  interface Sink {
    void write(ByteBuffer bytes);

    /** The log ended (or following it did). */
    default void finish() {
    }
  }

  /** The log rendered as text ({@link AgentStreamText}): a preset's JSON events as what the agent said and did. */
  static final class Rendered implements Sink {
    private final AgentStreamText events;

    Rendered(PrintWriter out) {
      this.events = new AgentStreamText(out);
    }

    @Override
    public void write(ByteBuffer bytes) {
      events.append(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
    }

    @Override
    public void finish() {
      events.finish();
    }
  }

  /**
   * {@code --raw}: UTF-8 decoding across reads, with every control character but newline and tab
   * made visible by {@link TerminalText#safeLines} ({@code \\x1b} for ESC), as in every other human
   * output: what an agent wrote never reaches the terminal raw.
   */
  static final class ControlCharacters implements Sink {
    private final PrintWriter out;

    ControlCharacters(PrintWriter out) {
      this.out = out;
    }

    @Override
    public void write(ByteBuffer bytes) {
      out.print(decode(bytes));
    }

    private final java.nio.charset.CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE)
        .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPLACE);
    private ByteBuffer pending = ByteBuffer.allocate(0);

    String decode(ByteBuffer bytes) {
      ByteBuffer all = ByteBuffer.allocate(pending.remaining() + bytes.remaining());
      all.put(pending).put(bytes).flip();
      java.nio.CharBuffer chars = java.nio.CharBuffer.allocate(all.remaining() + 1);
      decoder.decode(all, chars, false);
      pending = ByteBuffer.allocate(all.remaining()).put(all).flip();
      chars.flip();
      return visible(chars.toString());
    }

    static String visible(String text) {
      return TerminalText.safeLines(text);
    }
  }
}
