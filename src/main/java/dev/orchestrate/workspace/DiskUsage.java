package dev.orchestrate.workspace;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Bytes on disk of a worktree, measured when it is created and at each phase commit (never by
 * {@code stats}, which reads the recorded figure): a walk that follows no link and stops counting
 * after {@link #MAX_ENTRIES} entries, so a worktree with a huge untracked tree costs a bounded time.
 */
public final class DiskUsage {
  static final int MAX_ENTRIES = 200_000;

  private DiskUsage() {
  }

  static long of(Path dir) {
    long[] bytes = {0};
    int[] entries = {0};
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
          return ++entries[0] > MAX_ENTRIES ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          bytes[0] += attrs.size();
          return ++entries[0] > MAX_ENTRIES ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) {
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      // what was counted is the figure
    }
    return bytes[0];
  }

  /** Deletes a file or a directory tree, links not followed; nothing there is fine. */
  public static void delete(Path path) throws IOException {
    if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Files.walkFileTree(path, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
        d.toFile().setWritable(true, true); // an agent's read-only directory is still ours to remove
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        Files.deleteIfExists(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
