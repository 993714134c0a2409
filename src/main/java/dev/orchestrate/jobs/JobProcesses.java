package dev.orchestrate.jobs;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * Finds the processes a job started even after they left the agent's process tree: a child whose
 * parent exited is re-parented to init and no longer shows up in {@link ProcessHandle#descendants()}.
 *
 * <p>Two marks are looked for in {@code /proc} (Linux): the agent's session, which it leads
 * because it was started through {@code setsid} (everything it starts stays in it unless it calls
 * {@code setsid} itself), and the job's token, {@code ORCHESTRATE_JOB_TOKEN=<random>} in the
 * environment, which every process inherits unless it clears its environment. A process that
 * both starts a new session and drops that variable is not found. Without {@code /proc} (macOS)
 * nothing is found here and only the agent's own tree is stopped.
 */
final class JobProcesses {

  /** The variable holding the job's token; see the class comment. */
  static final String TOKEN_VARIABLE = "ORCHESTRATE_JOB_TOKEN";

  private static final Path PROC = Path.of("/proc");

  private final long sessionId;
  private final byte[] tokenEntry;
  /** Whether {@link #tokenEntry} is the start of the entry (a whole state's jobs) or all of it. */
  private final boolean prefix;
  /**
   * The earliest start of a process of the job, in clock ticks after boot ({@code /proc/PID/stat}'s
   * field 22); 0 for any. A process that started before it is neither in the job's session (it
   * would have been forked from the session's leader or a later member) nor given the job's token
   * (made after it started): its {@code environ} is not read. Most of a machine's processes are
   * that old, and the scan at every agent's end read two files of each.
   */
  private final long notBefore;

  /**
   * @param sessionId the session the agent leads (its pid), or -1 if it was not started in its
   *                  own session
   * @param token     the job's token
   */
  JobProcesses(long sessionId, String token) {
    // a token of this JVM's (newToken) is carried by no process older than the JVM
    this(sessionId, (TOKEN_VARIABLE + "=" + token).getBytes(StandardCharsets.UTF_8), false, SELF_START);
  }

  private JobProcesses(long sessionId, byte[] tokenEntry, boolean prefix, long notBefore) {
    this.sessionId = sessionId;
    this.tokenEntry = tokenEntry;
    this.prefix = prefix;
    this.notBefore = Math.max(0, notBefore);
  }

  /**
   * These marks, with the job's first process {@code root} just started: nothing of the job started
   * before it. As they are when its start cannot be read (it already ended and was reaped).
   */
  JobProcesses startedWith(long root) {
    long start = startTicks(PROC.resolve(Long.toString(root)));
    return start > notBefore ? new JobProcesses(sessionId, tokenEntry, prefix, start) : this;
  }

  /** When this JVM started, in clock ticks after boot; 0 if unknown. */
  private static final long SELF_START = Math.max(0, startTicks(PROC.resolve("self")));

  /**
   * A fresh token for a job of runner {@code runner} (null: the state's one run) whose directory is
   * under {@code jobsRoot}: the state's key, a colon, then random. The key lets a later run find the
   * agents of a run that was killed (see {@link #ofState}); a runner of a shared state is keyed by
   * its id, whatever its jobs directory, so each finds only its own and a dead one's are found by
   * whoever takes its items over on the same host.
   */
  static String newToken(Path jobsRoot, String runner) {
    return key(jobsRoot, runner) + ":" + UUID.randomUUID();
  }

  /** Every process carrying the token of a job of runner {@code runner} (null: the state's one run). */
  static JobProcesses ofState(Path jobsRoot, String runner) {
    // a killed run's agents are older than this JVM: no start is ruled out
    return new JobProcesses(-1, (TOKEN_VARIABLE + "=" + key(jobsRoot, runner) + ":")
        .getBytes(StandardCharsets.UTF_8), true, 0);
  }

  private static String key(Path jobsRoot, String runner) {
    // A runner of a shared state by its id alone, not its jobs directory: runners on one host may
    // keep their job directories apart (--logs), and the one that takes a dead runner's items over
    // must still find the agents it left (MultiRunnerIT).
    return runner == null ? stateKey(jobsRoot) : "runner-" + digest(runner);
  }

  /** 16 hex digits of the SHA-256 of the jobs directory's absolute path. */
  static String stateKey(Path jobsRoot) {
    return digest(jobsRoot.toAbsolutePath().normalize().toString());
  }

  private static String digest(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /** The running processes carrying either mark, never this JVM. */
  List<ProcessHandle> find() {
    List<ProcessHandle> found = new ArrayList<>();
    if (!Files.isDirectory(PROC)) {
      return found;
    }
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, p -> isPid(p.getFileName().toString()))) {
      for (Path entry : entries) {
        long pid = Long.parseLong(entry.getFileName().toString());
        if (pid == self) {
          continue;
        }
        long[] stat = stat(entry);
        if (stat == null || stat[1] < notBefore) {
          continue; // gone, or started before anything of the job
        }
        if ((sessionId > 0 && stat[0] == sessionId) || carriesToken(entry)) {
          ProcessHandle.of(pid).filter(ProcessTree::isRunning).ifPresent(found::add);
        }
      }
    } catch (IOException | RuntimeException e) {
      // /proc changes while it is listed; what was found so far still counts
    }
    return found;
  }

  /** Field 22 of /proc/PID/stat: when the process started, in clock ticks after boot; -1 if unreadable. */
  static long startTicks(Path proc) {
    long[] stat = stat(proc);
    return stat == null ? -1 : stat[1];
  }

  /**
   * Fields 6 and 22 of /proc/PID/stat (its session and its start), or null if it cannot be read.
   * Read with one open and one read into a small buffer and parsed in place: this runs for every
   * process on the machine at every agent's end (a loop of scans: 0.9 ms each against 1.8 ms with
   * {@code Files.readAllBytes} and {@code split}).
   */
  private static long[] stat(Path proc) {
    byte[] line = new byte[1024];
    int length = 0;
    try (FileInputStream in = new FileInputStream(proc.resolve("stat").toFile())) {
      for (int n; length < line.length && (n = in.read(line, length, line.length - length)) > 0;) {
        length += n;
      }
    } catch (IOException | RuntimeException e) {
      return null;
    }
    return parseStat(line, length);
  }

  /** {@link #stat}'s fields 6 and 22 from the first {@code length} bytes of a stat line; null if malformed. */
  static long[] parseStat(byte[] line, int length) {
    // pid (comm) state ppid pgrp session ... starttime: comm may hold spaces and parentheses
    int at = length - 1;
    while (at >= 0 && line[at] != ')') {
      at--;
    }
    if (at < 0) {
      return null;
    }
    long session = -1;
    int field = 3; // the state, two bytes after the ')'
    for (int i = at + 2; i < length; i++) {
      if (line[i] == ' ') {
        field++;
      } else if (field == 6 || field == 22) {
        long value = 0;
        int start = i;
        for (; i < length && line[i] >= '0' && line[i] <= '9'; i++) {
          value = value * 10 + (line[i] - '0');
        }
        if (i == start || (i < length && line[i] != ' ' && line[i] != '\n')) {
          return null;
        }
        if (field == 22) {
          return new long[] {session, value};
        }
        session = value;
        i--; // the space after the number is counted by the loop
      }
    }
    return null;
  }

  private boolean carriesToken(Path proc) {
    byte[] environ;
    try {
      environ = Files.readAllBytes(proc.resolve("environ"));
    } catch (IOException | RuntimeException e) {
      return false; // another user's process, or gone
    }
    int start = 0;
    for (int i = 0; i <= environ.length; i++) {
      if (i == environ.length || environ[i] == 0) {
        int length = i - start;
        boolean fits = prefix ? length > tokenEntry.length : length == tokenEntry.length;
        if (fits && Arrays.equals(environ, start, start + tokenEntry.length, tokenEntry, 0,
            tokenEntry.length)) {
          return true;
        }
        start = i + 1;
      }
    }
    return false;
  }

  private static boolean isPid(String name) {
    if (name.isEmpty() || name.length() > 18) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      if (!Character.isDigit(name.charAt(i))) {
        return false;
      }
    }
    return true;
  }
}
