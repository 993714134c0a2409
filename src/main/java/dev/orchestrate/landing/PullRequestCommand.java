package dev.orchestrate.landing;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.limits.ProcessTrees;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs {@code execution.pull_request} (docs/workspaces.md) after an item's branch was pushed: the
 * user's own command ({@code gh pr create}, {@code glab mr create}, a script), so it runs with the
 * user's environment (its forge token included) minus every {@code GIT_*} variable and the secrets
 * orchestrate withholds from the project's commands ({@code config/SecretEnv}), in the user's
 * checkout, in a session of its own, stdin closed, its output (stdout and stderr together) kept to
 * a bounded size, and stopped with its process tree at its timeout.
 *
 * <p>The placeholders {@code {branch}}, {@code {base}}, {@code {item}}, {@code {title}} and
 * {@code {body_file}} never pass through a shell as text: in a command written as a list each
 * becomes (part of) one argument; in a command written as one string each becomes a quoted
 * reference to an environment variable ({@code "${ORCHESTRATE_PR_TITLE}"}), so a title like
 * {@code $(rm -rf ~)} or {@code "; reboot} is only ever a value. The variables are set for both
 * forms.
 *
 * <p>{@code execution.checks} runs the same way, with its own placeholders ({@code {branch}},
 * {@code {base}}, {@code {item}}, {@code {pull_request}}) and variables ({@code ORCHESTRATE_CHECKS_*}).
 */
final class PullRequestCommand {
  static final List<String> PLACEHOLDERS = List.of("branch", "base", "item", "title", "body_file");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{(branch|base|item|title|body_file)\\}");
  /** How much of the command's output is read and kept; the rest is read and dropped. */
  static final int OUTPUT_MAX_BYTES = 64 * 1024;
  /**
   * Of a longer output, its beginning (a pull request's URL printed first) is kept up to this many
   * bytes, and its end (a CI verdict printed last, a URL printed late) fills the rest.
   */
  static final int OUTPUT_HEAD_BYTES = 16 * 1024;

  /**
   * How the command ended.
   *
   * @param exitCode its exit code, or null when it could not start or was stopped at its timeout
   * @param output   what it printed, not yet masked
   * @param failure  why it did not run to its end, or null
   */
  record Outcome(Integer exitCode, String output, String failure) {
    boolean ok() {
      return exitCode != null && exitCode == 0;
    }
  }

  private PullRequestCommand() {
  }

  static String variable(String placeholder) {
    return variable("pull_request", placeholder);
  }

  /**
   * The environment variable of a placeholder of the command named {@code command}:
   * {@code ORCHESTRATE_PR_*} for execution.pull_request, {@code ORCHESTRATE_CHECKS_*} for execution.checks.
   */
  static String variable(String command, String placeholder) {
    String prefix = command.equals("pull_request") ? "PR" : command.toUpperCase(Locale.ROOT);
    return "ORCHESTRATE_" + prefix + "_" + placeholder.toUpperCase(Locale.ROOT);
  }

  /** The placeholders a command knows: its values' names. */
  private static Pattern placeholders(Map<String, String> values) {
    return Pattern.compile("\\{(" + String.join("|", values.keySet().stream().map(Pattern::quote).toList())
        + ")\\}");
  }

  /** The command's argv with the placeholders substituted (see the class comment). */
  static List<String> argv(ProjectCommand command, Map<String, String> values) {
    if (values.isEmpty()) {
      return command.argv(); // a gate: no placeholders
    }
    Pattern placeholder = values.keySet().equals(java.util.Set.copyOf(PLACEHOLDERS)) ? PLACEHOLDER
        : placeholders(values);
    if (command.viaShell()) {
      String text = placeholder.matcher(command.text())
          .replaceAll(m -> Matcher.quoteReplacement("\"${" + variable(command.name(), m.group(1)) + "}\""));
      return List.of(ProjectCommand.SHELL, "-c", text);
    }
    List<String> argv = new ArrayList<>();
    for (String arg : command.argv()) {
      argv.add(placeholder.matcher(arg).replaceAll(m -> Matcher.quoteReplacement(values.getOrDefault(m.group(1),
          ""))));
    }
    return argv;
  }

  static Outcome run(ProjectCommand command, Map<String, String> values, Path dir) {
    return run(command, values, dir, new Stopper());
  }

  /**
   * Stops a command that runs on another thread (a stop request of the run): its process tree gets
   * TERM, then KILL after {@link #GRACE}, as agents are stopped. A command not yet started never starts.
   */
  static final class Stopper {
    static final java.time.Duration GRACE = java.time.Duration.ofSeconds(3);
    private Process process;
    private boolean stopped;

    /**
     * {@code p} started: stopped from now on by {@link #stop}; when the stop came first (between
     * the start and this call), its TERM, grace and KILL begin now.
     */
    void started(Process p) {
      boolean stop;
      synchronized (this) {
        process = p;
        stop = stopped;
      }
      if (stop) {
        terminate(p);
      }
    }

    synchronized boolean stopped() {
      return stopped;
    }

    /** Returns at once; the TERM, the grace and the KILL happen on a thread of their own. */
    void stop() {
      Process p;
      synchronized (this) {
        if (stopped) {
          return;
        }
        stopped = true;
        p = process;
      }
      if (p != null) {
        terminate(p); // else the start, just made, terminates it when it is registered (started)
      }
    }

    private static void terminate(Process p) {
      if (!p.isAlive()) {
        return;
      }
      Thread killer = new Thread(() -> {
        // The listing comes before any signal (a dead parent's children leave its tree), and the
        // TERM goes to the command itself first: a shell whose child died first would run its next
        // line before its own TERM arrived.
        List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
        p.destroy();
        tree.forEach(ProcessHandle::destroy);
        try {
          p.waitFor(GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        tree.addAll(p.descendants().toList());
        tree.forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }, "command-stop");
      killer.setDaemon(true);
      killer.start();
    }
  }

  static Outcome run(ProjectCommand command, Map<String, String> values, Path dir, Stopper stopper) {
    return run(command, values, dir, System.getenv(), stopper);
  }

  /** As above, started with {@code baseEnv} (the secrets orchestrate withholds already taken out) minus {@code GIT_*}. */
  static Outcome run(ProjectCommand command, Map<String, String> values, Path dir, Map<String, String> baseEnv,
      Stopper stopper) {
    return run(command, values, dir, baseEnv, UnaryOperator.identity(), stopper);
  }

  /** As above, its argv first given to {@code wrap} (the sandbox's, for an integration gate). */
  static Outcome run(ProjectCommand command, Map<String, String> values, Path dir, Map<String, String> baseEnv,
      UnaryOperator<List<String>> wrap, Stopper stopper) {
    if (stopper.stopped()) {
      return new Outcome(null, "", "execution." + command.name() + " was stopped");
    }
    List<String> argv = new ArrayList<>(wrap.apply(argv(command, values)));
    argv = new ArrayList<>(ProcessTrees.inOwnSession(argv));
    ProcessBuilder builder = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    Map<String, String> env = builder.environment();
    env.clear();
    env.putAll(baseEnv);
    env.keySet().removeIf(k -> k.startsWith("GIT_"));
    Map<String, String> vars = new LinkedHashMap<>();
    values.forEach((k, v) -> vars.put(variable(command.name(), k), v));
    env.putAll(vars);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      return new Outcome(null, "", "could not start execution." + command.name() + " (" + command.text() + "): "
          + e.getMessage());
    }
    CompletableFuture<String> out = drain(process.getInputStream());
    stopper.started(process); // a stop that came meanwhile terminates it now, as any stop does
    try {
      if (!process.waitFor(command.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        kill(process);
        process.waitFor(5, TimeUnit.SECONDS);
        return new Outcome(null, text(out), "execution." + command.name() + " did not finish within "
            + command.timeout().toSeconds() + " s and was stopped");
      }
      process.descendants().forEach(ProcessHandle::destroyForcibly); // what it left behind
      if (stopper.stopped()) {
        return new Outcome(null, text(out), "execution." + command.name() + " was stopped");
      }
      return new Outcome(process.exitValue(), text(out), null);
    } catch (InterruptedException e) {
      kill(process);
      Thread.currentThread().interrupt();
      return new Outcome(null, text(out), "execution." + command.name() + " was interrupted");
    }
  }

  /**
   * KILL to the command, then to what it started (listed before: a dead parent's children leave
   * its tree). The command first, so a shell never runs its next line after its child died.
   */
  private static void kill(Process process) {
    ProcessTrees.kill(process);
  }

  private static String text(CompletableFuture<String> out) {
    try {
      return out.get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      return "";
    }
  }

  /**
   * Reads the command's output to its end on a daemon thread (the command never blocks on a full
   * pipe), keeping at most {@link #OUTPUT_MAX_BYTES}: all of a short output; of a longer one its
   * first {@link #OUTPUT_HEAD_BYTES} and its last bytes, with a line saying how much was left out
   * between them (issue 43: a long CI report kept only its beginning and lost its verdict).
   */
  static CompletableFuture<String> drain(InputStream in) {
    CompletableFuture<String> text = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      Ends ends = new Ends(OUTPUT_HEAD_BYTES, OUTPUT_MAX_BYTES - OUTPUT_HEAD_BYTES);
      byte[] buffer = new byte[8192];
      try (in) {
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          ends.add(buffer, n);
        }
      } catch (IOException e) {
        // the process went away: what was read is what there is
      }
      text.complete(ends.text());
    }, "pull-request-output");
    reader.setDaemon(true);
    reader.start();
    return text;
  }

  /** The first {@code headMax} bytes of a stream and, in a ring, its last {@code tailMax}. */
  static final class Ends {
    private final byte[] head;
    private final byte[] tail;
    private int headSize;
    private long tailWritten;

    Ends(int headMax, int tailMax) {
      head = new byte[headMax];
      tail = new byte[tailMax];
    }

    void add(byte[] data, int length) {
      int at = 0;
      if (headSize < head.length) {
        int n = Math.min(head.length - headSize, length);
        System.arraycopy(data, 0, head, headSize, n);
        headSize += n;
        at = n;
      }
      for (int i = at; i < length; i++) {
        tail[(int) (tailWritten++ % tail.length)] = data[i];
      }
    }

    String text() {
      String first = new String(head, 0, headSize, StandardCharsets.UTF_8);
      if (tailWritten <= tail.length) {
        return first + new String(tail, 0, (int) tailWritten, StandardCharsets.UTF_8);
      }
      byte[] last = new byte[tail.length];
      int start = (int) (tailWritten % tail.length);
      System.arraycopy(tail, start, last, 0, tail.length - start);
      System.arraycopy(tail, 0, last, tail.length - start, start);
      return first + "\n[... " + (tailWritten - tail.length) + " bytes of output left out ...]\n"
          + new String(last, StandardCharsets.UTF_8);
    }
  }
}
