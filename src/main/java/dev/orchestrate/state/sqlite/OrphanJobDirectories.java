package dev.orchestrate.state.sqlite;

import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StoreException;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Job log directories that no job row refers to. Retention deletes a job's row and then its
 * directory; a crash in between, or a delete that failed, leaves a directory nothing points to,
 * invisible to {@code stats} (whose job_logs figure counts rows). A full {@code compact} sweeps
 * them: directly under {@code <state>/jobs/}, named as the scheduler names job directories
 * ({@code run<R>-<N>-<item>-<phase>-<attempt>}), real directories (not symbolic links), and not
 * the directory of any row in {@code jobs} (running or not).
 *
 * <p>The directories are listed before the rows are read: the scheduler commits a job's row
 * before its agent creates the directory, so a directory that was there when listed has its row
 * committed by the time the rows are read, and a job started during the sweep is not looked at.
 * Rows are matched by the directory's name, not its full path, so a state directory that was
 * moved or reached through another path keeps its logs.
 */
public final class OrphanJobDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanJobDirectories.class);
  /** {@code run%d-%04d-%s-%s-%d}: run id, job number, item id, phase, attempt (ids and names: [A-Za-z0-9._-]+). */
  static final Pattern JOB_DIRECTORY = Pattern.compile("run\\d+-\\d+-[A-Za-z0-9._-]+-[A-Za-z0-9._-]+-\\d+");

  /**
   * @param found   orphaned directories found (what a dry run would delete)
   * @param deleted of them, deleted (0 in a dry run); the others could not be, and are logged
   */
  public record Sweep(int found, int deleted) {
    public static final Sweep NONE = new Sweep(0, 0);
  }

  private OrphanJobDirectories() {
  }

  /** Finds the orphaned job directories of {@code dir} and, unless {@code dryRun}, deletes them. */
  public static Sweep sweep(StateDirectory dir, boolean dryRun) {
    if (!dir.hasDatabase() || !Files.isDirectory(dir.jobs(), LinkOption.NOFOLLOW_LINKS)) {
      return Sweep.NONE; // without a database nothing says which directories are orphans
    }
    Map<String, Path> candidates = candidates(dir.jobs());
    if (candidates.isEmpty()) {
      return Sweep.NONE;
    }
    dropReferenced(dir.database(), candidates);
    if (dryRun) {
      return new Sweep(candidates.size(), 0);
    }
    int deleted = 0;
    for (Path orphan : sorted(candidates)) {
      if (JobDirectories.delete(dir.jobs(), orphan, "the orphaned job directory")) {
        deleted++;
      }
    }
    return new Sweep(candidates.size(), deleted);
  }

  /** Directory name -> path, of every entry of {@code jobs} that looks like a job directory. */
  private static Map<String, Path> candidates(Path jobs) {
    Map<String, Path> out = new HashMap<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(jobs)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (JOB_DIRECTORY.matcher(name).matches() && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
          out.put(name, entry);
        }
      }
    } catch (IOException | java.nio.file.DirectoryIteratorException e) {
      // the iterator wraps an error met part-way in an unchecked exception: the same failure
      LOG.warn("could not list {} to look for orphaned job directories: {}", jobs, e.getMessage());
      return Map.of();
    }
    return out;
  }

  /** Removes from {@code candidates} every directory a job row's log path is in, streaming the rows. */
  private static void dropReferenced(Path file, Map<String, Path> candidates) {
    try (Connection connection = Database.open(file);
        PreparedStatement ps = connection.prepareStatement("SELECT log_path FROM jobs WHERE log_path IS NOT NULL");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next() && !candidates.isEmpty()) {
        String directory = directoryName(rs.getString(1));
        if (directory != null) {
          candidates.remove(directory);
        }
      }
    } catch (SQLException e) {
      throw new StoreException("state database " + file + ": cannot read the job log paths: " + e.getMessage(), e);
    }
  }

  /** The name of the directory holding {@code logPath}; null when there is none. */
  static String directoryName(String logPath) {
    try {
      Path parent = Path.of(logPath).getParent();
      return parent == null || parent.getFileName() == null ? null : parent.getFileName().toString();
    } catch (InvalidPathException e) {
      return null;
    }
  }

  private static List<Path> sorted(Map<String, Path> candidates) {
    List<Path> out = new ArrayList<>(candidates.values());
    out.sort(null);
    return out;
  }

}
