package dev.orchestrate.landing;

import dev.orchestrate.item.SlowWork;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A command run off the scheduler thread ({@link #run}: nothing but the command), what it did
 * recorded back on it ({@link #finish}); a command stopped by {@link #cancel} records nothing.
 *
 * @param <R> what the command returns
 * @param <T> the result recorded
 */
final class Offloaded<R, T> implements SlowWork<T> {
  private final Function<PullRequestCommand.Stopper, R> command;
  private final BiFunction<R, Offloaded<R, T>, T> record;
  private final PullRequestCommand.Stopper stopper = new PullRequestCommand.Stopper();
  private Thread runner;
  private boolean cancelled;
  private volatile R result;
  private SlowWork<T> next;

  Offloaded(Function<PullRequestCommand.Stopper, R> command,
      BiFunction<R, Offloaded<R, T>, T> record) {
    this.command = command;
    this.record = record;
  }

  @Override
  public void run() {
    synchronized (this) {
      if (cancelled) {
        return;
      }
      runner = Thread.currentThread();
    }
    R r;
    try {
      r = command.apply(stopper);
    } catch (RuntimeException e) {
      r = null;
      if (!stopper.stopped()) {
        throw e;
      }
    } finally {
      synchronized (this) {
        runner = null;
        if (cancelled) {
          Thread.interrupted(); // a cancel that came as the command ended: not the next task's
        }
      }
    }
    result = r;
  }

  @Override
  public void cancel() {
    synchronized (this) {
      cancelled = true;
      if (runner != null) {
        runner.interrupt();
      }
    }
    stopper.stop();
  }

  @Override
  public T finish() {
    synchronized (this) {
      if (cancelled || result == null) {
        return null;
      }
    }
    return record.apply(result, this);
  }

  /** What runs next, once this part is recorded. */
  void then(SlowWork<T> part) {
    next = part;
  }

  @Override
  public SlowWork<T> next() {
    return next;
  }
}
