package dev.orchestrate.state.sqlite;

import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StateLockedException;
import dev.orchestrate.state.StoreException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The single-session lock of a state directory: an OS file lock, so a lock left by a process
 * that died (even by kill -9) is released by the OS and taken over cleanly. The file holds the
 * holder's pid and start time for the "in use" message.
 */
public final class RunLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private RunLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  static RunLock acquire(StateDirectory dir, Instant now) {
    Path file = dir.lockFile();
    try {
      dir.create();
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        String holder = holder(channel);
        channel.close();
        throw new StateLockedException("state directory " + dir.root() + " is in use by another run ("
            + holder + "); wait for it to finish or stop it first");
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid() + ", started " + now + "\n")
          .getBytes(StandardCharsets.UTF_8)), 0);
      channel.force(false);
      return new RunLock(channel, lock);
    } catch (IOException e) {
      throw new StoreException("cannot lock " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether a {@code run} holds the lock now. Creates nothing and writes nothing: without a lock
   * file nobody holds it; otherwise a shared lock is tried and, if taken, released at once (a run
   * starting in that instant would find it held and exit 3, a window of microseconds). Shared,
   * so that the file is opened for reading only: a read-only state directory is asked too.
   */
  static boolean isHeld(StateDirectory dir) {
    Path file = dir.lockFile();
    if (!Files.isRegularFile(file)) {
      return false;
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      FileLock probe;
      try {
        probe = channel.tryLock(0, Long.MAX_VALUE, true);
      } catch (OverlappingFileLockException e) {
        return true; // held by this process
      }
      if (probe == null) {
        return true;
      }
      probe.release();
      return false;
    } catch (IOException e) {
      throw new StoreException("cannot check the lock " + file + ": " + e.getMessage(), e);
    }
  }

  /** The turns of this JVM's threads at each {@code decisions.lock}: an OS lock is the process's, not a thread's. */
  private static final ConcurrentHashMap<Path, ReentrantLock> TURNS = new ConcurrentHashMap<>();

  /**
   * The turn of a command deciding on items ({@code approve}, {@code reject}, {@code unblock}):
   * an OS file lock on {@code decisions.lock}, waited for while another command holds it (the
   * kernel releases it when its holder dies). A run never takes it: a command that holds its turn
   * and then finds {@code run.lock} held knows a run holds it, not another command. Released on
   * close, by the thread that took it.
   */
  static RunLease turn(StateDirectory dir) {
    Path file = dir.root().resolve("decisions.lock");
    ReentrantLock inJvm = TURNS.computeIfAbsent(file, f -> new ReentrantLock(true));
    inJvm.lock();
    FileChannel channel = null;
    try {
      dir.create();
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      channel.lock(); // waits for another process's command
      FileChannel held = channel;
      return () -> {
        try {
          held.close(); // releases the lock
        } catch (IOException ignored) {
          // the OS releases the lock when the process exits anyway
        } finally {
          inJvm.unlock();
        }
      };
    } catch (IOException | RuntimeException e) {
      try {
        if (channel != null) {
          channel.close();
        }
      } catch (IOException ignored) {
        // as above
      }
      inJvm.unlock();
      if (e instanceof RuntimeException r) {
        throw r;
      }
      throw new StoreException("cannot lock " + file + ": " + e.getMessage(), e);
    }
  }

  private static String holder(FileChannel channel) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(256);
    channel.read(buf, 0);
    String text = new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).strip();
    return text.isEmpty() ? "holder unknown" : text;
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException ignored) {
      // the OS releases the lock when the process exits anyway
    }
  }
}
