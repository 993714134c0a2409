package dev.orchestrate.backlog;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.limits.ProcessTrees;
import dev.orchestrate.limits.Quote;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a command of {@code backlog.source} (docs/backlog.md, "A backlog from a command"): the one
 * that prints the items, or a transition command ({@code on_done}, ...). Each runs as orchestrate's
 * other project commands do: in the project's directory, in a session of its own, stdin closed,
 * with the environment the project's commands get (the secrets orchestrate withholds taken out,
 * {@code GIT_*} too), its stdout kept up to a cap and the end of its stderr for messages, and
 * stopped with its whole process tree at its timeout.
 *
 * <p>A placeholder ({@code {id}}, {@code {source_id}}, {@code {title}}, {@code {reason}},
 * {@code {pull_request}}) never passes through a shell as text: in a command written as a list it
 * becomes (part of) one argument; in one written as a string, a quoted reference to its variable
 * ({@code "${ORCHESTRATE_BACKLOG_TITLE}"}), set for both forms; so an issue titled {@code $(reboot)}
 * is only ever a value.
 */
public final class BacklogCommand {
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{(id|source_id|title|reason|pull_request)\\}");
  /** How much of stderr is kept, from its end, for a message. */
  static final int STDERR_TAIL_BYTES = 2_000;

  private BacklogCommand() {
  }

  /**
   * How the command ended.
   *
   * @param exitCode  its exit code; null when it could not start or was stopped at its timeout
   * @param stdout    what it printed, at most the cap
   * @param overflow  it printed more than the cap (the rest was read and dropped)
   * @param stderr    the end of its stderr
   * @param failure   why it did not run to its end, or null
   */
  public record Result(Integer exitCode, byte[] stdout, boolean overflow, String stderr, String failure) {
    public boolean ok() {
      return exitCode != null && exitCode == 0 && !overflow;
    }

    /** Why it failed, in one line: {@code exit 1: the end of stderr}; null when it did not. */
    public String problem(long maxBytes) {
      if (failure != null) {
        return failure;
      }
      if (exitCode != 0) {
        String tail = stderr.isBlank() ? "" : ": " + Quote.line(stderr.strip(), 300);
        return "exit " + exitCode + tail;
      }
      return overflow ? "printed more than " + maxBytes + " bytes (backlog.max_bytes)" : null;
    }

    public String stdoutText() {
      return new String(stdout, StandardCharsets.UTF_8);
    }
  }

  /** The environment variable of {@code placeholder}: {@code ORCHESTRATE_BACKLOG_SOURCE_ID}. */
  public static String variable(String placeholder) {
    return "ORCHESTRATE_BACKLOG_" + placeholder.toUpperCase(Locale.ROOT);
  }

  /** The command's argv with the placeholders of {@code values} substituted (see the class comment). */
  public static List<String> argv(ProjectCommand command, Map<String, String> values) {
    if (values.isEmpty()) {
      return command.argv();
    }
    if (command.viaShell()) {
      String text = PLACEHOLDER.matcher(command.text())
          .replaceAll(m -> Matcher.quoteReplacement("\"${" + variable(m.group(1)) + "}\""));
      return List.of(ProjectCommand.SHELL, "-c", text);
    }
    List<String> argv = new ArrayList<>();
    for (String arg : command.argv()) {
      argv.add(PLACEHOLDER.matcher(arg).replaceAll(m -> Matcher.quoteReplacement(values.getOrDefault(m.group(1),
          ""))));
    }
    return argv;
  }

  /**
   * Runs {@code command} in {@code dir} with {@code env} as its whole environment (minus
   * {@code GIT_*}) and the variables of {@code values}, keeping at most {@code maxBytes} of stdout.
   */
  public static Result run(ProjectCommand command, Map<String, String> values, Path dir, Map<String, String> env,
      long maxBytes) {
    String what = "backlog.source." + (command.name().equals("backlog") ? "command" : command.name());
    List<String> argv;
    try {
      argv = ProcessTrees.inOwnSession(argv(command, values), dir, env.get("PATH"));
    } catch (IOException e) {
      return new Result(null, new byte[0], false, "", "could not start " + what + ": " + e.getMessage());
    }
    ProcessBuilder builder = new ProcessBuilder(argv).directory(dir.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().clear();
    builder.environment().putAll(env);
    builder.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
    values.forEach((k, v) -> builder.environment().put(variable(k), v == null ? "" : v));
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      return new Result(null, new byte[0], false, "", "could not start " + what + ": " + e.getMessage());
    }
    CompletableFuture<Drained> out = drain(process.getInputStream(), maxBytes, false, what + "-stdout");
    CompletableFuture<Drained> err = drain(process.getErrorStream(), STDERR_TAIL_BYTES, true, what + "-stderr");
    try {
      if (!process.waitFor(command.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        ProcessTrees.kill(process);
        process.waitFor(5, TimeUnit.SECONDS);
        Drained e = get(err);
        return new Result(null, new byte[0], false, e.text(), what + " did not finish within "
            + command.timeout().toSeconds() + " s and was stopped");
      }
      // What it left behind in the background, re-parented out of its tree but still in its session,
      // holding stdout open (a review's finding: the output then read as nothing after 5 s).
      ProcessTrees.killSession(process.pid());
    } catch (InterruptedException e) {
      ProcessTrees.kill(process);
      Thread.currentThread().interrupt();
      return new Result(null, new byte[0], false, "", what + " was interrupted");
    }
    Drained o = get(out);
    return new Result(process.exitValue(), o.bytes(), o.overflow(), get(err).text(), null);
  }

  private record Drained(byte[] bytes, boolean overflow) {
    String text() {
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  private static Drained get(CompletableFuture<Drained> drained) {
    try {
      return drained.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      return new Drained(new byte[0], false);
    }
  }

  /**
   * Reads a stream to its end on a daemon thread (the command never blocks on a full pipe), keeping
   * its first {@code max} bytes, or with {@code tail} its last.
   */
  private static CompletableFuture<Drained> drain(InputStream in, long max, boolean tail, String name) {
    CompletableFuture<Drained> result = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      ByteArrayOutputStream kept = new ByteArrayOutputStream();
      byte[] ring = tail ? new byte[(int) max] : null;
      long total = 0;
      byte[] buffer = new byte[8192];
      try (in) {
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          if (tail) {
            for (int i = 0; i < n; i++) {
              ring[(int) ((total + i) % max)] = buffer[i];
            }
          } else if (total < max) {
            kept.write(buffer, 0, (int) Math.min(n, max - total));
          }
          total += n;
        }
      } catch (IOException e) {
        // the process went away: what was read is what there is
      }
      if (tail) {
        int size = (int) Math.min(total, max);
        byte[] last = new byte[size];
        for (int i = 0; i < size; i++) {
          last[i] = ring[(int) ((total - size + i) % max)];
        }
        result.complete(new Drained(last, total > max));
      } else {
        result.complete(new Drained(kept.toByteArray(), total > max));
      }
    }, name);
    reader.setDaemon(true);
    reader.start();
    return result;
  }
}
