package dev.orchestrate.notify;

import dev.orchestrate.limits.ProcessTrees;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command with the document on stdin (written, then closed). Exit 0 is a delivery; any
 * other exit, a failure to start, or running past the timeout (then the command and everything it
 * started are killed) is a failure, not retried: a command that wants retries does them itself.
 * Its stdout and stderr are read into a small buffer, never inherited, and only their last
 * {@link #OUTPUT_TAIL_CHARS} characters are kept, for the failure's text.
 */
final class CommandSink implements Sink {
  public static final int OUTPUT_TAIL_CHARS = 200;
  private static final long KILL_WAIT_MILLIS = 2_000;

  private final NotifySink.Command config;
  private final Path directory;
  private final Map<String, String> env;

  /** @param directory where the command runs (the project's directory) */
  public CommandSink(NotifySink.Command config, Path directory) {
    this(config, directory, System.getenv());
  }

  /** A sink whose command starts with {@code env} as its whole environment. */
  public CommandSink(NotifySink.Command config, Path directory, Map<String, String> env) {
    this.config = config;
    this.directory = directory;
    this.env = Map.copyOf(env);
  }

  @Override
  public NotifySink config() {
    return config;
  }

  @Override
  public void deliver(NotificationEvent event, String deliveryId, String json)
      throws DeliveryException, InterruptedException {
    Process process;
    try {
      ProcessBuilder builder = new ProcessBuilder(ProcessTrees.inOwnSession(config.argv(), directory, env.get("PATH")))
          .directory(directory.toFile())
          .redirectErrorStream(true);
      builder.environment().clear();
      builder.environment().putAll(env);
      process = builder.start();
    } catch (IOException e) {
      throw new DeliveryException("cannot start " + config.argv().get(0) + ": " + e.getMessage());
    }
    OutputTail tail = new OutputTail(process.getInputStream());
    Thread reader = new Thread(tail, "notify-" + config.name() + "-output");
    reader.setDaemon(true);
    reader.start();
    try {
      try (OutputStream stdin = process.getOutputStream()) {
        stdin.write(json.getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        // The command closed stdin without reading it all: its exit status decides.
      }
      if (!process.waitFor(config.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        kill(process);
        throw new DeliveryException("timed out after " + config.timeout().toSeconds() + "s (killed)"
            + tail.suffix());
      }
      int exit = process.exitValue();
      if (exit != 0) {
        reader.join(KILL_WAIT_MILLIS);
        throw new DeliveryException("exit " + exit + tail.suffix());
      }
    } catch (InterruptedException e) {
      kill(process);
      throw e;
    }
  }

  /** The command and every process it started, forcibly (the tree read before it reparents). */
  private static void kill(Process process) {
    ProcessTrees.kill(process);
    try {
      process.waitFor(KILL_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Reads a stream to its end, keeping only its last characters. */
  private static final class OutputTail implements Runnable {
    private final InputStream in;
    private final byte[] ring = new byte[OUTPUT_TAIL_CHARS];
    private long total;

    OutputTail(InputStream in) {
      this.in = in;
    }

    @Override
    public void run() {
      byte[] buffer = new byte[4096];
      try (in) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          synchronized (this) {
            for (int i = 0; i < n; i++) {
              ring[(int) (total++ % ring.length)] = buffer[i];
            }
          }
        }
      } catch (IOException e) {
        // The process was killed: what was read is what there is.
      }
    }

    /** {@code ": <last output>"}, or nothing when the command wrote nothing. */
    synchronized String suffix() {
      if (total == 0) {
        return "";
      }
      int size = (int) Math.min(total, ring.length);
      byte[] last = new byte[size];
      for (int i = 0; i < size; i++) {
        last[i] = ring[(int) ((total - size + i) % ring.length)];
      }
      String text = new String(last, StandardCharsets.UTF_8).strip();
      return text.isEmpty() ? "" : ": " + text;
    }
  }
}
