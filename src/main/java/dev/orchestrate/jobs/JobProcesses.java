package dev.orchestrate.jobs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
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
   * @param sessionId the session the agent leads (its pid), or -1 if it was not started in its
   *                  own session
   * @param token     the job's token
   */
  JobProcesses(long sessionId, String token) {
    this(sessionId, (TOKEN_VARIABLE + "=" + token).getBytes(StandardCharsets.UTF_8), false);
  }

  private JobProcesses(long sessionId, byte[] tokenEntry, boolean prefix) {
    this.sessionId = sessionId;
    this.tokenEntry = tokenEntry;
    this.prefix = prefix;
  }

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
    return new JobProcesses(-1, (TOKEN_VARIABLE + "=" + key(jobsRoot, runner) + ":")
        .getBytes(StandardCharsets.UTF_8), true);
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
        if (pid != self && (inSession(entry) || carriesToken(entry))) {
          ProcessHandle.of(pid).filter(ProcessTree::isRunning).ifPresent(found::add);
        }
      }
    } catch (IOException | RuntimeException e) {
      // /proc changes while it is listed; what was found so far still counts
    }
    return found;
  }

  private boolean inSession(Path proc) {
    return sessionId > 0 && session(proc).map(s -> s == sessionId).orElse(false);
  }

  /** Field 6 of /proc/PID/stat, counted after the parenthesised command name. */
  static Optional<Long> session(Path proc) {
    try {
      String stat = new String(Files.readAllBytes(proc.resolve("stat")), StandardCharsets.ISO_8859_1);
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Optional.of(Long.parseLong(fields[3]));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
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
        if (fits && java.util.Arrays.equals(environ, start, start + tokenEntry.length, tokenEntry, 0,
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
