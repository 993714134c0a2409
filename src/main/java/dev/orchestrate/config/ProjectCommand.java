package dev.orchestrate.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One of the project's own commands orchestrate runs beside the agents (docs/verification.md): a
 * {@code verify:} gate after a phase, or a {@code workspace.setup:} step in a new worktree.
 *
 * @param name    what it is called in logs, prompts and {@code logs ID --gate NAME}; a valid name
 * @param argv    the program and its arguments, no shell; a command written as one string in the
 *                config is {@code ["/bin/sh", "-c", text]}
 * @param text    the command as the config wrote it, for messages
 * @param timeout how long it may run before it is stopped (its process tree, like an agent's)
 */
public record ProjectCommand(String name, List<String> argv, String text, Duration timeout) {
  /** A gate or set-up step without {@code timeout:} gets this long. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);
  /** The shell a command written as one string runs in. */
  public static final String SHELL = "/bin/sh";

  public ProjectCommand {
    Objects.requireNonNull(name, "name");
    argv = List.copyOf(argv);
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(timeout, "timeout");
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("a command needs a program");
    }
  }

  /** A command written as one string: run by {@code /bin/sh -c}. */
  public static ProjectCommand shell(String name, String text, Duration timeout) {
    return new ProjectCommand(name, List.of(SHELL, "-c", text), text, timeout);
  }

  /** Whether it runs through the shell (written as one string). */
  public boolean viaShell() {
    return argv.size() == 3 && argv.get(0).equals(SHELL) && argv.get(1).equals("-c") && argv.get(2).equals(text);
  }
}
