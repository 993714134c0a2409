package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessTreeTest {

  private static final Duration SHORT = Duration.ofSeconds(5);

  @TempDir
  Path dir;

  private final List<Long> pids = new ArrayList<>();

  @AfterEach
  void killLeftovers() {
    pids.forEach(TestAgents::kill);
  }

  private Process spawn(List<String> command) throws IOException {
    Process process = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    pids.add(process.pid());
    return process;
  }

  @Test
  void terminate_kills_a_tree_that_ignores_term_after_the_grace_period() throws Exception {
    Path pidFile = dir.resolve("grandchild.pid");
    Process agent = spawn(TestAgents.command("stubborn_with_grandchild.sh", pidFile.toString()));
    TestAgents.awaitFile(pidFile, SHORT);
    long grandchild = TestAgents.readPid(pidFile);
    pids.add(grandchild);

    long start = System.nanoTime();
    int descendants = new ProcessTree(agent.toHandle())
        .terminate(Duration.ofMillis(300), new CountDownLatch(1));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertTrue(descendants >= 1, "the sleeping grandchild was in the snapshot: " + descendants);
    assertTrue(took.compareTo(Duration.ofMillis(300)) >= 0, "waited out the grace: " + took);
    assertTrue(TestAgents.becomesGone(agent.pid(), SHORT), "agent is gone");
    assertTrue(TestAgents.becomesGone(grandchild, SHORT), "grandchild is gone");
  }

  @Test
  void terminate_returns_as_soon_as_a_cooperative_tree_has_exited() throws Exception {
    Path ready = dir.resolve("ready");
    Process agent = spawn(TestAgents.command("sleeper.sh", ready.toString()));
    TestAgents.awaitFile(ready, SHORT);
    // The script touches the file before it forks its sleep: on a loaded machine the TERM could
    // otherwise come while bash is still alone (CI saw 0 descendants once).
    awaitDescendant(agent.toHandle());

    long start = System.nanoTime();
    int descendants = new ProcessTree(agent.toHandle()).terminate(Duration.ofSeconds(30), new CountDownLatch(1));
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertEquals(1, descendants, "bash and its foreground sleep");
    assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "did not wait the 30s grace: " + took);
    assertTrue(TestAgents.becomesGone(agent.pid(), SHORT));
  }

  private static void awaitDescendant(ProcessHandle process) throws InterruptedException {
    long deadline = System.nanoTime() + SHORT.toNanos();
    while (process.descendants().findAny().isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "the sleep was not started within " + SHORT);
      Thread.sleep(10);
    }
  }

  @Test
  void hurrying_cuts_the_grace_period_short() throws Exception {
    Path ready = dir.resolve("ready");
    Process agent = spawn(TestAgents.command("stubborn.sh", ready.toString()));
    TestAgents.awaitFile(ready, SHORT);
    CountDownLatch hurry = new CountDownLatch(1);
    hurry.countDown();

    long start = System.nanoTime();
    new ProcessTree(agent.toHandle()).terminate(Duration.ofSeconds(30), hurry);
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertTrue(took.compareTo(Duration.ofSeconds(5)) < 0, "did not wait the 30s grace: " + took);
    assertTrue(TestAgents.becomesGone(agent.pid(), SHORT));
  }

  @Test
  void terminating_an_already_exited_process_is_harmless() throws Exception {
    Process done = spawn(List.of("true"));
    done.waitFor();
    assertEquals(0,
        new ProcessTree(done.toHandle()).terminate(Duration.ofSeconds(1), new CountDownLatch(1)));
  }
}
