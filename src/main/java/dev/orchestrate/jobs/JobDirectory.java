package dev.orchestrate.jobs;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's directory and the files orchestrate writes into it, created exclusively and never
 * through a symbolic link, so that nothing an agent plants in the state directory makes
 * orchestrate write outside it (see docs/agents.md, "Security").
 */
final class JobDirectory {

  private static final Logger LOG = LoggerFactory.getLogger(JobDirectory.class);

  private JobDirectory() {}

  /**
   * Creates {@code jobDir} as a new, empty directory. Whatever occupies its name (a link, a file,
   * a directory with links in it) is removed first without following any link. Its parent, the
   * {@code jobs/} directory, is created if missing and must not be a link.
   */
  static void create(Path jobDir) throws IOException {
    Path root = jobDir.toAbsolutePath().getParent();
    if (Files.isSymbolicLink(root)) {
      throw new IOException("the jobs directory " + root + " is a symbolic link; orchestrate writes"
          + " job files only into a real directory (remove the link, or use a fresh state directory)");
    }
    Files.createDirectories(root);
    try {
      Files.createDirectory(jobDir);
    } catch (FileAlreadyExistsException e) {
      LOG.warn("{} already existed (planted by an agent, or left by an earlier state); removing it"
          + " without following links", jobDir);
      deleteTree(jobDir);
      Files.createDirectory(jobDir);
    }
    if (Files.isSymbolicLink(root)) { // swapped while we worked: leave nothing behind in it
      throw new IOException("the jobs directory " + root + " was replaced by a symbolic link");
    }
  }

  /**
   * Renames {@code file} to {@code aside} within the job's directory (never following a link: a
   * rename moves the entry itself); whatever had the name {@code aside} is removed first.
   */
  static void moveAside(Path file, Path aside) throws IOException {
    if (Files.exists(aside, LinkOption.NOFOLLOW_LINKS)) {
      deleteTree(aside);
    }
    if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      Files.move(file, aside, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /** Writes a new file; an entry that took its name meanwhile is removed (not followed) first. */
  static void writeNew(Path file, byte[] content) throws IOException {
    try (OutputStream out = openNew(file)) {
      out.write(content);
    }
  }

  /** A new file for writing, created exclusively (O_CREAT|O_EXCL never follows a link). */
  static OutputStream openNew(Path file) throws IOException {
    try {
      return Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
    } catch (FileAlreadyExistsException e) {
      LOG.warn("{} already existed in a new job directory; removing it without following links", file);
      deleteTree(file);
      return Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
    }
  }

  /** Deletes a file, a link (not its target) or a directory tree, never descending into a link. */
  static void deleteTree(Path path) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (java.nio.file.NoSuchFileException e) {
      return;
    }
    if (!attributes.isDirectory()) {
      Files.deleteIfExists(path);
      return;
    }
    Files.walkFileTree(path, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.deleteIfExists(file); // links are visited as files: the link goes, not its target
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        Files.deleteIfExists(dir);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
