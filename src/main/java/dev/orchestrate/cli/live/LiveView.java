package dev.orchestrate.cli.live;

import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.scheduler.ItemFilter;
import dev.orchestrate.scheduler.RunListener;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.Signals;

/**
 * The live view of {@code run} on a terminal: a status area at the bottom of stderr's terminal
 * (counts, a progress bar, elapsed time and ETA, active jobs with their elapsed time, the last
 * finished jobs), redrawn on every event and once a second, with the same lines as
 * {@link RunProgress} scrolling above it so nothing is lost in scrollback. How the area is kept
 * there is {@link LiveArea}'s business; agents write to their own log files, never to this
 * terminal.
 *
 * <h2>What the header counts</h2>
 * The items the run works on, told by the scheduler once the backlog is loaded
 * ({@link #runStarted}): listed in the backlog, matching every {@code --only}, and with
 * {@code --target} the targets and the dependencies they still needed at the start; follow-ups
 * join when they match {@code --only} (without {@code --target}). "done" and "blocked" are those
 * of them done and blocked, whenever that happened.
 *
 * "phases" are the jobs started in this run less those a provider's limit ended (a usage or rate
 * limit, a refused key): those cost no phase of the cap, and are not counted here either.
 *
 * <h2>The ETA</h2>
 * The mean wall time of the jobs finished in this run (those a provider's limit ended left out),
 * times the phases still to run (of the items counted above, from where each one is in its
 * pipeline, retries not foreseen), divided by the agents that can run at once
 * ({@code max_concurrent}, or fewer when fewer items are left); re-estimated when a job finishes
 * and counting down in between. None before a job has finished. While the run stands still for a
 * provider's pause (one in force, no job running: {@link LivePauses}) the ETA does not count down
 * through it: it is the pause's end plus the work left, and the time stood still is added to it
 * once work goes on.
 *
 * <h2>Pauses</h2>
 * Each profile a provider's limit paused has a row above the active jobs while its pause is in
 * force: its end to the second and the time left ({@link LiveStatus}). The progress lines say each
 * pause once ({@link RunProgress}).
 *
 * <p>The only class that imports jline: {@code run} loads it only when {@link ProgressMode#LIVE}
 * is chosen, so other commands never pay for jline at start-up.
 */
public final class LiveView implements RunListener, SummarizationListener, AutoCloseable, LineSink {
  /** The screen the view draws on: its size now, and where the bytes go. */
  interface Screen {
    /** Rows and columns now. */
    int[] size();

    PrintWriter writer();
  }

  private final Screen screen;
  private final Clock clock;
  private final Supplier<List<ItemState>> items;
  private final Map<String, Pipeline> pipelines;
  private final int maxConcurrent;
  private final boolean colour;
  private final RunProgress lines;
  private final LivePauses pauses = new LivePauses();
  private final PrintWriter out;
  private final Map<String, LiveStatus.ActiveJob> active = new LinkedHashMap<>();
  private final Deque<LiveStatus.Finished> finished = new ArrayDeque<>();
  private final Instant opened;
  private final LiveArea area;
  private Terminal terminal;
  private ScheduledExecutorService ticker;
  private Object winch;
  private PrintStream systemErr;
  private Predicate<ItemState> inRun;
  private int done;
  private int total;
  private int blocked;
  private int awaitingReview;
  private int awaitingChecks;
  private int landing;
  private int phasesRun;
  private int peakActive;
  private long phasesLeft;
  private long jobsFinished;
  private Duration jobsTime = Duration.ZERO;
  private Instant eta;
  private boolean closed;

  LiveView(Screen screen, Clock clock, Supplier<List<ItemState>> items, Map<String, Pipeline> pipelines,
      int maxConcurrent, boolean colour) {
    this(screen, clock, items, pipelines, maxConcurrent, colour, false);
  }

  /** With {@code nameProfiles}, the lines and the active jobs name each job's agent profile. */
  LiveView(Screen screen, Clock clock, Supplier<List<ItemState>> items, Map<String, Pipeline> pipelines,
      int maxConcurrent, boolean colour, boolean nameProfiles) {
    this.screen = screen;
    this.clock = clock;
    this.items = items;
    this.pipelines = Map.copyOf(pipelines);
    this.maxConcurrent = Math.max(1, maxConcurrent);
    this.colour = colour;
    this.out = screen.writer();
    this.lines = new RunProgress(this::printAbove, clock, nameProfiles);
    this.opened = clock.instant();
    int[] size = screen.size();
    this.area = new LiveArea(size[0], size[1]);
  }

  /**
   * Opens the live view on the terminal behind stderr, or empty if there is none that can keep a
   * status area (dumb terminal, no cursor addressing, too small, jline failing): the caller then
   * uses plain lines. {@code items} is read on the scheduler thread only, on events. Colour unless
   * {@code NO_COLOR} is set to anything (https://no-color.org). With {@code nameProfiles} (the config
   * has several agent profiles), each job's lines and row name its profile.
   */
  public static Optional<LiveView> open(Clock clock, Supplier<List<ItemState>> items, Map<String, Pipeline> pipelines,
      int maxConcurrent, boolean nameProfiles, Map<String, String> env) {
    Terminal terminal = null;
    try {
      // nativeSignals(false): Ctrl-C stays with StopSignals; the size change is registered below.
      terminal = TerminalBuilder.builder().system(true).systemOutput(TerminalBuilder.SystemOutput.SysErr)
          .nativeSignals(false).dumb(true).build();
      if (!canKeepStatusArea(terminal)) {
        terminal.close();
        return Optional.empty();
      }
      Terminal t = terminal;
      Screen screen = new Screen() {
        @Override
        public int[] size() {
          Size size = t.getSize();
          return new int[] {size.getRows(), size.getColumns()};
        }

        @Override
        public PrintWriter writer() {
          return t.writer();
        }
      };
      boolean colour = env.getOrDefault("NO_COLOR", "").isEmpty();
      LiveView view = new LiveView(screen, clock, items, pipelines, maxConcurrent, colour, nameProfiles);
      view.terminal = terminal;
      view.start();
      return Optional.of(view);
    } catch (Exception | LinkageError e) {
      if (terminal != null) {
        try {
          terminal.close();
        } catch (Exception ignored) {
          // falling back to plain lines anyway
        }
      }
      return Optional.empty();
    }
  }

  private static boolean canKeepStatusArea(Terminal terminal) {
    String type = terminal.getType();
    Size size = terminal.getSize();
    return !Terminal.TYPE_DUMB.equals(type) && !Terminal.TYPE_DUMB_COLOR.equals(type)
        && terminal.getStringCapability(Capability.cursor_address) != null
        && size.getRows() >= 10 && size.getColumns() >= 20;
  }

  /**
   * Draws the area, then redraws it once a second and at once when the terminal's size changes;
   * log lines (logback writes to {@code System.err}) go above the area meanwhile.
   */
  private void start() {
    show();
    routeSystemErr();
    ticker = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread t = new Thread(task, "orchestrate-live-view");
      t.setDaemon(true);
      return t;
    });
    ticker.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
    try {
      winch = Signals.register("WINCH", () -> {
        try {
          ticker.execute(this::tick);
        } catch (RejectedExecutionException e) {
          // closing: nothing to redraw
        }
      });
    } catch (RuntimeException | LinkageError e) {
      winch = null; // no SIGWINCH here: the tick notices the new size within a second
    }
  }

  /**
   * Until {@link #close}, what is written to {@code System.err} (log lines) is printed above the
   * area, line by line, instead of wherever the cursor was parked (which would garble the area).
   */
  synchronized void routeSystemErr() {
    systemErr = System.err;
    routed = new AboveTheArea();
    System.setErr(new PrintStream(routed, true, StandardCharsets.UTF_8));
  }

  /** Collects bytes into lines and prints each complete one above the area. */
  private final class AboveTheArea extends OutputStream {
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    @Override
    public void write(int b) {
      synchronized (LiveView.this) {
        if (b == '\n') {
          String text = line.toString(StandardCharsets.UTF_8);
          line.reset();
          printLine(text.endsWith("\r") ? text.substring(0, text.length() - 1) : text);
        } else {
          line.write(b);
        }
      }
    }

    @Override
    public void write(byte[] bytes, int off, int len) {
      synchronized (LiveView.this) {
        for (int i = off; i < off + len; i++) {
          write(bytes[i]);
        }
      }
    }

    /** What is left without a line end, as a last line. */
    void drain() {
      if (line.size() > 0) {
        write('\n');
      }
    }
  }

  /** The first paint, for tests that drive the view without a ticker. */
  synchronized void show() {
    write(area.open(rendered()));
  }

  @Override
  public synchronized void runStarted(List<ItemState> all, ItemFilter filter) {
    Set<String> targets = targetScope(all, filter);
    inRun = item -> item.inBacklog() && filter.matches(item) && (targets == null || targets.contains(item.id()));
    recount(all);
    redraw();
  }

  /**
   * With {@code --target}: the targets and, transitively, the dependencies not done at the start;
   * null without targets.
   */
  private static Set<String> targetScope(List<ItemState> all, ItemFilter filter) {
    if (!filter.hasTargets()) {
      return null;
    }
    Map<String, ItemState> byId = new LinkedHashMap<>();
    all.forEach(i -> byId.put(i.id(), i));
    Set<String> scope = new HashSet<>();
    Deque<String> todo = new ArrayDeque<>(filter.targets());
    while (!todo.isEmpty()) {
      String id = todo.pop();
      ItemState item = byId.get(id);
      if (item == null || !scope.add(id)) {
        continue;
      }
      for (String dep : item.definition().dependsOn()) {
        ItemState d = byId.get(dep);
        if (d != null && d.status() != ItemStatus.DONE) {
          todo.push(dep);
        }
      }
    }
    return scope;
  }

  @Override
  public synchronized void jobStarted(ItemState item, String phase, int attempt) {
    jobStarted(item, phase, attempt, null);
  }

  @Override
  public synchronized void jobStarted(ItemState item, String phase, int attempt, String profile) {
    phasesRun++;
    active.put(item.id(), new LiveStatus.ActiveJob(item.id(), phase, attempt, clock.instant(), lines.tag(profile)));
    peakActive = Math.max(peakActive, active.size());
    lines.jobStarted(item, phase, attempt, profile);
  }

  @Override
  public synchronized void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
    String text = lines.finishedText(before, after, outcome);
    LiveStatus.ActiveJob job = active.remove(before.id());
    if (job != null && RunProgress.providerEnded(outcome)) {
      phasesRun--; // no phase: its provider refused it (docs/agents.md, "Provider limits")
    } else if (job != null) {
      jobsFinished++;
      jobsTime = jobsTime.plus(Duration.between(job.started(), clock.instant()));
    }
    finished.addFirst(new LiveStatus.Finished(text, tone(after, outcome)));
    while (finished.size() > LiveStatus.FINISHED_SHOWN) {
      finished.removeLast();
    }
    count(before, after);
    estimate();
    lines.jobFinished(before, after, outcome);
  }

  static LiveStatus.Tone tone(ItemState after, AgentOutcome outcome) {
    if (after.status() == ItemStatus.BLOCKED) {
      return LiveStatus.Tone.BAD;
    }
    if (after.status() == ItemStatus.DONE) {
      return LiveStatus.Tone.GOOD;
    }
    if (outcome.ending() != AgentOutcome.Ending.EXITED || outcome.result() == AgentResult.FAILED) {
      return LiveStatus.Tone.RETRY;
    }
    return outcome.result() == AgentResult.PHASE_COMPLETE ? LiveStatus.Tone.GOOD : LiveStatus.Tone.PLAIN;
  }

  @Override
  public synchronized void statusChanged(ItemState before, ItemState after) {
    count(before, after);
    lines.statusChanged(before, after);
  }

  @Override
  public synchronized void providerLimit(String message) {
    lines.providerLimit(message);
  }

  @Override
  public synchronized void profilePaused(AgentPauses.Pause pause) {
    pauses.paused(pause);
    lines.profilePaused(pause);
    redraw();
  }

  @Override
  public synchronized void pauseEnded(String profile) {
    pauses.ended(profile);
    lines.pauseEnded(profile);
    redraw();
  }

  @Override
  public synchronized void waiting(String what) {
    lines.waiting(what);
  }

  @Override
  public synchronized void itemAdded(ItemState item) {
    recount(items.get());
    lines.itemAdded(item);
  }

  @Override
  public synchronized void backlogReloaded(SyncResult changes) {
    recount(items.get());
    lines.backlogReloaded(changes);
  }

  @Override
  public synchronized void summarizationFailed(String itemId, String error) {
    lines.summarizationFailed(itemId, error);
  }

  /** Puts the terminal back as it was: the area gone, the cursor shown after the last line. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    if (systemErr != null) {
      System.err.flush();
      drainRouted();
      System.setErr(systemErr);
      systemErr = null;
    }
    lines.close(); // a provider's words still held
    fit(); // a resize not yet painted: the area is erased where it is, not where it was
    closed = true;
    if (ticker != null) {
      ticker.shutdownNow();
    }
    try {
      if (winch != null) {
        Signals.unregister("WINCH", winch);
      }
      write(area.close());
      if (terminal != null) {
        terminal.close();
      }
    } catch (Exception e) {
      // the run's result matters more than a tidy terminal
    }
  }

  private AboveTheArea routed;

  private void drainRouted() {
    if (routed != null) {
      routed.drain();
      routed = null;
    }
  }

  /**
   * Follows one transition in the counts: O(1), so a run of thousands of items does not re-read
   * every item per event (a full {@link #recount} happens only at the start, when an item joins
   * and when the backlog is reloaded).
   */
  private void count(ItemState before, ItemState after) {
    if (inRun == null || !inRun.test(after)) {
      return;
    }
    phasesLeft += phasesLeft(after) - phasesLeft(before);
    if (before.status() != after.status()) {
      done += is(after, ItemStatus.DONE) - is(before, ItemStatus.DONE);
      blocked += is(after, ItemStatus.BLOCKED) - is(before, ItemStatus.BLOCKED);
      awaitingReview += is(after, ItemStatus.AWAITING_REVIEW) - is(before, ItemStatus.AWAITING_REVIEW);
      awaitingChecks += is(after, ItemStatus.AWAITING_CHECKS) - is(before, ItemStatus.AWAITING_CHECKS);
      landing += is(after, ItemStatus.LANDING) - is(before, ItemStatus.LANDING);
    }
  }

  private static int is(ItemState item, ItemStatus status) {
    return item.status() == status ? 1 : 0;
  }

  private void recount(List<ItemState> all) {
    if (inRun == null) {
      return;
    }
    int d = 0;
    int t = 0;
    int b = 0;
    int review = 0;
    int checks = 0;
    int lands = 0;
    long left = 0;
    for (ItemState item : all) {
      if (!inRun.test(item)) {
        continue;
      }
      t++;
      left += phasesLeft(item);
      if (item.status() == ItemStatus.DONE) {
        d++;
      } else if (item.status() == ItemStatus.BLOCKED) {
        b++;
      } else if (item.status() == ItemStatus.AWAITING_REVIEW) {
        review++;
      } else if (item.status() == ItemStatus.AWAITING_CHECKS) {
        checks++;
      } else if (item.status() == ItemStatus.LANDING) {
        lands++;
      }
    }
    awaitingReview = review;
    awaitingChecks = checks;
    landing = lands;
    done = d;
    total = t;
    blocked = b;
    phasesLeft = left;
    estimate();
  }

  /** Phases the item has still to run, from where it is in its pipeline (0 when done or blocked). */
  private long phasesLeft(ItemState item) {
    Pipeline pipeline = pipelines.get(item.definition().pipeline());
    if (pipeline == null || item.status().isTerminal()) {
      return 0;
    }
    String phase = item.progress().phase();
    return switch (item.status()) {
      case NEW -> pipeline.prePhases().size() + pipeline.phases().size();
      case SCOPING -> pipeline.prePhases().size() - Math.max(0, indexOf(pipeline.prePhases(), phase))
          + pipeline.phases().size();
      case IN_PROGRESS -> pipeline.phases().size() - Math.max(0, indexOf(pipeline.phases(), phase));
      default -> pipeline.phases().size();
    };
  }

  private static int indexOf(List<PhaseDef> phases, String name) {
    for (int i = 0; i < phases.size(); i++) {
      if (phases.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private void estimate() {
    int itemsLeft = total - done - blocked;
    if (jobsFinished == 0 || phasesLeft <= 0 || itemsLeft <= 0) {
      eta = null;
      return;
    }
    Duration mean = jobsTime.dividedBy(jobsFinished);
    long lanes = Math.min(maxConcurrent, itemsLeft);
    // Standing still for a pause, the work left begins when it began to: the pause is added when shown.
    Instant from = pauses.stillSince() != null ? pauses.stillSince() : clock.instant();
    eta = from.plus(mean.multipliedBy(phasesLeft).dividedBy(lanes));
  }

  @Override
  public synchronized void printLine(String line) {
    printAbove(TerminalText.safe(line));
  }

  @Override
  public synchronized boolean offer(String line) {
    if (closed) {
      return false;
    }
    printAbove(TerminalText.safe(line));
    return true;
  }

  private void printAbove(String line) {
    if (closed) {
      return;
    }
    fit();
    write(area.line(line, rendered()));
  }

  /** Redraws at the terminal's size now (a tick, or SIGWINCH). */
  synchronized void tick() {
    redraw();
  }

  private void redraw() {
    if (!closed && !fit()) {
      write(area.draw(rendered()));
    }
  }

  /**
   * Moves the area to the terminal's size when it changed since the last paint, and says whether it
   * did (the area is then painted). Every paint asks first, not only the tick that SIGWINCH or the
   * second brings: a line or a job painted at the old size in between erased the lines of a grown
   * screen from the area's old top and left a copy of the area in its middle (a size is one ioctl).
   */
  private boolean fit() {
    int[] now = screen.size();
    if (now[0] == area.rows() && now[1] == area.columns()) {
      return false;
    }
    write(area.resize(now[0], now[1], rendered(now[0], now[1])));
    return true;
  }

  private List<LiveArea.Line> rendered() {
    return rendered(area.rows(), area.columns());
  }

  private List<LiveArea.Line> rendered(int rows, int columns) {
    Instant now = clock.instant();
    Duration stood = pauses.follow(now, !active.isEmpty());
    if (eta != null) {
      eta = eta.plus(stood); // the run stood still for a pause: the work left starts later
    }
    LiveStatus snapshot = new LiveStatus(inRun == null ? null : opened, done, total, blocked, phasesRun,
        pauses.shown(eta, now), new ArrayList<>(active.values()), peakActive, new ArrayList<>(finished), colour,
        awaitingReview, awaitingChecks, landing, pauses.inForce(now));
    return snapshot.lines(now, columns, Math.max(1, rows - 2));
  }

  private void write(String bytes) {
    out.write(bytes);
    out.flush();
  }
}
