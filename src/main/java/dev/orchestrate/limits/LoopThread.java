package dev.orchestrate.limits;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The thread a run's scheduler loop runs on, which must never wait for a slow command of its own:
 * it takes in every agent's end and starts the next, so a {@code git worktree add} of seconds there
 * held up every decision (issue 46). The loop marks its thread while it runs ({@link #enter});
 * the code that starts such a command says so first ({@link #slowWork}), and one started on the
 * marked thread is counted, with the first of them kept (what, from where) for the tests
 * ({@code GitOffTheSchedulerThreadTest}), never refused: a user's run is not failed for it.
 */
public final class LoopThread {
  private static final ThreadLocal<Boolean> MARKED = new ThreadLocal<>();
  private static final AtomicLong SLOW = new AtomicLong();
  private static final AtomicReference<String> FIRST = new AtomicReference<>();

  private LoopThread() {
  }

  /** Marks this thread as a scheduler loop's until the returned handle is closed. */
  public static Mark enter() {
    MARKED.set(Boolean.TRUE);
    return MARKED::remove;
  }

  /** Whether this thread runs a scheduler loop now. */
  public static boolean current() {
    return MARKED.get() != null;
  }

  /** A slow command ({@code what}, e.g. "git worktree add") is about to start on this thread. */
  public static void slowWork(String what) {
    if (current()) {
      SLOW.incrementAndGet();
      if (FIRST.get() == null) {
        FIRST.compareAndSet(null, what + " on " + Thread.currentThread().getName() + ", from " + caller());
      }
    }
  }

  /** Where the command was started from: orchestrate's frames, innermost first, at most 12. */
  private static String caller() {
    StringBuilder from = new StringBuilder();
    int n = 0;
    for (StackTraceElement frame : new Throwable().getStackTrace()) {
      String c = frame.getClassName();
      if (c.startsWith("dev.orchestrate.") && !c.equals(LoopThread.class.getName()) && n++ < 12) {
        from.append(n == 1 ? "" : " < ").append(c.substring("dev.orchestrate.".length())).append('.')
            .append(frame.getMethodName());
      }
    }
    return from.toString();
  }

  /** How many slow commands started on a loop's thread in this process. */
  public static long slowWorkOnLoop() {
    return SLOW.get();
  }

  /** The first of them, as "what on thread", or null. */
  public static String firstSlowWorkOnLoop() {
    return FIRST.get();
  }

  /** The end of a loop's mark. */
  @FunctionalInterface
  public interface Mark extends AutoCloseable {
    @Override
    void close();
  }
}
