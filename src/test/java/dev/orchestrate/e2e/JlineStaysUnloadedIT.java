package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jline is loaded only by the live view: commands that must start fast, and {@code run} when
 * stderr is not a terminal, never load a single jline class (checked with the JVM's class-load log).
 */
class JlineStaysUnloadedIT {
  @TempDir
  Path dir;

  @Test
  void version_status_and_a_piped_run_load_no_jline_class() throws Exception {
    Launcher.copyTree(Launcher.HOME.resolve("examples"), dir.resolve("examples"));
    String state = dir.resolve("state").toString();

    String run = loadedClasses("--state", state, "run", "examples/backlog.yaml");
    assertTrue(run.contains("dev.orchestrate.cli.live.RunProgress"), "the probe sees our classes load");
    assertFalse(run.contains("org.jline"), "run with piped stderr loaded jline");
    assertFalse(run.contains("dev.orchestrate.cli.live.LiveView"), "run with piped stderr loaded LiveView");

    assertFalse(loadedClasses("--version").contains("org.jline"), "--version loaded jline");
    assertFalse(loadedClasses("--state", state, "status", "--json").contains("org.jline"),
        "status --json loaded jline");
  }

  /** The class-load log of {@code java -jar target/orchestrate.jar ARGS}, stdout and stderr piped. */
  private String loadedClasses(String... args) throws Exception {
    Path log = dir.resolve("class-load.log");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xshare:off", "-Xlog:class+load=info:file=" + log, "-jar",
        Launcher.HOME.resolve("target/orchestrate.jar").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
    pb.environment().put("TERM", "xterm-256color");
    pb.environment().remove("ORCHESTRATE_NO_LIVE");
    Process p = pb.start();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "orchestrate " + String.join(" ", args) + " finished");
    assertEquals(0, p.exitValue(), Files.readString(dir.resolve("err.txt")));
    return Files.readString(log, StandardCharsets.UTF_8);
  }
}
