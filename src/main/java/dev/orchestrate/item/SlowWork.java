package dev.orchestrate.item;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Work on an item whose slow part, a command (a push, the pull-request command, a checks poll),
 * runs off the scheduler thread: {@link #run} there, touching no state, then {@link #finish}, on the
 * same thread (issue 46: it may run git, to make the next part), records what it did in the
 * worktrees' rows; the scheduler thread then applies its result to the item. One at a time per item.
 *
 * @param <T> what the work comes to
 */
public interface SlowWork<T> {
  /** Off the scheduler thread: runs the command; touches no state. */
  void run();

  /**
   * From any thread: stops the command if it runs (its process tree, TERM then KILL) or keeps it
   * from starting; {@link #run} returns soon after, and {@link #finish} records nothing.
   */
  void cancel();

  /**
   * After {@link #run}, on its thread (or inline, outside a run): records what the command did and
   * returns the result; null when it was cancelled, or when {@link #next} has more to run. Touches
   * no state of the scheduler's.
   */
  T finish();

  /** After {@link #finish}: the next slow part of the same work (a pull request after its push), or null. */
  default SlowWork<T> next() {
    return null;
  }

  /** Whether {@link #run} has anything to do off the scheduler thread (false: all of it is in {@link #finish}). */
  default boolean offThread() {
    return true;
  }

  /** Work with no slow part: {@code work} runs in {@link #finish}, on the scheduler thread. */
  static <T> SlowWork<T> now(Supplier<T> work) {
    return new SlowWork<>() {
      @Override
      public void run() {
      }

      @Override
      public void cancel() {
      }

      @Override
      public T finish() {
        return work.get();
      }

      @Override
      public boolean offThread() {
        return false;
      }
    };
  }

  /**
   * Work whose making runs commands too (a local integration's git before its push): {@code make}
   * runs in {@link #run}, off the scheduler thread, then what it made runs there as well; its
   * {@link #finish} and {@link #next} are the made work's. A failure to make it is thrown by
   * {@link #finish}, on the scheduler thread, as a failure of the work.
   */
  static <T> SlowWork<T> madeOffThread(Supplier<SlowWork<T>> make) {
    return new SlowWork<>() {
      private volatile SlowWork<T> made;
      private volatile RuntimeException failed;
      private volatile boolean cancelled;

      @Override
      public void run() {
        if (cancelled) {
          return;
        }
        try {
          made = make.get();
        } catch (RuntimeException e) {
          failed = e;
          return;
        }
        if (cancelled) {
          made.cancel();
        }
        made.run();
      }

      @Override
      public void cancel() {
        cancelled = true;
        SlowWork<T> work = made;
        if (work != null) {
          work.cancel();
        }
      }

      @Override
      public T finish() {
        if (failed != null) {
          throw failed;
        }
        return made == null ? null : made.finish();
      }

      @Override
      public SlowWork<T> next() {
        return made == null ? null : made.next();
      }
    };
  }

  /** Work with nothing left to do but return {@code result}. */
  static <T> SlowWork<T> done(T result) {
    return now(() -> result);
  }

  /** Runs the whole work on this thread, its later parts too (outside a run: {@code approve}, a test). */
  static <T> T inline(SlowWork<T> work) {
    for (SlowWork<T> part = work; part != null; part = part.next()) {
      part.run();
      T done = part.finish();
      if (part.next() == null) {
        return done;
      }
    }
    return null;
  }

  /** This work, its result (and its next part's) passed through {@code then} on the scheduler thread. */
  default <R> SlowWork<R> then(Function<T, R> then) {
    SlowWork<T> self = this;
    return new SlowWork<>() {
      private SlowWork<R> next;

      @Override
      public void run() {
        self.run();
      }

      @Override
      public void cancel() {
        self.cancel();
      }

      @Override
      public R finish() {
        T result = self.finish();
        SlowWork<T> more = self.next();
        if (more != null) {
          next = more.then(then);
          return null;
        }
        return result == null ? null : then.apply(result);
      }

      @Override
      public SlowWork<R> next() {
        return next;
      }

      @Override
      public boolean offThread() {
        return self.offThread();
      }
    };
  }
}
