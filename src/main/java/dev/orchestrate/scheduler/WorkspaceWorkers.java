package dev.orchestrate.scheduler;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads that run the git of the items' worktrees (issue 46), so that the scheduler thread
 * never waits for it: an attempt's worktree made or reset before its agent starts
 * ({@link PreparedStart}), the look at it after the agent ended and its phase commit
 * ({@link Integration#lookAfter}), and the worktrees' retention. One item's work is in order by
 * construction (its agent starts after its worktree is ready, its end is looked at after its agent
 * ended); different items' run side by side, at most {@link #threadsFor} at once. The retention
 * sweep, which removes finished items' worktrees, runs alone ({@link #sweep}): never beside an
 * item's work, which may take a finished worktree back into use.
 */
final class WorkspaceWorkers {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  /** At most this many threads, whatever the run's concurrency: git of one repository gains little beyond. */
  static final int MAX_THREADS = 8;
  /** How long the run waits after its loop for the work still running (a phase commit). */
  static final Duration STOP_WAIT = Duration.ofSeconds(30);

  private final ExecutorService executor;
  private final ReadWriteLock sweepLock = new ReentrantReadWriteLock();
  private final AtomicBoolean sweepQueued = new AtomicBoolean();

  WorkspaceWorkers(int threads) {
    AtomicInteger n = new AtomicInteger();
    this.executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "orchestrate-worktrees-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    ((ThreadPoolExecutor) executor).allowCoreThreadTimeOut(true);
  }

  /** The threads for a run of {@code maxConcurrent} agents at once: one per agent, 2 to {@link #MAX_THREADS}. */
  static int threadsFor(int maxConcurrent) {
    return Math.max(2, Math.min(MAX_THREADS, maxConcurrent));
  }

  /** Runs an item's work on a worker, never beside a sweep. */
  void item(Runnable work) {
    executor.execute(() -> {
      sweepLock.readLock().lock();
      try {
        work.run();
      } finally {
        sweepLock.readLock().unlock();
      }
    });
  }

  /**
   * Runs {@code sweep} on a worker once no item's work runs; a sweep asked for while one waits to
   * start is the same sweep (each looks at every worktree). It never queues for the lock (a queued
   * writer would hold every item's work up behind it): it tries, and waits a little between tries.
   */
  void sweep(Runnable sweep) {
    if (!sweepQueued.compareAndSet(false, true)) {
      return;
    }
    executor.execute(() -> {
      try {
        while (!sweepLock.writeLock().tryLock()) {
          if (executor.isShutdown()) {
            sweepLock.writeLock().lock(); // the run's end: no item's work is left to come
            break;
          }
          Thread.sleep(SWEEP_RETRY_MS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        sweepQueued.set(false);
        return;
      }
      sweepQueued.set(false);
      try {
        sweep.run();
      } catch (RuntimeException e) {
        log.warn("the worktrees' retention failed: {}", e.getMessage());
      } finally {
        sweepLock.writeLock().unlock();
      }
    });
  }

  private static final long SWEEP_RETRY_MS = 50;

  /** After the loop: the work still queued or running ends (a phase commit is not cut), within {@link #STOP_WAIT}. */
  void close() {
    executor.shutdown();
    try {
      if (!executor.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("the worktrees' git work did not end within {} s; left to end on its own",
            STOP_WAIT.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
