package dev.orchestrate.scheduler;

import dev.orchestrate.item.SlowWork;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slow commands of integration (merge: push's {@code git push}, {@code execution.pull_request},
 * each {@code execution.checks} poll) on two daemon threads of their own, so that the scheduler
 * thread goes on taking in job ends and starting agents while they run. One command per item at a
 * time, at most {@link #MAX_RUNNING} at once (checks polls beyond it wait for a later tick; a push
 * is never refused, and there is at most one per item). Each command's end comes back to the
 * scheduler thread as a message ({@link Done}), where what it did is applied to the items, through
 * the same commit as before (what it did to the worktrees' rows is recorded on its own thread). Everything but {@link #stop} is called on the scheduler thread.
 */
final class Offload {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  static final int THREADS = 2;
  /** Commands queued or running at once, above which no checks poll starts. */
  static final int MAX_RUNNING = 32;
  /** How long the run waits after a stop for its commands to end (TERM, then KILL after a grace). */
  static final Duration STOP_WAIT = Duration.ofSeconds(10);

  /** What a command is for. */
  enum Kind {
    PUSH("push"), CHECKS("checks poll"), BATCH("landing batch");

    final String word;

    Kind(String word) {
      this.word = word;
    }
  }

  /**
   * A command ended (or was stopped): posted to the scheduler's inbox, with what the work's
   * {@link SlowWork#finish} came to, called on this thread too (it records the command's end in the
   * worktrees' rows, and may run git to make the next part: a pull request's body).
   */
  record Done(String itemId, SlowWork<?> work, Kind kind, Finished finished) {
    Done(String itemId, SlowWork<?> work, Kind kind) {
      this(itemId, work, kind, new Finished());
    }
  }

  /** What {@link SlowWork#finish} returned or threw, set before the {@link Done} is posted. */
  static final class Finished {
    private volatile Object result;
    private volatile RuntimeException failure;

    /** The result; throws what finish threw. */
    Object get() {
      if (failure != null) {
        throw failure;
      }
      return result;
    }
  }

  private final Consumer<Done> post;
  /** The commands queued or running, by item (scheduler thread only). */
  private final Map<String, Done> running = new LinkedHashMap<>();
  /** The same, as {@link #stop} sees them from another thread. */
  private final Map<String, SlowWork<?>> stoppable = new java.util.concurrent.ConcurrentHashMap<>();
  private ExecutorService executor;
  private volatile boolean stopping;

  Offload(Consumer<Done> post) {
    this.post = post;
  }

  boolean running(String itemId) {
    return running.containsKey(itemId);
  }

  /** Whether commands run or wait to run. */
  boolean busy() {
    return !running.isEmpty();
  }

  boolean full() {
    return running.size() >= MAX_RUNNING;
  }

  boolean stopping() {
    return stopping;
  }

  void submit(String itemId, SlowWork<?> work, Kind kind) {
    Done done = new Done(itemId, work, kind);
    running.put(itemId, done);
    stoppable.put(itemId, work);
    if (stopping) {
      work.cancel();
    }
    executor().execute(() -> {
      try {
        work.run();
      } catch (RuntimeException | Error e) {
        log.warn("{}: its {} failed: {}", itemId, kind.word, e.toString());
      }
      try {
        done.finished().result = work.finish();
      } catch (RuntimeException e) {
        done.finished().failure = e;
      } finally {
        post.accept(done);
      }
    });
  }

  /** The command's end was taken from the inbox: false when it is not (any longer) one of this run's. */
  boolean ended(Done done) {
    if (running.get(done.itemId()) != done) {
      return false;
    }
    running.remove(done.itemId());
    stoppable.remove(done.itemId(), done.work());
    return true;
  }

  /** From any thread: every command is stopped, and none starts any more. */
  void stop() {
    stopping = true;
    for (SlowWork<?> work : List.copyOf(stoppable.values())) {
      work.cancel();
    }
  }

  /**
   * The loop ended: checks polls are stopped (the next run polls again), pushes too on a stop;
   * the rest is waited for, {@code take} handling the inbox, and the threads end.
   */
  void drain(boolean stop, Runnable take) {
    if (stop) {
      stop();
    } else {
      running.values().stream().filter(d -> d.kind() == Kind.CHECKS).forEach(d -> d.work().cancel());
    }
    long deadline = 0;
    while (!running.isEmpty()) {
      if (stopping && deadline == 0) {
        deadline = System.nanoTime() + STOP_WAIT.toNanos();
      }
      if (deadline != 0 && System.nanoTime() - deadline > 0) {
        log.warn("{} command(s) did not end within {} s of the stop: {}", running.size(), STOP_WAIT.toSeconds(),
            running.keySet());
        break;
      }
      take.run();
    }
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
    running.clear();
    stoppable.clear();
    stopping = false;
  }

  private ExecutorService executor() {
    if (executor == null) {
      AtomicInteger n = new AtomicInteger();
      executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
          r -> {
            Thread t = new Thread(r, "integration-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
      ((ThreadPoolExecutor) executor).allowCoreThreadTimeOut(true);
    }
    return executor;
  }
}
