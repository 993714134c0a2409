package dev.orchestrate.workspace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the git CLI as a subprocess: argv, no shell, in a fixed locale, never prompting, with the
 * hooks and the file-system monitor of the repository switched off (an agent may have planted
 * either, and orchestrate's own commits must not run its code or wait on it), output kept to a
 * bounded size, and a time limit after which the process is killed.
 *
 * <p>The git CLI rather than a Java library: it adds nothing to start-up or to the jar, and it is
 * exactly the git the user and their agents run, with the same on-disk formats and worktree
 * support.
 */
public final class Git {
  /** How much of a command's stdout and stderr is kept each; the rest is read and dropped. */
  static final int OUTPUT_MAX_BYTES = 256 * 1024;
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);
  /** Options before every subcommand. */
  private static final List<String> SAFE_OPTIONS = List.of(
      "-c", "core.hooksPath=/dev/null",
      "-c", "core.fsmonitor=false",
      "-c", "core.quotePath=false",
      "-c", "commit.gpgSign=false",
      "-c", "gc.auto=0",
      "-c", "advice.detachedHead=false");
  /** Inherited variables that would point git at another repository, index or editor. */
  private static final List<String> CLEARED_ENV = List.of("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
      "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
      "GIT_CEILING_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT");

  private final String executable;
  private final Duration timeout;

  public Git() {
    this("git", DEFAULT_TIMEOUT);
  }

  public Git(String executable, Duration timeout) {
    this.executable = executable;
    this.timeout = timeout;
  }

  /** What a git command printed and how it exited. */
  public record Result(int exitCode, String out, String err) {
    public boolean ok() {
      return exitCode == 0;
    }

    /** stdout without its trailing newline. */
    public String line() {
      return out.strip();
    }

    /** The first line of stderr (or stdout), for an error message. */
    public String reason() {
      String text = err.isBlank() ? out : err;
      String first = text.strip().lines().filter(l -> !l.isBlank()).findFirst().orElse("exit code " + exitCode);
      return first.length() > 300 ? first.substring(0, 300) + "..." : first;
    }
  }

  /** Runs {@code git -C dir args...} and returns its result whatever the exit code. */
  public Result run(Path dir, String... args) {
    return run(dir, Map.of(), List.of(args));
  }

  /** Runs {@code git -C dir args...} and returns its result; throws unless it exited 0. */
  public Result ok(Path dir, String... args) {
    Result result = run(dir, args);
    if (!result.ok()) {
      throw new GitException("git " + String.join(" ", args) + " failed in " + dir + ": " + result.reason());
    }
    return result;
  }

  /** Like {@link #run(Path, Map, List)}; throws unless it exited 0. */
  public Result ok(Path dir, Map<String, String> env, List<String> args) {
    Result result = run(dir, env, args);
    if (!result.ok()) {
      throw new GitException("git " + String.join(" ", args) + " failed in " + dir + ": " + result.reason());
    }
    return result;
  }

  /**
   * Runs {@code git -C dir args...} with extra environment (an author, say).
   *
   * @throws GitException when git cannot be started or does not finish within the time limit
   */
  public Result run(Path dir, Map<String, String> env, List<String> args) {
    List<String> argv = new ArrayList<>();
    argv.add(executable);
    argv.add("-C");
    argv.add(dir.toString());
    argv.addAll(SAFE_OPTIONS);
    argv.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(argv);
    Map<String, String> environment = builder.environment();
    CLEARED_ENV.forEach(environment::remove);
    environment.put("GIT_TERMINAL_PROMPT", "0");
    environment.put("GIT_EDITOR", "true");
    environment.put("GIT_SEQUENCE_EDITOR", "true");
    environment.put("GIT_PAGER", "cat");
    environment.put("GIT_OPTIONAL_LOCKS", "0");
    environment.put("LC_ALL", "C");
    environment.putAll(env);
    String what = "git " + String.join(" ", args);
    Process process;
    try {
      process = builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
    } catch (IOException e) {
      throw new GitException("could not run git (" + executable + "): " + e.getMessage()
          + "; install git or put it on the PATH", e);
    }
    CompletableFuture<String> out = drain(process.getInputStream());
    CompletableFuture<String> err = drain(process.getErrorStream());
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new GitException(what + " in " + dir + " did not finish within " + timeout.toSeconds() + " s");
      }
      return new Result(process.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new GitException(what + " was interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new GitException("could not read the output of " + what + ": " + e, e);
    }
  }

  /** Reads a stream to its end on a daemon thread, keeping the first {@link #OUTPUT_MAX_BYTES}. */
  private static CompletableFuture<String> drain(InputStream in) {
    CompletableFuture<String> text = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      ByteArrayOutputStream kept = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      try (in) {
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          int room = OUTPUT_MAX_BYTES - kept.size();
          if (room > 0) {
            kept.write(buffer, 0, Math.min(room, n));
          }
        }
      } catch (IOException e) {
        // the process went away: what was read is what there is
      }
      text.complete(kept.toString(StandardCharsets.UTF_8));
    }, "git-output");
    reader.setDaemon(true);
    reader.start();
    return text;
  }
}
