package dev.orchestrate.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Signals, pid files and waits for the tests that stop a real runner and its agents. */
final class Processes {
  private Processes() {
  }

  /** Sends a signal the way a terminal or an operator would: {@code kill -SIG pid}. */
  static void signal(Process process, String signal) throws IOException, InterruptedException {
    int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor();
    if (exit != 0) {
      throw new AssertionError("kill -" + signal + " " + process.pid() + " exited " + exit);
    }
  }

  /**
   * kill -9 of the runner: no shutdown hook, no cleanup, like a crash or an OOM kill. Its agents,
   * orphaned, are killed too so that they cannot write into the next run's state.
   */
  static void crash(Process runner) throws InterruptedException {
    List<ProcessHandle> agents = runner.toHandle().descendants().toList();
    runner.toHandle().destroyForcibly();
    if (!runner.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("the runner survived kill -9");
    }
    agents.forEach(ProcessHandle::destroyForcibly);
  }

  /** The pid a script wrote with {@code echo $$ > file}. */
  static long pid(Path pidFile) throws IOException {
    return Long.parseLong(Files.readString(pidFile).strip());
  }

  /** Kills the process a pid file names if it is still running; for clean-up after a failure. */
  static void killIfRunning(Path pidFile) throws IOException {
    if (Files.exists(pidFile) && !Files.readString(pidFile).isBlank()) {
      ProcessHandle.of(pid(pidFile)).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  /**
   * Alive and not a zombie: where PID 1 does not reap orphans (some containers), a killed
   * grandchild stays a zombie, which ProcessHandle still reports as alive.
   */
  static boolean running(long pid) throws IOException {
    if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      return false;
    }
    Path stat = Path.of("/proc/" + pid + "/stat");
    if (!Files.exists(stat)) {
      return true;
    }
    try {
      String text = Files.readString(stat);
      return text.charAt(text.lastIndexOf(')') + 2) != 'Z';
    } catch (IOException e) {
      return false; // gone between the two checks
    }
  }

  /**
   * What a runner that did not end in time is doing: its threads ({@code jcmd PID Thread.print},
   * from the JDK running the tests), for the failure message of a wait that timed out.
   */
  static String threadDump(Process runner) {
    Path java = Path.of(ProcessHandle.current().info().command().orElse("java"));
    Path jcmd = java.resolveSibling("jcmd");
    try {
      Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(runner.pid()), "Thread.print")
          .redirectErrorStream(true).start();
      if (!dump.waitFor(30, TimeUnit.SECONDS)) {
        dump.destroyForcibly();
        return "(jcmd did not answer within 30 s)";
      }
      return new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no thread dump: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted while taking a thread dump)";
    }
  }

  /** Polls until {@code condition} holds or {@code limit} passes; returns whether it holds. */
  static boolean await(Duration limit, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }
}
