package dev.orchestrate.store;

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
   * job) is no failure; what is left is logged, naming it as {@code what}.
   */
  static boolean delete(Path dir, String what) {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return true;
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
}
