package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The real coding-agent CLIs the end-to-end tests drive, pinned, installed from the npm registry
 * (and nowhere else) into {@code target/agent-clis} on first use. Without npm on PATH the tests are
 * skipped with that message; with npm, a failed install fails them.
 */
final class AgentClis {
  static final String CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.330";
  static final String CODEX = "@openai/codex@0.169.0";
  static final String GEMINI_CLI = "@google/gemini-cli@0.61.0";
  static final String OPENCODE = "opencode-ai@1.18.33";
  static final Path PREFIX = Launcher.HOME.resolve("target/agent-clis");
  private static final Object INSTALL = new Object();

  private AgentClis() {
  }

  /** The installed program {@code bin} of {@code pkg} (name@version), installing it if needed. */
  static Path install(String pkg, String bin) throws IOException, InterruptedException {
    Path npm = onPath("npm");
    Assumptions.assumeTrue(npm != null, "npm is not on PATH: the real-CLI end-to-end tests need it to install "
        + pkg + " from the npm registry (install Node.js 20+ with npm to run them)");
    synchronized (INSTALL) {
      String name = pkg.substring(0, pkg.lastIndexOf('@'));
      String version = pkg.substring(pkg.lastIndexOf('@') + 1);
      Path manifest = PREFIX.resolve("node_modules/" + name + "/package.json");
      Path program = PREFIX.resolve("node_modules/.bin/" + bin);
      if (!Files.exists(program) || !Files.readString(manifest).contains("\"version\": \"" + version + "\"")) {
        Files.createDirectories(PREFIX);
        Path log = PREFIX.resolve("npm-install-" + bin + ".log");
        Process p = new ProcessBuilder(npm.toString(), "install", "--prefix", PREFIX.toString(), "--no-audit",
            "--no-fund", "--loglevel=error", pkg)
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "npm install " + pkg + " did not finish in 10 minutes");
        assertTrue(p.exitValue() == 0 && Files.exists(program), "npm install " + pkg + " failed (exit "
            + p.exitValue() + "):\n" + Files.readString(log, StandardCharsets.UTF_8));
      }
      return program;
    }
  }

  /** The directory of the node that runs the CLIs, to put on the agents' PATH. */
  static String nodeDir() {
    Path node = onPath("node");
    return node == null ? "" : node.getParent().toString();
  }

  static Path onPath(String program) {
    String path = System.getenv("PATH");
    for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return Path.of(dir, program);
      }
    }
    return null;
  }
}
