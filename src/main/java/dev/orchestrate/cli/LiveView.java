package dev.orchestrate.cli;

import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.jobs.AgentOutcome;
import dev.orchestrate.scheduler.ItemState;
import dev.orchestrate.scheduler.ItemStatus;
import dev.orchestrate.scheduler.RunListener;
import dev.orchestrate.scheduler.SyncResult;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.InfoCmp.Capability;
import org.jline.utils.Status;

/**
 * The live view of {@code run} on a terminal: a status area at the bottom of stderr's terminal
 * (counts, active jobs with their elapsed time, the last finished jobs), redrawn on every event
 * and once a second, with the same lines as {@link RunProgress} scrolling above it so nothing is
 * lost in scrollback. Agents write to their own log files, never to this terminal, so nothing
 * else draws on it.
 *
 * <p>The only class that imports jline: {@code run} loads it only when {@link ProgressMode#LIVE}
 * is chosen, so other commands never pay for jline at start-up.
 */
final class LiveView implements RunListener, SummarizationListener, AutoCloseable, LineSink {
  private final Terminal terminal;
  private final Status status;
  private final Clock clock;
  private final Supplier<List<ItemState>> items;
  private final RunProgress lines;
  private final PrintWriter out;
  private final ScheduledExecutorService ticker;
  private final Map<String, LiveStatus.ActiveJob> active = new LinkedHashMap<>();
  private final Deque<String> finished = new ArrayDeque<>();
  private int done;
  private int total;
  private int blocked;
  private int phasesRun;
  private Size size;
  private boolean closed;

  private LiveView(Terminal terminal, Clock clock, Supplier<List<ItemState>> items) {
    this.terminal = terminal;
    this.status = Status.getStatus(terminal);
    this.clock = clock;
    this.items = items;
    this.out = terminal.writer();
    this.lines = new RunProgress(this::printAbove, clock);
    this.size = terminal.getSize();
    this.ticker = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread t = new Thread(task, "orchestrate-live-view");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Opens the live view on the terminal behind stderr, or empty if there is none that can keep a
   * status area (dumb terminal, no scroll regions, jline failing): the caller then uses plain lines.
   * {@code items} is read on the scheduler thread only, on events.
   */
  static Optional<LiveView> open(Clock clock, Supplier<List<ItemState>> items) {
    Terminal terminal = null;
    try {
      // nativeSignals(false): Ctrl-C stays with StopSignals; size changes are picked up on each tick.
      terminal = TerminalBuilder.builder().system(true).systemOutput(TerminalBuilder.SystemOutput.SysErr)
          .nativeSignals(false).dumb(true).build();
      if (!canKeepStatusArea(terminal)) {
        terminal.close();
        return Optional.empty();
      }
      LiveView view = new LiveView(terminal, clock, items);
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
        && terminal.getStringCapability(Capability.change_scroll_region) != null
        && terminal.getStringCapability(Capability.cursor_address) != null
        && size.getRows() >= 10 && size.getColumns() >= 20;
  }

  private void start() {
    recount();
    redraw();
    ticker.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
  }

  @Override
  public synchronized void jobStarted(ItemState item, String phase, int attempt) {
    phasesRun++;
    active.put(item.id(), new LiveStatus.ActiveJob(item.id(), phase, attempt, clock.instant()));
    lines.jobStarted(item, phase, attempt);
  }

  @Override
  public synchronized void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
    String text = lines.finishedText(before, after, outcome);
    active.remove(before.id());
    finished.addFirst(text);
    while (finished.size() > LiveStatus.FINISHED_SHOWN) {
      finished.removeLast();
    }
    count(before, after);
    lines.jobFinished(before, after, outcome);
  }

  @Override
  public synchronized void statusChanged(ItemState before, ItemState after) {
    count(before, after);
    lines.statusChanged(before, after);
  }

  @Override
  public synchronized void itemAdded(ItemState item) {
    recount();
    lines.itemAdded(item);
  }

  @Override
  public synchronized void backlogReloaded(SyncResult changes) {
    recount();
    lines.backlogReloaded(changes);
  }

  @Override
  public synchronized void summarizationFailed(String itemId, String error) {
    lines.summarizationFailed(itemId, error);
  }

  /** Puts the terminal back as it was: status area gone, scroll region reset, lines kept. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    ticker.shutdownNow();
    try {
      status.update(List.of());
      status.close();
      out.flush();
      terminal.close();
    } catch (Exception e) {
      // the run's result matters more than a tidy terminal
    }
  }

  /**
   * Follows one transition in the counts: O(1), so a run of thousands of items does not re-read
   * every item per event (a full {@link #recount()} happens only at the start, when an item joins
   * and when the backlog is reloaded).
   */
  private void count(ItemState before, ItemState after) {
    if (!after.inBacklog() || before.status() == after.status()) {
      return;
    }
    done += is(after, ItemStatus.DONE) - is(before, ItemStatus.DONE);
    blocked += is(after, ItemStatus.BLOCKED) - is(before, ItemStatus.BLOCKED);
  }

  private static int is(ItemState item, ItemStatus status) {
    return item.status() == status ? 1 : 0;
  }

  private void recount() {
    int d = 0;
    int t = 0;
    int b = 0;
    for (ItemState item : items.get()) {
      if (!item.inBacklog()) {
        continue;
      }
      t++;
      if (item.status() == ItemStatus.DONE) {
        d++;
      } else if (item.status() == ItemStatus.BLOCKED) {
        b++;
      }
    }
    done = d;
    total = t;
    blocked = b;
  }

  @Override
  public synchronized void printLine(String line) {
    printAbove(line);
  }

  private void printAbove(String line) {
    if (closed) {
      return;
    }
    out.println(line);
    out.flush();
    redraw();
  }

  private synchronized void tick() {
    if (closed) {
      return;
    }
    Size now = terminal.getSize();
    if (!now.equals(size)) {
      size = now;
      status.resize(now);
    }
    redraw();
  }

  private void redraw() {
    LiveStatus snapshot = new LiveStatus(done, total, blocked, phasesRun, List.copyOf(active.values()),
        List.copyOf(finished));
    List<AttributedString> rendered = snapshot.lines(clock.instant(), size.getColumns()).stream()
        .map(AttributedString::new).toList();
    status.update(rendered);
  }
}
