package dev.orchestrate.state.sql;

import java.nio.file.Path;

/**
 * Job log paths as the {@code jobs} table stores them: relative to the state directory
 * ({@code jobs/run3-0007-WRK-1-build-1/output.log}), so a state directory that is copied, moved
 * or reached through another path refers to its own job directories, never to another's. Rows
 * written before SQLite schema 7 held absolute paths; the migration to 7 rewrites them, and
 * {@link #resolve} still accepts one should any be left. A shared state (PostgreSQL) records them
 * absolute instead, as they are on the disk of the runner that ran the job, wherever its
 * {@code --logs} put them: another process on that machine finds them from any directory.
 */
public final class JobLogPaths {
  private JobLogPaths() {
  }

  /**
   * The path to store for {@code logFile} of the state directory {@code root}: relative to it when
   * it is inside, else {@code jobs/<dir>/<file>} when it has the shape of a job log (a job directory
   * of another copy of this state), else the absolute path unchanged.
   */
  public static String relative(Path root, Path logFile) {
    Path base = root.toAbsolutePath().normalize();
    Path path = logFile.isAbsolute() ? logFile.normalize() : base.resolve(logFile).normalize();
    if (path.startsWith(base) && !path.equals(base)) {
      return base.relativize(path).toString();
    }
    String byShape = jobShaped(path);
    return byShape != null ? byShape : path.toString();
  }

  /** Where a stored path is for the state directory {@code root}: relative ones resolve against it. */
  static Path resolve(Path root, String stored) {
    Path path = Path.of(stored);
    return path.isAbsolute() ? path : root.toAbsolutePath().normalize().resolve(path).normalize();
  }

  /** {@code jobs/<job directory>/<file>} for a path that ends that way; null otherwise. */
  static String jobShaped(Path path) {
    int n = path.getNameCount();
    if (n < 3 || !path.getName(n - 3).toString().equals("jobs")
        || !OrphanJobDirectories.JOB_DIRECTORY.matcher(path.getName(n - 2).toString()).matches()) {
      return null;
    }
    return path.subpath(n - 3, n).toString();
  }
}
