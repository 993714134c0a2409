package dev.orchestrate.e2e;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * The programs the end-to-end tests drive besides orchestrate (tmux, chromium, chromedriver, npm),
 * found on {@code PATH} as {@code .ci/run}'s {@code command -v} finds them, never at a fixed path.
 */
final class OnPath {
  private OnPath() {
  }

  /** {@code program} in the first directory of this JVM's {@code PATH} that has it executable. */
  static Path find(String program) {
    return find(program, System.getenv("PATH"));
  }

  /** {@code program} in the first directory of {@code path} that has it executable, or null. */
  static Path find(String program, String path) {
    for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
      // An empty entry is the current directory to a shell; never look there for a test's tools.
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program)) && !Files.isDirectory(Path.of(dir, program))) {
        return Path.of(dir, program);
      }
    }
    return null;
  }

  /**
   * The programs on {@code PATH}, or the test is skipped (an assumption) with a message naming what
   * is missing, the Debian packages that install it, and then {@code skipped}: what does not run.
   */
  static Path[] require(String skipped, Tool... tools) {
    return require(System.getenv("PATH"), skipped, tools);
  }

  static Path[] require(String path, String skipped, Tool... tools) {
    Path[] found = new Path[tools.length];
    StringBuilder missing = new StringBuilder();
    StringBuilder packages = new StringBuilder();
    for (int i = 0; i < tools.length; i++) {
      found[i] = find(tools[i].program(), path);
      if (found[i] == null) {
        missing.append(missing.length() == 0 ? "" : ", ").append(tools[i].program());
        packages.append(' ').append(tools[i].debianPackage());
      }
    }
    Assumptions.assumeTrue(missing.length() == 0, () -> missing + " not on PATH (Debian: apt-get install -y"
        + packages + "; .ci/run does so when run as root): " + skipped);
    return found;
  }

  /** A program and the Debian package that installs it. */
  record Tool(String program, String debianPackage) {
    static final Tool TMUX = new Tool("tmux", "tmux");
    static final Tool CHROMIUM = new Tool("chromium", "chromium");
    static final Tool CHROMEDRIVER = new Tool("chromedriver", "chromium-driver");
  }
}
