package dev.orchestrate.state.sql;

import dev.orchestrate.retention.RetentionStore.OrphanSweep;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
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
 * them: directly under {@code <state>/jobs/} (or the runner's {@code --logs} directory), named as the scheduler names job directories
 * ({@code run<R>-<N>-<item>-<phase>-<attempt>}), real directories (not symbolic links), and not
 * the directory of any row in {@code jobs} (running or not).
 *
 * <p>The directories are listed before the rows are read: the scheduler commits a job's row
 * before its agent creates the directory, so a directory that was there when listed has its row
 * committed by the time the rows are read, and a job started during the sweep is not looked at.
 * Rows are matched by the directory's name, not its full path, so a state directory that was
 * moved or reached through another path keeps its logs.
 */
final class OrphanJobDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(OrphanJobDirectories.class);
  /** {@code run%d-%04d-%s-%s-%d}: run id, job number, item id, phase, attempt (ids and names: [A-Za-z0-9._-]+). */
  static final Pattern JOB_DIRECTORY = Pattern.compile("run\\d+-\\d+-[A-Za-z0-9._-]+-[A-Za-z0-9._-]+-\\d+");

  private OrphanJobDirectories() {
  }

  /**
   * Finds the orphaned job directories in {@code jobs} (the state directory's {@code jobs/}, or a
   * runner's own logs directory) and, unless {@code dryRun}, deletes them; the rows are read on a
   * store's connection.
   */
  static OrphanSweep sweep(Jdbc jdbc, Path jobs, boolean dryRun) {
    if (!Files.isDirectory(jobs, LinkOption.NOFOLLOW_LINKS)) {
      return OrphanSweep.NONE;
    }
    Map<String, Path> candidates = candidates(jobs);
    if (candidates.isEmpty()) {
      return OrphanSweep.NONE;
    }
    dropReferenced(jdbc, candidates);
    if (dryRun) {
      return new OrphanSweep(candidates.size(), 0);
    }
    int deleted = 0;
    for (Path orphan : sorted(candidates)) {
      if (JobDirectories.delete(jobs, orphan, "the orphaned job directory")) {
        deleted++;
      }
    }
    return new OrphanSweep(candidates.size(), deleted);
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
  private static void dropReferenced(Jdbc jdbc, Map<String, Path> candidates) {
    jdbc.forEach("SELECT log_path FROM jobs WHERE log_path IS NOT NULL", rs -> {
      String directory = directoryName(rs.getString(1));
      if (directory != null) {
        candidates.remove(directory);
      }
    });
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
