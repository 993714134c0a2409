package dev.orchestrate.limits;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The end of a file an agent could have written or replaced (a job's log), at most a given number
 * of bytes, read without following a link and never waiting on a FIFO or a device for long. A
 * caller's check that the file is regular and its open are two steps: a file swapped for a FIFO
 * between them blocks the open until a writer comes, and one with a writer that writes nothing
 * blocks the read. So the open and the read run on a daemon thread, which the caller waits for at
 * most its timeout; a FIFO's open left blocked is then released (opened for reading and writing and closed,
 * which ends the reader's open at end of file), so the thread does not stay for the process's life.
 */
public final class FileTail {
  private FileTail() {
  }

  /**
   * What was read: {@code bytes} from offset {@code start} of a file of {@code size} bytes (the
   * start is 0 when the file fit).
   */
  public record Tail(byte[] bytes, long size, long start) {
  }

  /**
   * The last {@code maxBytes} bytes of {@code file} (as far as it got when it is still growing).
   *
   * @throws java.nio.file.NoSuchFileException when there is no such file
   * @throws IOException when it is a link, cannot be read, or was not read within {@code timeout}
   */
  public static Tail read(Path file, int maxBytes, Duration timeout) throws IOException {
    FutureTask<Tail> read = new FutureTask<>(() -> {
      try (SeekableByteChannel channel = Files.newByteChannel(file, StandardOpenOption.READ,
          LinkOption.NOFOLLOW_LINKS)) {
        long size = channel.size();
        long start = Math.max(0, size - maxBytes);
        channel.position(start);
        ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(maxBytes, size));
        while (buffer.hasRemaining() && channel.read(buffer) > 0) {
          // read what is there now; a file still growing is shown as far as it got
        }
        byte[] bytes = new byte[buffer.position()];
        buffer.flip().get(bytes);
        return new Tail(bytes, size, start);
      }
    });
    Thread reader = new Thread(read, "file-tail-reader");
    reader.setDaemon(true);
    reader.start();
    try {
      return read.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      read.cancel(true);
      release(file);
      throw new IOException(file + " was not read within " + timeout.toMillis() + " ms: not a regular file (a FIFO"
          + " or a device put in its place?)");
    } catch (InterruptedException e) {
      read.cancel(true);
      Thread.currentThread().interrupt();
      throw new IOException(file + " was not read: interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(file + " could not be read: " + e.getCause(), e.getCause());
    }
  }

  /**
   * Opens a FIFO for reading and writing and closes it at once, on a daemon thread: a reader
   * blocked in its open gets end of file. Nothing else is opened (a regular file or a link is left
   * as it is).
   */
  public static void release(Path file) {
    Thread releaser = new Thread(() -> {
      try {
        if (Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
          // read and write: on Linux such an open of a FIFO never waits (a write-only one waits for a
          // reader, for good when the FIFO was swapped again for one nobody opens)
          Files.newByteChannel(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)
              .close();
        }
      } catch (IOException | RuntimeException e) {
        // gone or not ours to open: the reader stays blocked, a daemon
      }
    }, "file-tail-release");
    releaser.setDaemon(true);
    releaser.start();
  }
}
