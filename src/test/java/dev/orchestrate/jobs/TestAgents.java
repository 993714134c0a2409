package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.fail;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.ResultFallback;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The bash agents under src/test/resources/agents/jobs and the requests that run them. */
final class TestAgents {

  private TestAgents() {}

  /** argv running one of the test agents through bash (resources lose their executable bit). */
  static List<String> command(String script, String... args) {
    List<String> argv = new ArrayList<>(List.of("bash", script(script).toString()));
    argv.addAll(List.of(args));
    return argv;
  }

  static Path script(String name) {
    URL url = TestAgents.class.getResource("/agents/jobs/" + name);
    if (url == null) {
      throw new IllegalArgumentException("no test agent " + name);
    }
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static AgentConfig config(List<String> command) {
    return new AgentConfig(command, Duration.ofSeconds(20), Duration.ofSeconds(2), Map.of(),
        ResultFallback.EXIT_CODE, 1024 * 1024, 2000);
  }

  static AgentConfig withTimeout(AgentConfig c, Duration timeout, Duration grace) {
    return new AgentConfig(c.command(), timeout, grace, c.env(), c.resultFallback(),
        c.logMaxBytes(), c.outputTailChars());
  }

  static AgentConfig withFallback(AgentConfig c, ResultFallback fallback) {
    return new AgentConfig(c.command(), c.timeout(), c.killGrace(), c.env(), fallback,
        c.logMaxBytes(), c.outputTailChars());
  }

  static AgentConfig withEnv(AgentConfig c, Map<String, String> env) {
    return new AgentConfig(c.command(), c.timeout(), c.killGrace(), env, c.resultFallback(),
        c.logMaxBytes(), c.outputTailChars());
  }

  static AgentConfig withOutputLimits(AgentConfig c, long logMaxBytes, int tailChars) {
    return new AgentConfig(c.command(), c.timeout(), c.killGrace(), c.env(), c.resultFallback(),
        logMaxBytes, tailChars);
  }

  static JobRequest request(Path dir, AgentConfig agent) {
    return new JobRequest("ITEM-7", "implement", 2, "Do the thing.\n", agent, dir,
        dir.resolve("jobs/ITEM-7-implement-2"));
  }

  static void awaitFile(Path file, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!Files.exists(file)) {
      if (System.nanoTime() > deadline) {
        fail("agent did not create " + file + " within " + limit);
      }
      Thread.sleep(10);
    }
  }

  static long readPid(Path file) {
    try {
      return Long.parseLong(Files.readString(file).strip());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True once the process has exited (a zombie waiting to be reaped counts as exited). */
  static boolean isGone(long pid) {
    return ProcessHandle.of(pid).map(p -> !ProcessTree.isRunning(p)).orElse(true);
  }

  static boolean becomesGone(long pid, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!isGone(pid)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** Last-resort cleanup so a failing test does not leave sleepers behind. */
  static void kill(long pid) {
    ProcessHandle.of(pid).ifPresent(p -> {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    });
  }
}
