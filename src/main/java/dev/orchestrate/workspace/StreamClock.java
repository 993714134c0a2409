package dev.orchestrate.workspace;

import dev.orchestrate.limits.ProcessTrees;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The time limit of a streamed command: git is killed once it has had {@code limit} of time not
 * spent waiting for the sink to take its output.
 */
final class StreamClock {
  private final long started = System.nanoTime();
  private final AtomicLong waited = new AtomicLong();
  private final AtomicLong writingSince = new AtomicLong();
  private final AtomicBoolean expired = new AtomicBoolean();
  private final Thread watch;

  StreamClock(Process process, Duration limit) {
    watch = new Thread(() -> {
      try {
        while (process.isAlive()) {
          Thread.sleep(100);
          long since = writingSince.get();
          long now = System.nanoTime();
          long used = now - started - waited.get() - (since == 0 ? 0 : now - since);
          if (used > limit.toNanos()) {
            expired.set(true);
            ProcessTrees.kill(process);
            return;
          }
        }
      } catch (InterruptedException e) {
        // stopped: the command ended
      }
    }, "git-stream-clock");
    watch.setDaemon(true);
    watch.start();
  }

  void writing(boolean now) {
    if (now) {
      writingSince.set(System.nanoTime());
    } else {
      waited.addAndGet(System.nanoTime() - writingSince.getAndSet(0));
    }
  }

  boolean expired() {
    return expired.get();
  }

  void stop() {
    watch.interrupt();
  }
}
