package dev.orchestrate.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/** What the sandbox's end-to-end tests need of this machine: a bwrap that can start a sandbox. */
final class Sandboxes {
  private Sandboxes() {
  }

  /**
   * Skips the test, saying why, unless bwrap is on PATH and starts a sandbox of the kind jobs get
   * (a PID namespace, /proc, a read-only root).
   */
  static void assumeBwrap() throws IOException, InterruptedException {
    Path bwrap = OnPath.find("bwrap");
    Assumptions.assumeTrue(bwrap != null, "bwrap is not on PATH: install bubblewrap (Debian: apt install "
        + "bubblewrap) to run the sandbox's end-to-end tests; .ci/run installs it");
    Process probe = new ProcessBuilder(Stream.of(bwrap.toString(), "--die-with-parent", "--unshare-pid", "--ro-bind",
        "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true").toList()).redirectErrorStream(true).start();
    boolean ended = probe.waitFor(20, TimeUnit.SECONDS);
    String why = new String(probe.getInputStream().readNBytes(2000), StandardCharsets.UTF_8).strip();
    Assumptions.assumeTrue(ended && probe.exitValue() == 0, "bwrap cannot start a sandbox here (user namespaces "
        + "not allowed?): " + why);
  }
}
