package dev.orchestrate.cli.live;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Which progress display {@code run} uses. A pure decision, so the live view (and jline) is only
 * loaded when it is chosen.
 */
public enum ProgressMode {
  /** No progress output ({@code --quiet}). */
  NONE,
  /** Plain timestamped lines on stderr: pipes, CI, {@code --json}, dumb terminals. */
  PLAIN,
  /** A status area at the bottom of the terminal, finished jobs scrolling above it. */
  LIVE;

  /** Environment variable that turns the live view off when set to anything but empty or "0". */
  public static final String NO_LIVE_ENV = "ORCHESTRATE_NO_LIVE";

  public static ProgressMode choose(boolean quiet, boolean json, boolean noLive, boolean stderrIsTerminal,
      Map<String, String> env) {
    if (quiet) {
      return NONE;
    }
    String noLiveEnv = env.getOrDefault(NO_LIVE_ENV, "");
    String term = env.getOrDefault("TERM", "");
    boolean live = stderrIsTerminal && !json && !noLive
        && (noLiveEnv.isEmpty() || noLiveEnv.equals("0"))
        && !term.isEmpty() && !term.equals("dumb");
    return live ? LIVE : PLAIN;
  }

  /**
   * Whether this process's stderr is a terminal, without loading jline: on Linux from where fd 2
   * points; elsewhere {@code System.console()} (stdin and stdout are terminals) is the hint. jline
   * checks again when the live view opens and the run falls back to plain lines if it disagrees.
   */
  public static boolean stderrIsTerminal() {
    Path fd2 = Path.of("/proc/self/fd/2");
    try {
      if (Files.isSymbolicLink(fd2)) {
        String target = Files.readSymbolicLink(fd2).toString();
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
      }
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      // fall through to the portable hint
    }
    return System.console() != null;
  }
}
