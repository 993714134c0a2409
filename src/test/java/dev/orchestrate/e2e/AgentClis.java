package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * The real coding-agent CLIs the end-to-end tests drive, pinned, installed from the npm registry
 * (and nowhere else) into {@code target/agent-clis} on first use. Without npm on PATH the tests are
 * skipped with that message. Before an install, {@code npm ping} (no retries, a short timeout) asks
 * whether npm's configured registry answers at all: when the network cannot reach it (refused, no
 * such host, timed out) the tests are skipped saying so, in about a second rather than after npm's
 * minute of retries. Any other failure of the install, the registry answering, fails them.
 *
 * <p>The end-to-end classes run in several JVMs at once (failsafe's {@code forkCount}, pom.xml), all
 * installing into the same prefix: the check and the install happen under a lock on
 * {@code target/agent-clis.lock} ({@link FileChannel#lock}, held across JVMs), so a second JVM
 * waits for the first one's {@code npm install} and then finds the package there instead of running
 * npm into the same {@code node_modules} at the same time.
 */
final class AgentClis {
  static final String CLAUDE_CODE = "@anthropic-ai/claude-code@2.1.330";
  static final String CODEX = "@openai/codex@0.169.0";
  static final String GEMINI_CLI = "@google/gemini-cli@0.61.0";
  static final String OPENCODE = "opencode-ai@1.18.33";
  static final Path PREFIX = Launcher.HOME.resolve("target/agent-clis");
  /** The lock file of the installs, beside the prefix (npm owns what is inside it). */
  static final Path LOCK = PREFIX.resolveSibling("agent-clis.lock");
  /** Within a JVM: a file lock is held per JVM, and a second lock() on it from this JVM would throw. */
  private static final Object INSTALL = new Object();
  /**
   * npm's error codes that say the registry was never reached or never answered (node's, and
   * npm-registry-fetch's "network timeout" when {@code --fetch-timeout} passes).
   */
  private static final Pattern UNREACHABLE = Pattern.compile("\\b(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT"
      + "|ESOCKETTIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENETDOWN|ECONNABORTED|ERR_SOCKET_TIMEOUT"
      + "|UND_ERR_CONNECT_TIMEOUT|network timeout)\\b");
  private static final int PING_SECONDS = 10;
  /** Why the registry could not be reached, once found so: every later test skips without asking. */
  private static String unreachable;
  /** Why the install of a package failed, so that the next tests fail at once rather than retry. */
  private static final Map<String, String> FAILED = new HashMap<>();

  private AgentClis() {
  }

  /** The installed program {@code bin} of {@code pkg} (name@version), installing it if needed. */
  static Path install(String pkg, String bin) throws IOException, InterruptedException {
    Path npm = OnPath.find("npm");
    Assumptions.assumeTrue(npm != null, "npm is not on PATH: the real-CLI end-to-end tests need it to install "
        + pkg + " from the npm registry (install Node.js 20+ with npm to run them)");
    synchronized (INSTALL) {
      Files.createDirectories(LOCK.getParent());
      try (FileChannel channel = FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        channel.lock(); // released when the channel closes, or by the system when this JVM dies
        return installLocked(npm, pkg, bin);
      }
    }
  }

  /** {@link #install} with both locks held. */
  private static Path installLocked(Path npm, String pkg, String bin) throws IOException, InterruptedException {
    String name = pkg.substring(0, pkg.lastIndexOf('@'));
    String version = pkg.substring(pkg.lastIndexOf('@') + 1);
    Path manifest = PREFIX.resolve("node_modules/" + name + "/package.json");
    Path program = PREFIX.resolve("node_modules/.bin/" + bin);
    if (!Files.exists(program) || !Files.readString(manifest).contains("\"version\": \"" + version + "\"")) {
      String failed = FAILED.get(pkg);
      assertTrue(failed == null, () -> failed + "\n(for an earlier test of this run: not tried again)");
      if (unreachable == null) {
        unreachable = unreachable(npm);
      }
      String why = unreachable;
      Assumptions.assumeTrue(why.isEmpty(), () -> why + ": the real-CLI end-to-end tests need it to install " + pkg
          + " (check the network, or npm's registry and proxy settings: npm config get registry)");
      Files.createDirectories(PREFIX);
      Path log = PREFIX.resolve("npm-install-" + bin + ".log");
      Process p = new ProcessBuilder(npm.toString(), "install", "--prefix", PREFIX.toString(), "--no-audit",
          "--no-fund", "--loglevel=error", pkg)
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        FAILED.put(pkg, "npm install " + pkg + " did not finish in 10 minutes");
      } else if (p.exitValue() != 0 || !Files.exists(program)) {
        FAILED.put(pkg, "npm install " + pkg + " failed (exit " + p.exitValue() + "):\n"
            + Files.readString(log, StandardCharsets.UTF_8));
      }
      assertTrue(!FAILED.containsKey(pkg), () -> FAILED.get(pkg));
    }
    return program;
  }

  /**
   * Empty when npm's configured registry answers {@code npm ping} (or fails it for another reason
   * than the network: the install then runs and says what is wrong), else why it could not be
   * reached.
   */
  static String unreachable(Path npm) throws IOException, InterruptedException {
    Path log = Files.createTempFile("npm-ping", ".log");
    try {
      Process p = new ProcessBuilder(npm.toString(), "ping", "--fetch-retries=0",
          "--fetch-timeout=" + PING_SECONDS * 1000).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(PING_SECONDS + 20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return "the npm registry could not be reached: npm ping did not answer in " + (PING_SECONDS + 20) + " s";
      }
      return unreachable(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** {@link #unreachable(Path)} from npm ping's exit code and output. */
  static String unreachable(int exit, String output) {
    Matcher code = UNREACHABLE.matcher(output);
    if (exit == 0 || !code.find()) {
      return "";
    }
    Matcher ping = Pattern.compile("PING (\\S+)").matcher(output);
    return "the npm registry " + (ping.find() ? ping.group(1) + " " : "") + "could not be reached (npm ping: "
        + code.group(1) + ")";
  }

  /** The directory of the node that runs the CLIs, to put on the agents' PATH. */
  static String nodeDir() {
    Path node = OnPath.find("node");
    return node == null ? "" : node.getParent().toString();
  }
}
