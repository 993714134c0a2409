package dev.orchestrate.jobs;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains an agent's stdout and stderr, each on its own thread so that neither pipe fills up and
 * stalls the agent, into bounded tails and the shared capped log.
 */
final class OutputCapture {

  private static final int CHUNK_BYTES = 16 * 1024;
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
    return start(process, log, tailChars, name, Secrets.NONE);
  }

  /** As above, with every secret masked before the output reaches the tails or the log. */
  static OutputCapture start(Process process, CappedLog log, int tailChars, String name, Secrets secrets) {
    TailBuffer stdout = new TailBuffer(tailChars);
    TailBuffer stderr = new TailBuffer(tailChars);
    Thread stdoutReader = Daemon.start(name + "-stdout",
        () -> drain(process.getInputStream(), stdout, log, secrets.streamMasker()));
    Thread stderrReader = Daemon.start(name + "-stderr",
        () -> drain(process.getErrorStream(), stderr, log, secrets.streamMasker()));
    return new OutputCapture(process, log, stdout, stderr, stdoutReader, stderrReader);
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

  private static void drain(InputStream in, TailBuffer tail, CappedLog log, Secrets.StreamMasker masker) {
    byte[] chunk = new byte[CHUNK_BYTES];
    try {
      int n;
      while ((n = in.read(chunk)) != -1) {
        pass(masker.process(chunk, 0, n), tail, log);
      }
      pass(masker.finish(), tail, log);
    } catch (IOException e) {
      // What the masker held back may be the start of a secret: it is dropped, not written.
      LOG.debug("stopped reading agent output: {}", e.getMessage());
    }
  }

  private static void pass(byte[] masked, TailBuffer tail, CappedLog log) {
    if (masked.length > 0) {
      tail.append(masked, 0, masked.length);
      log.write(masked, 0, masked.length);
    }
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
