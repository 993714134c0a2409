package dev.orchestrate.cli;

import dev.orchestrate.limits.ProcessTrees;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pager for long output on a terminal, as git pages {@code git diff}: the user's
 * {@code $ORCHESTRATE_PAGER}, else {@code $PAGER} (run by {@code /bin/sh -c}, as git runs it), else
 * {@code less -FRX} found on an absolute {@code PATH} entry; an empty value or {@code cat} means
 * none. Only the user's environment chooses it: never a repository's configuration. Not used when
 * stdout is not a terminal.
 */
final class Pager {
  /** The default pager's flags: quit if one screen, pass colours, leave the screen as it is. */
  static final String DEFAULT_FLAGS = "-FRX";

  private Pager() {
  }

  /** Writes the paged text; an {@link IOException} is the pager having quit. */
  interface Body {
    void write(PrintWriter out) throws IOException;
  }

  /** The pager's argv from the user's environment, or empty for none. */
  static Optional<List<String>> command(Map<String, String> env) {
    String chosen = env.get("ORCHESTRATE_PAGER");
    if (chosen == null) {
      chosen = env.get("PAGER");
    }
    if (chosen != null) {
      String trimmed = chosen.strip();
      return trimmed.isEmpty() || trimmed.equals("cat") ? Optional.empty()
          : Optional.of(List.of("/bin/sh", "-c", trimmed));
    }
    return ProcessTrees.onAbsolutePath("less", env.get("PATH"))
        .map(less -> List.of(less.toString(), DEFAULT_FLAGS));
  }

  /**
   * Whether this process's stdout is a terminal: on Linux from where fd 1 points; elsewhere
   * {@code System.console()} (stdin and stdout are terminals) is the hint.
   */
  static boolean stdoutIsTerminal() {
    Path fd1 = Path.of("/proc/self/fd/1");
    try {
      if (Files.isSymbolicLink(fd1)) {
        String target = Files.readSymbolicLink(fd1).toString();
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
      }
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      // fall through to the portable hint
    }
    return System.console() != null;
  }

  /**
   * Runs {@code body} into the pager {@code argv} (its stdout and stderr the terminal, {@code LESS}
   * and {@code LV} set as git sets them when unset) and waits for the pager to end. The pager
   * quitting early (the user pressed q) ends the body quietly. While it runs, Ctrl-C is the pager's:
   * orchestrate ends on it only once the pager is gone.
   *
   * @throws IOException when the pager cannot be started
   */
  static void page(List<String> argv, Body body) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.INHERIT)
        .redirectError(ProcessBuilder.Redirect.INHERIT);
    builder.environment().putIfAbsent("LESS", "FRX");
    builder.environment().putIfAbsent("LV", "-c");
    Process pager = builder.start();
    try (StopSignals signals = StopSignals.install(() -> {
      if (!pager.isAlive()) {
        System.exit(ExitCode.INTERRUPTED);
      }
    })) {
      try (PrintWriter out = Cli.writer(pager.getOutputStream(), "sun.stdout.encoding")) {
        body.write(out);
        out.flush();
      } catch (IOException e) {
        // the pager quit before the end: as git, stop quietly
      } finally {
        waitFor(pager); // also when the body failed: its error is printed after the pager is gone
      }
    }
  }

  private static void waitFor(Process pager) {
    try {
      pager.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
