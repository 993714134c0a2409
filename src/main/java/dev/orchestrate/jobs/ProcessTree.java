package dev.orchestrate.jobs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process and everything it spawned, stopped together: TERM to all, a grace period to clean
 * up, then KILL to whatever is left. Stopping only the agent would leave its build or test
 * processes running, still holding files and the output pipes.
 */
final class ProcessTree {

  private static final Logger LOG = LoggerFactory.getLogger(ProcessTree.class);
  private static final long POLL_MILLIS = 20;
  /** KILL cannot be ignored; this only covers processes stuck in uninterruptible I/O. */
  private static final Duration KILL_WAIT = Duration.ofSeconds(2);

  private final ProcessHandle root;
  private final JobProcesses members;

  ProcessTree(ProcessHandle root) {
    this(root, null);
  }

  /**
   * @param members finds the job's processes that left the tree (its session, its token); null
   *                for the tree alone
   */
  ProcessTree(ProcessHandle root, JobProcesses members) {
    this.root = root;
    this.members = members;
  }

  /**
   * Stops the tree and returns how many descendants it had when the TERM was sent. Counting down
   * {@code hurry} ends the grace period early.
   */
  int terminate(Duration grace, CountDownLatch hurry) throws InterruptedException {
    // Snapshot before any signal: once the root dies its children are re-parented and no longer
    // show up in root.descendants().
    Map<Long, ProcessHandle> tree = new LinkedHashMap<>();
    tree.put(root.pid(), root);
    root.descendants().forEach(p -> tree.put(p.pid(), p));
    addMembers(tree);
    int others = tree.size() - 1;
    tree.values().forEach(ProcessHandle::destroy);
    LOG.debug("sent TERM to pid {} and its descendants {}", root.pid(), otherPids(tree.values()));

    awaitGone(tree.values(), grace, hurry);

    // Twice: a member may fork between the listing and its KILL.
    for (int round = 0; round < 2; round++) {
      Map<Long, ProcessHandle> left = new LinkedHashMap<>();
      survivorsAndTheirChildren(tree.values()).forEach(p -> left.put(p.pid(), p));
      addMembers(left);
      left.values().removeIf(p -> !isRunning(p));
      if (left.isEmpty()) {
        break;
      }
      left.values().forEach(ProcessHandle::destroyForcibly);
      LOG.debug("sent KILL to {} after the grace period", pids(left.values()));
      awaitGone(left.values(), KILL_WAIT, new CountDownLatch(1));
      tree.putAll(left);
    }
    return others;
  }

  /** Whether the tree has anything left to stop (the root itself included while it runs). */
  boolean anyRunning() {
    if (isRunning(root) || root.descendants().anyMatch(ProcessTree::isRunning)) {
      return true;
    }
    return members != null && !members.find().isEmpty();
  }

  private void addMembers(Map<Long, ProcessHandle> processes) {
    if (members == null) {
      return;
    }
    for (ProcessHandle member : members.find()) {
      processes.putIfAbsent(member.pid(), member);
      member.descendants().forEach(p -> processes.putIfAbsent(p.pid(), p));
    }
    processes.remove(ProcessHandle.current().pid());
  }

  /**
   * Still running, as opposed to merely present: a killed process stays a zombie until its parent
   * (or init, for an orphan) reaps it, and {@link ProcessHandle#isAlive()} counts zombies.
   */
  static boolean isRunning(ProcessHandle process) {
    return process.isAlive() && !isZombie(process.pid());
  }

  private static boolean isZombie(long pid) {
    try {
      // Linux only; elsewhere there is no /proc and a zombie simply counts as running.
      String stat = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat")),
          StandardCharsets.ISO_8859_1);
      int endOfName = stat.lastIndexOf(')');
      return endOfName > 0 && endOfName + 2 < stat.length() && stat.charAt(endOfName + 2) == 'Z';
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static void awaitGone(Collection<ProcessHandle> processes, Duration limit,
      CountDownLatch hurry) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (processes.stream().anyMatch(ProcessTree::isRunning)) {
      long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (remainingMillis <= 0 || hurry.await(Math.min(POLL_MILLIS, remainingMillis),
          TimeUnit.MILLISECONDS)) {
        return;
      }
    }
  }

  /** Survivors, plus anything they started during the grace period. */
  private static Collection<ProcessHandle> survivorsAndTheirChildren(
      Collection<ProcessHandle> tree) {
    Map<Long, ProcessHandle> targets = new LinkedHashMap<>();
    for (ProcessHandle process : tree) {
      if (process.isAlive()) {
        targets.put(process.pid(), process);
        process.descendants().forEach(p -> targets.put(p.pid(), p));
      }
    }
    targets.values().removeIf(p -> !isRunning(p));
    return new ArrayList<>(targets.values());
  }

  private List<Long> otherPids(Collection<ProcessHandle> tree) {
    return tree.stream().map(ProcessHandle::pid).filter(pid -> pid != root.pid())
        .collect(Collectors.toList());
  }

  private static List<Long> pids(Collection<ProcessHandle> processes) {
    return processes.stream().map(ProcessHandle::pid).collect(Collectors.toList());
  }
}
