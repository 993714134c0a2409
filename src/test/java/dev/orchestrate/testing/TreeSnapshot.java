package dev.orchestrate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Every path under a directory (or the one file) with what it is and, for files, a hash of its
 * bytes: two snapshots are equal when nothing was created, deleted or written. For proving that a
 * refused command wrote nothing.
 */
public record TreeSnapshot(Map<String, String> entries) {
  public static TreeSnapshot of(Path root) {
    Map<String, String> entries = new TreeMap<>();
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return new TreeSnapshot(entries);
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.forEach(p -> entries.put(root.relativize(p).toString(), describe(p)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new TreeSnapshot(entries);
  }

  private static String describe(Path p) {
    try {
      if (Files.isSymbolicLink(p)) {
        return "link -> " + Files.readSymbolicLink(p);
      }
      if (Files.isDirectory(p)) {
        return "dir";
      }
      if (!Files.isRegularFile(p)) {
        return "special";
      }
      return "file " + Files.size(p) + " " + java.util.Arrays.hashCode(Files.readAllBytes(p));
    } catch (IOException e) {
      return "unreadable " + e.getClass().getSimpleName();
    }
  }
}
