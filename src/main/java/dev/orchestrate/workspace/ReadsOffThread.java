package dev.orchestrate.workspace;

import dev.orchestrate.limits.FileTail;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reads of files an agent may have written or swapped ({@link RefFiles}: git's refs and objects),
 * made on pooled daemon threads and waited for at most {@link #TIMEOUT}: a regular file swapped for
 * a FIFO between the look and the open blocks the open, which no Java call can time out. A read
 * still stuck is released as {@link FileTail} releases one; while {@link #MAX_STUCK} are stuck,
 * nothing more is read, so the threads an agent can strand stay few.
 */
final class ReadsOffThread {
  /**
   * How long a caller waits for an answer read on one of {@link #READERS}: an agent could swap a ref
   * for a FIFO between the look and the open, which would block the open.
   */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private ReadsOffThread() {
  }

  /**
   * Threads that read, kept for the next read: a file swapped for a FIFO between the look and the
   * open blocks the open, so each answer is read on one of them and waited for at most {@link
   * #READ_TIMEOUT} (then git is asked, and the FIFO released); a thread stuck keeps it, the next
   * read gets another.
   */
  private static final ExecutorService READERS = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task, "ref-files");
    thread.setDaemon(true);
    return thread;
  });
  /** The file each reading thread is opening now: what to release when it is stuck. */
  static final Map<Thread, Path> OPENING = new ConcurrentHashMap<>();
  /**
   * Reads that outlived their wait and have not ended yet. A FIFO renamed away before its release
   * leaves its reader blocked for good; while {@link #MAX_STUCK} are, the files are not read and
   * every answer is git's, so the threads an agent can strand this way stay few.
   */
  static final java.util.concurrent.atomic.AtomicInteger STUCK = new java.util.concurrent.atomic.AtomicInteger();
  static final int MAX_STUCK = 4;

  static <T> T read(Callable<T> read, T unknown) {
    return read(read, unknown, TIMEOUT);
  }

  /** {@code read}'s answer, read on one of {@link #READERS}; {@code unknown} when it took over {@code timeout}. */
  static <T> T read(Callable<T> read, T unknown, Duration timeout) {
    if (STUCK.get() >= MAX_STUCK) {
      return unknown; // reads keep getting stuck: git answers for the rest of the process
    }
    AtomicReference<Thread> reader = new AtomicReference<>();
    // 0 queued, 3 reading, 1 done, 2 late (counted in STUCK), 4 abandoned before it started
    java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger();
    Future<T> answer;
    try {
      answer = READERS.submit(() -> {
        if (!state.compareAndSet(0, 3)) {
          return unknown; // its caller has gone: nothing is read
        }
        reader.set(Thread.currentThread());
        try {
          return read.call();
        } finally {
          if (!state.compareAndSet(3, 1)) {
            STUCK.decrementAndGet(); // a late read ended after all (its FIFO released)
          }
        }
      });
    } catch (RejectedExecutionException e) {
      return unknown;
    }
    boolean interrupted = false;
    try {
      return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      // falls through to the late read's count and release
    } catch (InterruptedException e) {
      interrupted = true;
    } catch (ExecutionException e) {
      return unknown;
    }
    if (state.compareAndSet(3, 2)) {
      STUCK.incrementAndGet();
      Thread stuckReader = reader.get();
      Path stuck = stuckReader == null ? null : OPENING.get(stuckReader);
      if (stuck != null) {
        FileTail.release(stuck);
      }
    } else {
      state.compareAndSet(0, 4);
    }
    answer.cancel(true);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return unknown;
  }

  /**
   * {@code file}'s bytes when it is a regular file of at most {@code max} bytes (null when it is
   * larger), read without following a link.
   *
   * @throws IOException when it is not a regular file or cannot be read
   */
  static byte[] upTo(Path file, int max) throws IOException {
    BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attrs.isRegularFile()) {
      throw new IOException(file + " is not a regular file");
    }
    return attrs.size() > max ? null : opened(file, max);
  }

  /** {@code file}'s first {@code max} bytes, null when it has more; the open and read as {@link #upTo}'s. */
  static byte[] opened(Path file, int max) throws IOException {
    OPENING.put(Thread.currentThread(), file);
    try (InputStream in = Channels.newInputStream(Files.newByteChannel(file, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS))) {
      byte[] bytes = in.readNBytes(max + 1);
      return bytes.length > max ? null : bytes;
    } finally {
      OPENING.remove(Thread.currentThread());
    }
  }
}
