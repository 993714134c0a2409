package dev.orchestrate.limits;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

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

  private static final Optional<Path> SETSID = Stream.of("/usr/bin/setsid",
      "/bin/setsid").map(Path::of).filter(Files::isExecutable).findFirst();

  /**
   * setsid(1) at its fixed system path (never through PATH, which an agent's commit may name), to
   * start a command in a session of its own: a Ctrl-C at the terminal reaches orchestrate, which
   * stops the command with its tree, and not the command behind its back. Empty without one.
   */
  public static Optional<Path> setsid() {
    return SETSID;
  }

  /**
   * The real path of {@code program} in the first absolute entry of {@code path} that has it as an
   * executable file; empty when none does. Relative entries ({@code .}, {@code bin}) are skipped:
   * they would name a file in whatever directory orchestrate stands in, which an agent's commit may
   * have filled. The one lookup of the programs orchestrate runs for itself (git, bwrap, a notify
   * command, the command summarizer).
   */
  public static Optional<Path> onAbsolutePath(String program, String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String entry : path.split(java.io.File.pathSeparator)) {
      if (entry.isEmpty() || !Path.of(entry).isAbsolute()) {
        continue;
      }
      Path candidate = Path.of(entry, program);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        try {
          return Optional.of(candidate.toRealPath());
        } catch (IOException e) {
          // vanished meanwhile: keep looking
        }
      }
    }
    return Optional.empty();
  }

  /** {@code argv} started in a session of its own, by {@link #setsid()}; as it is without one. */
  public static List<String> inOwnSession(List<String> argv) {
    if (SETSID.isEmpty()) {
      return argv;
    }
    List<String> out = new ArrayList<>(argv.size() + 1);
    out.add(SETSID.get().toString());
    out.addAll(argv);
    return out;
  }

  /**
   * As {@link #inOwnSession(List)}, its program found first (a path with a '/' from {@code dir},
   * else by {@link #onAbsolutePath}), so that a missing one stays a failure to start
   * rather than setsid's own exit 127.
   *
   * @throws IOException worded as the OS would: "No such file or directory"
   */
  public static List<String> inOwnSession(List<String> argv, Path dir, String path) throws IOException {
    if (SETSID.isEmpty()) {
      return argv;
    }
    String program = argv.get(0);
    Path found = null;
    if (program.contains("/")) {
      Path file = dir.resolve(program);
      found = Files.isRegularFile(file) && Files.isExecutable(file) ? file : null;
    } else {
      found = onAbsolutePath(program, path).orElse(null);
    }
    if (found == null) {
      throw new IOException("Cannot run program \"" + program + "\": No such file or directory");
    }
    List<String> out = new ArrayList<>(argv);
    out.set(0, found.toAbsolutePath().toString());
    return inOwnSession(out);
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

  /**
   * KILL to every process left in the session {@code sessionId} (a command started through
   * {@link #inOwnSession} leads a session whose id is its pid): what it started in the background
   * and left when it exited is re-parented away from its tree, but stays in its session, holding
   * its output pipe open. Linux (reads {@code /proc}); elsewhere nothing.
   */
  public static void killSession(long sessionId) {
    Path proc = Path.of("/proc");
    if (!Files.isDirectory(proc)) {
      return;
    }
    try (Stream<Path> entries = Files.list(proc)) {
      entries.map(p -> p.getFileName().toString()).filter(n -> !n.isEmpty() && n.chars().allMatch(Character::isDigit))
          .forEach(pid -> {
            try {
              String stat = Files.readString(proc.resolve(pid).resolve("stat"));
              // pid (comm) state ppid pgrp session ...: comm may hold spaces and parentheses.
              String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
              if (rest.length > 3 && Long.parseLong(rest[3]) == sessionId) {
                ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessTrees::kill);
              }
            } catch (IOException | RuntimeException e) {
              // gone meanwhile, or not ours to read
            }
          });
    } catch (IOException e) {
      // no process list: nothing to do
    }
  }
}
