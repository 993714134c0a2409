package dev.orchestrate.jobs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's output log, shared by the stdout and stderr readers. Writing stops at the cap so a
 * chatty agent cannot fill the disk; the dropped bytes are counted and noted when the log is
 * closed, followed by the end of stdout, which is what someone reading the log usually wants.
 */
final class CappedLog {

  /** Room past the cap for the closing marker and the stdout tail. */
  static final int CLOSING_ROOM = 64 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(CappedLog.class);

  private final Path file;
  private final long maxBytes;
  private final OutputStream out;
  private long written;
  private long omitted;
  private byte lastByte = '\n';
  private boolean broken;
  private boolean closed;

  private CappedLog(Path file, long maxBytes, OutputStream out) {
    this.file = file;
    this.maxBytes = maxBytes;
    this.out = out;
  }

  /** Creates {@code file}, which must be new: never through a link (see {@link JobDirectory}). */
  static CappedLog create(Path file, long maxBytes) throws IOException {
    return new CappedLog(file, Math.max(0, maxBytes), JobDirectory.openNew(file));
  }

  /** Ignored once closed: a grandchild that outlived the agent may still be printing. */
  synchronized void write(byte[] bytes, int offset, int length) {
    if (closed) {
      return;
    }
    int kept = (int) Math.min(length, maxBytes - written);
    omitted += length - kept;
    if (kept == 0 || broken) {
      return;
    }
    try {
      out.write(bytes, offset, kept);
      written += kept;
      lastByte = bytes[offset + kept - 1];
    } catch (IOException e) {
      // A full disk must not fail the attempt; the agent's result does not depend on its log.
      broken = true;
      LOG.warn("could not write agent log {}, dropping the rest of the output: {}", file,
          e.getMessage());
    }
  }

  synchronized void writeLine(String line) {
    byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
    write(bytes, 0, bytes.length);
  }

  /** Appends the omission marker and {@code stdoutTail} if anything was dropped, then closes. */
  synchronized void close(String stdoutTail) {
    if (closed) {
      return;
    }
    closed = true;
    try (out) {
      if (omitted > 0 && !broken) {
        out.write(closing(stdoutTail));
      }
    } catch (IOException e) {
      LOG.warn("could not finish agent log {}: {}", file, e.getMessage());
    }
  }

  private byte[] closing(String stdoutTail) {
    String marker = (lastByte == '\n' ? "" : "\n") + "…[" + omitted
        + " bytes omitted: output exceeded the log limit of " + maxBytes + " bytes]\n";
    byte[] markerBytes = marker.getBytes(StandardCharsets.UTF_8);
    byte[] tail = lastBytes(stdoutTail.getBytes(StandardCharsets.UTF_8),
        CLOSING_ROOM - markerBytes.length);
    byte[] closing = Arrays.copyOf(markerBytes, markerBytes.length + tail.length);
    System.arraycopy(tail, 0, closing, markerBytes.length, tail.length);
    return closing;
  }

  /** At most {@code limit} bytes from the end, starting on a character boundary. */
  private static byte[] lastBytes(byte[] utf8, int limit) {
    if (utf8.length <= limit) {
      return utf8;
    }
    int start = utf8.length - limit;
    while (start < utf8.length && (utf8[start] & 0xC0) == 0x80) {
      start++;
    }
    return Arrays.copyOfRange(utf8, start, utf8.length);
  }
}
