package dev.orchestrate.context;

import dev.orchestrate.limits.ProcessTrees;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Summarizes by running a program (argv, no shell): the prompt on its stdin, the summary from its
 * stdout. On timeout the program and everything it started are killed.
 */
final class CommandSummarizer implements Summarizer {
  /** More than any sane summary; protects the runner from a program that never stops printing. */
  static final int MAX_OUTPUT_BYTES = 1 << 20;
  private static final int STDERR_EXCERPT_CHARS = 300;

  private final List<String> command;
  private final Path workDir;
  private final Duration timeout;

  CommandSummarizer(List<String> command, Path workDir, Duration timeout) {
    if (command.isEmpty()) {
      throw new IllegalArgumentException("the command summarizer needs a command");
    }
    this.command = List.copyOf(command);
    this.workDir = workDir;
    this.timeout = timeout;
  }

  @Override
  public String name() {
    return "command:" + Path.of(command.get(0)).getFileName();
  }

  @Override
  public String summarize(String prompt) throws SummarizationException {
    Process process;
    try {
      process = new ProcessBuilder(ProcessTrees.inOwnSession(command, workDir, System.getenv("PATH")))
          .directory(workDir.toFile()).start();
    } catch (IOException e) {
      throw new SummarizationException("command summarizer: cannot start " + command.get(0) + ": "
          + e.getMessage(), e);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    CompletableFuture<byte[]> stdout = drain(process.getInputStream(), "stdout");
    CompletableFuture<byte[]> stderr = drain(process.getErrorStream(), "stderr");
    feed(process, prompt);
    try {
      if (!process.waitFor(remaining(deadline), TimeUnit.NANOSECONDS)) {
        killTree(process);
        throw new SummarizationException("command summarizer: " + command.get(0) + " did not finish within "
            + timeout.toMillis() + " ms and was killed");
      }
      String out = new String(stdout.get(remaining(deadline), TimeUnit.NANOSECONDS), StandardCharsets.UTF_8);
      if (process.exitValue() != 0) {
        throw new SummarizationException("command summarizer: " + command.get(0) + " exited with code "
            + process.exitValue() + excerpt(stderrOf(stderr)));
      }
      if (out.isBlank()) {
        throw new SummarizationException("command summarizer: " + command.get(0) + " printed nothing");
      }
      return out.strip();
    } catch (TimeoutException e) {
      killTree(process); // exited, but a descendant still holds stdout open
      throw new SummarizationException("command summarizer: output of " + command.get(0)
          + " did not end within " + timeout.toMillis() + " ms", e);
    } catch (ExecutionException e) {
      throw new SummarizationException("command summarizer: cannot read the output of " + command.get(0)
          + ": " + e.getCause().getMessage(), e);
    } catch (InterruptedException e) {
      killTree(process);
      Thread.currentThread().interrupt();
      throw new SummarizationException("command summarizer: interrupted", e);
    }
  }

  private static long remaining(long deadline) {
    return Math.max(0, deadline - System.nanoTime());
  }

  /** Writes the prompt on a thread of its own: a program that does not read stdin must not block us. */
  private static void feed(Process process, String prompt) {
    Thread writer = new Thread(() -> {
      try (OutputStream in = process.getOutputStream()) {
        in.write(prompt.getBytes(StandardCharsets.UTF_8));
      } catch (IOException ignored) {
        // the program closed stdin early; what it printed still counts
      }
    }, "summarizer-stdin");
    writer.setDaemon(true);
    writer.start();
  }

  private static CompletableFuture<byte[]> drain(InputStream stream, String name) {
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (InputStream in = stream) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
          if (out.size() < MAX_OUTPUT_BYTES) {
            out.write(buffer, 0, Math.min(n, MAX_OUTPUT_BYTES - out.size()));
          }
        }
        result.complete(out.toByteArray());
      } catch (IOException e) {
        result.completeExceptionally(e);
      }
    }, "summarizer-" + name);
    reader.setDaemon(true);
    reader.start();
    return result;
  }

  /** KILL the program and its descendants (snapshot first: orphans leave the tree). */
  static void killTree(Process process) {
    ProcessTrees.kill(process);
    try {
      process.waitFor(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** stderr once drained; a short wait, since the process has exited, but a grandchild may hold it open. */
  private static byte[] stderrOf(CompletableFuture<byte[]> stderr) throws InterruptedException {
    try {
      return stderr.get(2, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return stderr.getNow(new byte[0]);
    }
  }

  private static String excerpt(byte[] stderr) {
    String text = new String(stderr, StandardCharsets.UTF_8).strip().replaceAll("\\s+", " ");
    if (text.isEmpty()) {
      return "";
    }
    return ": " + (text.length() > STDERR_EXCERPT_CHARS
        ? "…" + text.substring(text.length() - STDERR_EXCERPT_CHARS) : text);
  }
}
