package dev.orchestrate.state;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Optional;

/**
 * The layout of the state directory ({@code .orchestrate/} by default): the SQLite database, the
 * run lock, the worktrees and, in {@code jobs}, the job logs. The job logs may live elsewhere
 * ({@code --logs DIR}, for a runner of a PostgreSQL state that keeps them on its own disk).
 *
 * @param root the state directory
 * @param jobs where job directories are created: {@code root/jobs} unless chosen
 */
public record StateDirectory(Path root, Path jobs) {
  /** The first 16 bytes of every SQLite database file. */
  private static final byte[] SQLITE_HEADER = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
  /** The remedy every problem ends with; the command line adds how to choose the directory. */
  public static final String ELSEWHERE = "use another state directory";
  /** The remedy of a job log directory chosen apart from the state directory that cannot be used. */
  public static final String LOGS_ELSEWHERE = "choose another logs directory";

  /** Absolute, because agents run in the backlog's directory and get paths inside this one. */
  public StateDirectory {
    root = root.toAbsolutePath().normalize();
    jobs = jobs == null ? root.resolve("jobs") : jobs.toAbsolutePath().normalize();
  }

  /** The state directory {@code root} with its job logs in {@code root/jobs}. */
  public StateDirectory(Path root) {
    this(root, null);
  }

  /** This directory with the job logs in {@code jobs} instead. */
  public StateDirectory withJobs(Path jobs) {
    return new StateDirectory(root, jobs);
  }

  /** Whether the job logs are where they are by default, in {@code root/jobs}. */
  public boolean jobsInside() {
    return jobs.equals(root.resolve("jobs"));
  }

  public Path database() {
    return root.resolve("state.db");
  }

  public Path lockFile() {
    return root.resolve("run.lock");
  }

  public boolean hasDatabase() {
    return Files.isRegularFile(database());
  }

  /** What a new state directory's {@code .gitignore} says: nothing in it belongs to the repository. */
  static final String GITIGNORE = "# orchestrate's state: never part of the repository\n*\n";

  /**
   * Creates the state directory (and its parents) when it is missing. A directory this call
   * creates, or finds empty, gets a {@code .gitignore} of {@code *}, so that the user's (or an
   * agent's) {@code git add -A} never commits {@code state.db} and the job logs, in every
   * workspace mode. A directory that already holds something is left as it is (it may be one the
   * user chose, even the project's own), and so is any {@code .gitignore}: the file is created
   * new, never written through a link or over an existing file.
   *
   * @return whether this call wrote the {@code .gitignore}
   */
  public boolean create() throws IOException {
    boolean fresh = !Files.exists(root, LinkOption.NOFOLLOW_LINKS);
    Files.createDirectories(root);
    if (!fresh) {
      try (var entries = Files.list(root)) {
        fresh = entries.findAny().isEmpty();
      }
    }
    if (fresh) {
      try (OutputStream out = Files.newOutputStream(root.resolve(".gitignore"), StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        out.write(GITIGNORE.getBytes(StandardCharsets.UTF_8));
        return true;
      } catch (FileAlreadyExistsException e) {
        // something made one meanwhile: it stays as it is
      }
    }
    return false;
  }

  /**
   * Why this state directory cannot be used, or empty when it can: checked before a command reads
   * or creates anything in it, so a mistyped {@code --state} naming a file, or a {@code state.db}
   * that is a directory or some other file, is refused at once instead of reading as "no state
   * yet" or failing half-way. A missing directory is fine (commands that need one create it).
   */
  public Optional<String> problem() {
    Path existing = root;
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing != null && !Files.isDirectory(existing)) {
      return Optional.of(existing + " is not a directory; move the file away or " + ELSEWHERE);
    }
    Path db = database();
    if (Files.exists(db, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(db)) {
      return Optional.of(db + " is not a database file (" + kind(db) + "); move it away or " + ELSEWHERE);
    }
    if (Files.isRegularFile(db) && !startsWithSqliteHeader(db)) {
      return Optional.of(db + " is not a database file (it does not start with the SQLite header); move it away "
          + "or " + ELSEWHERE);
    }
    Path lock = lockFile();
    if (Files.exists(lock, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(lock, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of(lock + " is not a regular file (" + kind(lock) + "); remove it: it is the run lock, "
          + "which orchestrate recreates");
    }
    if (!jobsInside()) {
      Path existingJobs = jobs;
      while (existingJobs != null && !Files.exists(existingJobs)) {
        existingJobs = existingJobs.getParent();
      }
      if (existingJobs != null && !Files.isDirectory(existingJobs)) {
        return Optional.of(existingJobs + " is not a directory (the job logs go in " + jobs + "); move it away or "
            + LOGS_ELSEWHERE);
      }
    } else if (Files.exists(jobs) && !Files.isDirectory(jobs)) {
      return Optional.of(jobs + " is not a directory (it holds the job logs); move it away or " + ELSEWHERE);
    }
    return Optional.empty();
  }

  private static String kind(Path path) {
    if (Files.isSymbolicLink(path)) {
      return "a symbolic link";
    }
    return Files.isDirectory(path) ? "a directory" : "a pipe, a device or a socket";
  }

  /** An empty file is a database SQLite has created but not yet written: it passes. */
  private static boolean startsWithSqliteHeader(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] head = in.readNBytes(SQLITE_HEADER.length);
      return head.length == 0 || Arrays.equals(head, SQLITE_HEADER);
    } catch (IOException e) {
      return true; // unreadable: opening it reports the reason
    }
  }
}
