package dev.orchestrate.limits;

import java.util.ArrayList;
import java.util.List;

/**
 * The end of a process orchestrate started for a command of its own (git, a push and the remote's
 * hooks under it, a pull-request, checks or notify command): KILL to it and everything it started.
 * Killing the command alone leaves its children running, re-parented, holding files, pipes and a
 * remote's locks (issue 43: a Ctrl-C during a hanging push left git-receive-pack and the remote's
 * pre-receive hook with its children).
 */
public final class ProcessTrees {
  private ProcessTrees() {
  }

  /** KILL to {@code process} and its whole tree; returns at once. */
  public static void kill(Process process) {
    kill(process.toHandle());
  }

  /**
   * KILL to {@code root} and its whole tree. The tree is listed before any signal (a dead parent's
   * children leave it), the root is killed first (a shell runs no next line after its child died),
   * and each listed process's own children are listed again just before its KILL (one may have
   * forked meanwhile).
   */
  public static void kill(ProcessHandle root) {
    List<ProcessHandle> tree = new ArrayList<>(root.descendants().toList());
    root.destroyForcibly();
    for (int round = 0; round < 2 && !tree.isEmpty(); round++) {
      List<ProcessHandle> late = new ArrayList<>();
      for (ProcessHandle p : tree) {
        List<ProcessHandle> children = p.descendants().toList();
        p.destroyForcibly();
        for (ProcessHandle child : children) {
          child.destroyForcibly();
          late.add(child);
        }
      }
      tree = late.stream().filter(ProcessHandle::isAlive).toList();
    }
  }
}
