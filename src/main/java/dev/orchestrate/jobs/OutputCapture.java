package dev.orchestrate.jobs;

import dev.orchestrate.outcome.ProviderFailure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains an agent's stdout and stderr, each on its own thread so that neither pipe fills up and
 * stalls the agent, into bounded tails and the shared capped log.
 */
final class OutputCapture {

  private static final int CHUNK_BYTES = 16 * 1024;
  /** The longest stdout line a preset's reader is given (a whole result event, answer included). */
  static final int MAX_EVENT_LINE_BYTES = 2 * 1024 * 1024;
  private static final Logger LOG = LoggerFactory.getLogger(OutputCapture.class);

  /**
   * Both streams within {@code agent.output_tail_chars}, in the size-cap form (beginning, marker,
   * end), and whether each had to be cut.
   */
  record Tails(String stdout, String stderr, boolean stdoutTruncated, boolean stderrTruncated) {
    Tails(String stdout, String stderr) {
      this(stdout, stderr, false, false);
    }
  }

  private final Process process;
  private final CappedLog log;
  private final TailBuffer stdout;
  private final TailBuffer stderr;
  private final Thread stdoutReader;
  private final Thread stderrReader;
  private OutputReader reader = OutputReader.NONE;
  private CompletableFuture<ProviderFailure> refused = new CompletableFuture<>();
  /** System.nanoTime() of the last byte from either stream (or of the start): what a stall is measured from. */
  private AtomicLong lastOutput = new AtomicLong(System.nanoTime());

  private OutputCapture(Process process, CappedLog log, TailBuffer stdout, TailBuffer stderr,
      Thread stdoutReader, Thread stderrReader) {
    this.process = process;
    this.log = log;
    this.stdout = stdout;
    this.stderr = stderr;
    this.stdoutReader = stdoutReader;
    this.stderrReader = stderrReader;
  }

  static OutputCapture start(Process process, CappedLog log, int tailChars, String name) {
    return start(process, log, tailChars, name, Secrets.NONE, OutputReader.NONE);
  }

  /** As above, with every secret masked before the output reaches the tails or the log. */
  static OutputCapture start(Process process, CappedLog log, int tailChars, String name, Secrets secrets) {
    return start(process, log, tailChars, name, secrets, OutputReader.NONE);
  }

  /** As above, with every line of stdout also given to {@code reader} (a preset's event reader). */
  static OutputCapture start(Process process, CappedLog log, int tailChars, String name, OutputReader reader) {
    return start(process, log, tailChars, name, Secrets.NONE, reader);
  }

  /**
   * Drains both streams with every secret masked before the output reaches the tails, the log or
   * {@code reader}, which is given every line of the masked stdout (a preset's event reader), so
   * nothing it reports can carry a secret the stream showed. The masker only holds bytes back
   * until it knows they are no secret, and {@value Secrets#MASK} holds no newline or quote, so the
   * lines the reader sees are the agent's lines with the secrets replaced.
   */
  static OutputCapture start(Process process, CappedLog log, int tailChars, String name,
      Secrets secrets, OutputReader reader) {
    TailBuffer stdout = new TailBuffer(tailChars);
    TailBuffer stderr = new TailBuffer(tailChars);
    AtomicLong last = new AtomicLong(System.nanoTime());
    CompletableFuture<ProviderFailure> refused = new CompletableFuture<>();
    LineSplitter lines = reader == OutputReader.NONE ? null : new LineSplitter(MAX_EVENT_LINE_BYTES, line -> {
      synchronized (reader) {
        reader.line(line);
        ProviderFailure stop = reader.stopNow();
        if (stop != null) {
          refused.complete(stop);
        }
      }
    });
    boolean rendered = lines != null && reader.logsTo(text -> {
      byte[] bytes = (secrets.mask(text) + "\n").getBytes(StandardCharsets.UTF_8);
      stdout.append(bytes, 0, bytes.length);
      log.write(bytes, 0, bytes.length);
    });
    Thread stdoutReader = Daemon.start(name + "-stdout", () -> {
      drain(process.getInputStream(), rendered ? null : stdout, rendered ? null : log, secrets.streamMasker(), last,
          lines == null ? null : new ReaderLines(lines, reader));
    });
    Thread stderrReader = Daemon.start(name + "-stderr",
        () -> drain(process.getErrorStream(), stderr, log, secrets.streamMasker(), last, null));
    OutputCapture capture = new OutputCapture(process, log, stdout, stderr, stdoutReader, stderrReader);
    capture.reader = reader;
    capture.lastOutput = last;
    capture.refused = refused;
    return capture;
  }

  /** Completes when the reader has seen a failure that no waiting mends: the agent is to be stopped. */
  CompletableFuture<ProviderFailure> refused() {
    return refused;
  }

  /** Nanoseconds since either stream last delivered output (or since the start). */
  long quietNanos() {
    return System.nanoTime() - lastOutput.get();
  }

  /** What the preset's reader made of stdout; call after {@link #finish}. */
  AgentReport report() {
    synchronized (reader) { // a leftover descendant may still be writing to the pipe
      return reader.report();
    }
  }

  /** The session id the preset's reader found in stdout so far, or null. */
  String sessionId() {
    synchronized (reader) {
      return reader.sessionId();
    }
  }

  /**
   * Waits up to {@code maxWait} for both streams to end, then closes the log. Waiting longer would
   * let a leftover grandchild that inherited the pipes hold the attempt open forever.
   */
  Tails finish(Duration maxWait) throws InterruptedException {
    long deadline = System.nanoTime() + maxWait.toNanos();
    join(stdoutReader, deadline);
    join(stderrReader, deadline);
    if (stdoutReader.isAlive() || stderrReader.isAlive()) {
      LOG.debug("output of agent pid {} is still open after it ended (a leftover descendant holds"
          + " the pipe); finishing without it", process.pid());
      // The blocked read is not interrupted, but its next read fails, so the reader ends at the
      // leftover's next write instead of following it indefinitely.
      closeQuietly(process.getInputStream());
      closeQuietly(process.getErrorStream());
    }
    log.close(stdout.text());
    return new Tails(stdout.capped(), stderr.capped(), stdout.truncated(), stderr.truncated());
  }

  /** The lines of stdout for a reader, which is told of each line skipped as too long, and of the end. */
  private record ReaderLines(LineSplitter splitter, OutputReader reader) {
    void append(byte[] bytes, int offset, int length) {
      long skipped = splitter.skipped();
      splitter.append(bytes, offset, length);
      for (long i = skipped; i < splitter.skipped(); i++) {
        synchronized (reader) {
          reader.oversized();
        }
      }
    }

    void finish() {
      try {
        splitter.finish();
      } finally {
        synchronized (reader) {
          reader.ended();
        }
      }
    }
  }

  /** {@code tail} and {@code log} null: the bytes go to {@code lines} only (a reader that logs itself). */
  private static void drain(InputStream in, TailBuffer tail, CappedLog log, Secrets.StreamMasker masker,
      AtomicLong lastOutput, ReaderLines lines) {
    byte[] chunk = new byte[CHUNK_BYTES];
    try {
      int n;
      while ((n = in.read(chunk)) != -1) {
        lastOutput.set(System.nanoTime());
        lines = pass(masker.process(chunk, 0, n), tail, log, lines);
      }
      lines = pass(masker.finish(), tail, log, lines);
    } catch (IOException e) {
      // What the masker held back may be the start of a secret: it is dropped, not written.
      LOG.debug("stopped reading agent output: {}", e.getMessage());
    }
    if (lines != null) {
      feedEnd(lines);
    }
  }

  /** Gives a chunk to the preset's reader; a reader that fails is dropped, the draining goes on. */
  private static ReaderLines feed(ReaderLines lines, byte[] chunk, int n) {
    if (lines == null || n == 0) {
      return lines;
    }
    try {
      lines.append(chunk, 0, n);
      return lines;
    } catch (RuntimeException e) {
      LOG.warn("reading the agent's events failed, its output is no longer read: {}", e.toString());
      return null;
    }
  }

  private static void feedEnd(ReaderLines lines) {
    try {
      lines.finish();
    } catch (RuntimeException e) {
      LOG.warn("reading the agent's last event failed: {}", e.toString());
    }
  }

  private static ReaderLines pass(byte[] masked, TailBuffer tail, CappedLog log, ReaderLines lines) {
    if (masked.length > 0 && tail != null) {
      tail.append(masked, 0, masked.length);
      log.write(masked, 0, masked.length);
    }
    return feed(lines, masked, masked.length);
  }

  private static void join(Thread reader, long deadline) throws InterruptedException {
    long remaining = deadline - System.nanoTime();
    if (remaining > 0) {
      TimeUnit.NANOSECONDS.timedJoin(reader, remaining);
    }
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException e) {
      LOG.debug("could not close agent output stream: {}", e.getMessage());
    }
  }
}
