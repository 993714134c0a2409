package dev.orchestrate.state.sql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Deleting a job's log directory, for retention (a pruned job) and the orphan sweep alike. */
final class JobDirectories {
  private static final Logger LOG = LoggerFactory.getLogger(JobDirectories.class);

  private JobDirectories() {
  }

  /**
   * Deletes {@code dir} and what is in it (links themselves, never what they point to); returns
   * whether it is gone. Another process deleting it meanwhile (a run and a compact pruning the same
   * job) is no failure; what is left is logged, naming it as {@code what}. Only a directory directly
   * in {@code jobsRoot} (the {@code jobs/} of the state directory being worked on), by its real
   * path, is ever deleted: a row naming another copy's directory, a link, or a path leading out of
   * the state directory is refused, logged, and reported as not deleted.
   */
  static boolean delete(Path jobsRoot, Path dir, String what) {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return true;
    }
    if (!directlyIn(jobsRoot, dir)) {
      LOG.warn("not deleting {} {}: it is not a directory in {}", what, dir, jobsRoot);
      return false;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          LOG.warn("could not delete {} of {}: {}", p, what, e.getMessage());
        }
      });
    } catch (IOException | UncheckedIOException e) {
      if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
        LOG.warn("could not delete {} {}: {}", what, dir, e.getMessage());
      }
    }
    return !Files.exists(dir, LinkOption.NOFOLLOW_LINKS);
  }

  /** Whether {@code dir} is a real directory (not a link) whose real parent is {@code jobsRoot}'s real path. */
  static boolean directlyIn(Path jobsRoot, Path dir) {
    try {
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        return false;
      }
      Path parent = dir.toRealPath().getParent();
      return parent != null && parent.equals(jobsRoot.toRealPath());
    } catch (IOException e) {
      return false;
    }
  }
}
