package dev.orchestrate.notify;

import dev.orchestrate.limits.Quote;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * The scheduler's side of notifications. {@link #publish} never blocks and never throws: it
 * debounces the event, masks it, renders its document once and offers it to each interested
 * sink's bounded queue; each sink has one daemon thread that delivers its queue in order, so a
 * dead endpoint delays only its own sink's documents. A full queue drops its oldest document
 * (counted): a dead endpoint costs at most {@code capacity} documents of memory per sink.
 * {@link #close} lets the threads finish for a bounded time, then gives up and counts what is left.
 *
 * <p>Debouncing: an event whose {@link NotificationEvent#debounceKey} was already sent is not sent
 * again, until {@link #cleared} (for an item's events: the item was unblocked, reopened) or
 * {@link #resumed} (for a profile's pause). The keys remembered are capped at
 * {@link #DEBOUNCE_KEYS}, least recently seen forgotten first.
 */
public final class Notifier implements AutoCloseable {
  public static final int DEFAULT_CAPACITY = 1_000;
  public static final int DEBOUNCE_KEYS = 10_000;
  /** What {@code stats} keeps of a failure's text. */
  public static final int ERROR_CHARS = 200;
  private static final long POLL_MILLIS = 100;
  private static final long STOP_WAIT_MILLIS = 1_000;

  private final List<Lane> lanes;
  private final UnaryOperator<String> mask;
  private final Clock clock;
  private final Map<String, Boolean> sent = new LinkedHashMap<>(64, 0.75f, true) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > DEBOUNCE_KEYS;
    }
  };
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong suppressed = new AtomicLong();
  private volatile boolean closed;

  /**
   * Starts one delivery thread per sink.
   *
   * @param mask     applied to every detail value and every failure text before it leaves the
   *                 process or is recorded (the agent's secrets as {@code ***})
   * @param capacity documents each sink's queue holds
   */
  public Notifier(List<Sink> sinks, UnaryOperator<String> mask, Clock clock, int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1, got " + capacity);
    }
    this.mask = mask;
    this.clock = clock;
    List<Lane> out = new ArrayList<>();
    for (Sink sink : sinks) {
      out.add(new Lane(sink, capacity));
    }
    this.lanes = List.copyOf(out);
    lanes.forEach(Lane::start);
  }

  /**
   * The notifier of a config's {@code notify:} list: webhooks read their secrets from {@code env}
   * now, commands run in {@code directory}.
   *
   * @throws IllegalArgumentException when a webhook's {@code secret_env} is not set
   */
  public static Notifier start(List<NotifySink> config, Map<String, String> env, Path directory,
      UnaryOperator<String> mask, Clock clock) {
    return start(config, env, env, directory, mask, clock);
  }

  /**
   * As above, with the commands started with {@code commandEnv}: the environment without the
   * secrets orchestrate withholds from the commands it runs (a webhook's signing secret first).
   */
  public static Notifier start(List<NotifySink> config, Map<String, String> env, Map<String, String> commandEnv,
      Path directory, UnaryOperator<String> mask, Clock clock) {
    List<Sink> sinks = new ArrayList<>();
    for (NotifySink sink : config) {
      if (sink instanceof NotifySink.Webhook webhook) {
        sinks.add(new WebhookSink(webhook, env, Sleeper.REAL));
      } else if (sink instanceof NotifySink.Command command) {
        sinks.add(new CommandSink(command, directory, commandEnv));
      }
    }
    return new Notifier(sinks, mask, clock, DEFAULT_CAPACITY);
  }

  /** Queues {@code event} for every sink that wants it, unless it repeats one already sent. */
  public void publish(NotificationEvent event) {
    if (event == null) {
      return;
    }
    try {
      if (closed || lanes.stream().noneMatch(l -> l.sink.config().wants(event.kind()))) {
        return;
      }
      if (!firstTime(event.debounceKey())) {
        suppressed.incrementAndGet();
        return;
      }
      NotificationEvent masked = event.masked(mask);
      String id = event.runId() + "-" + sequence.incrementAndGet();
      Pending pending = new Pending(masked, id, masked.toJson(id));
      for (Lane lane : lanes) {
        if (lane.sink.config().wants(event.kind())) {
          lane.offer(pending);
        }
      }
    } catch (RuntimeException e) {
      // A notification must never cost the run anything: one that cannot be rendered (a masking
      // function that throws) is lost, and counted as dropped by the sinks that wanted it.
      for (Lane lane : lanes) {
        if (lane.sink.config().wants(event.kind())) {
          lane.dropped.incrementAndGet();
        }
      }
    }
  }

  /** The item's events may be announced again: it was unblocked, reopened, its checks rerun. */
  public void cleared(String itemId) {
    forget(EventKind.Scope.ITEM, itemId);
  }

  /** The profile's usage-limit pause may be announced again: its pause ended. */
  public void resumed(String profile) {
    forget(EventKind.Scope.PROFILE, profile);
  }

  private void forget(EventKind.Scope scope, String subject) {
    synchronized (sent) {
      for (EventKind kind : EventKind.values()) {
        if (kind.scope() == scope) {
          sent.remove(NotificationEvent.debounceKey(kind, subject));
        }
      }
    }
  }

  private boolean firstTime(String key) {
    synchronized (sent) {
      return sent.put(key, Boolean.TRUE) == null;
    }
  }

  public DeliveryStats stats() {
    return new DeliveryStats(lanes.stream().map(Lane::figures).toList(), suppressed.get());
  }

  /**
   * Stops taking events, lets the sinks deliver what is queued for at most {@code wait}, then
   * interrupts them and counts what was left as undelivered. A sink that is failing (its last
   * document failed) or stuck (one delivery in flight for more than {@link #STUCK_MILLIS}, its first
   * for more than {@link #FIRST_STUCK_MILLIS}) is not waited for: a dead endpoint costs the end of a
   * run one to three seconds, not {@code wait}. Returns within {@code wait} plus about a second
   * (what an interrupted delivery takes to stop).
   */
  public DeliveryStats close(Duration wait) {
    closed = true;
    long deadline = System.nanoTime() + wait.toNanos();
    for (Lane lane : lanes) {
      lane.draining = true;
    }
    while (System.nanoTime() < deadline && lanes.stream().anyMatch(Lane::worthWaitingFor)) {
      try {
        Thread.sleep(CLOSE_CHECK_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    long stopDeadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MILLIS);
    for (Lane lane : lanes) {
      lane.stop();
    }
    for (Lane lane : lanes) {
      lane.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(stopDeadline - System.nanoTime())));
      lane.abandonQueued();
    }
    return stats();
  }

  /** A delivery in flight longer than this at close is not waited for (a healthy endpoint answers in milliseconds). */
  static final long STUCK_MILLIS = 1_000;
  /**
   * The same for a sink's first delivery, which also pays for its client's start (an HTTP client's
   * classes and first connection: up to about a second on a loaded machine, where the end of a run
   * gave up deliveries still in flight after {@link #STUCK_MILLIS}, docs/benchmarks.md).
   */
  static final long FIRST_STUCK_MILLIS = 3_000;
  private static final long CLOSE_CHECK_MILLIS = 20;

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  private record Pending(NotificationEvent event, String id, String json) {}

  /** One sink: its queue, its thread, its figures. */
  private final class Lane implements Runnable {
    private final Sink sink;
    private final BlockingQueue<Pending> queue;
    private final Thread thread;
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong undelivered = new AtomicLong();
    private volatile boolean draining;
    private volatile boolean stopped;
    private volatile String lastError;
    private volatile Instant lastErrorAt;
    /** The last document failed (and none was delivered since). */
    private volatile boolean failing;
    /** When the delivery in flight began ({@link System#nanoTime()}), 0 when none is. */
    private volatile long inFlightSince;

    Lane(Sink sink, int capacity) {
      this.sink = sink;
      this.queue = new ArrayBlockingQueue<>(capacity);
      this.thread = new Thread(this, "notify-" + sink.config().name());
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void offer(Pending pending) {
      while (!queue.offer(pending)) {
        if (queue.poll() != null) {
          dropped.incrementAndGet();
        }
      }
    }

    @Override
    public void run() {
      while (!stopped) {
        Pending next;
        try {
          next = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          return;
        }
        if (next == null) {
          if (draining) {
            return;
          }
          continue;
        }
        inFlightSince = Math.max(1, System.nanoTime());
        try {
          sink.deliver(next.event(), next.id(), next.json());
          delivered.incrementAndGet();
          failing = false;
        } catch (DeliveryException e) {
          failed.incrementAndGet();
          failing = true;
          recordError(e.getMessage());
        } catch (InterruptedException e) {
          undelivered.incrementAndGet();
          if (lastError == null) { // a failure before says more: why it was stuck
            recordError("stopped at the end of the run while delivering");
          }
          return;
        } catch (RuntimeException e) {
          failed.incrementAndGet();
          failing = true;
          recordError(e.getClass().getSimpleName() + ": " + e.getMessage());
        } finally {
          inFlightSince = 0;
        }
      }
    }

    private void recordError(String text) {
      String masked;
      try {
        masked = mask.apply(text == null ? "" : text);
      } catch (RuntimeException e) {
        masked = "(failure text withheld: masking failed)";
      }
      lastError = Quote.line(masked, ERROR_CHARS);
      lastErrorAt = clock.instant();
    }

    /** Still delivering, and neither failing nor stuck on one document: closing waits for it. */
    boolean worthWaitingFor() {
      if (!thread.isAlive() || failing) {
        return false;
      }
      long since = inFlightSince;
      long stuck = delivered.get() == 0 && failed.get() == 0 ? FIRST_STUCK_MILLIS : STUCK_MILLIS;
      return since == 0 || System.nanoTime() - since < TimeUnit.MILLISECONDS.toNanos(stuck);
    }

    void join(long millis) {
      try {
        thread.join(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void stop() {
      stopped = true;
      if (thread.isAlive()) {
        thread.interrupt();
      }
    }

    void abandonQueued() {
      List<Pending> left = new ArrayList<>();
      queue.drainTo(left);
      if (!left.isEmpty()) {
        undelivered.addAndGet(left.size());
        if (lastError == null) {
          recordError(left.size() + " documents still queued at the end of the run");
        }
      }
    }

    DeliveryStats.SinkFigures figures() {
      return new DeliveryStats.SinkFigures(sink.config().name(), sink.config().type(), delivered.get(),
          failed.get(), dropped.get(), undelivered.get(), queue.size(), lastError, lastErrorAt);
    }
  }
}
