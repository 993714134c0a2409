package dev.orchestrate.state.sqlite;

import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.StoreException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.Objects;

/**
 * The state database file as this process opened it, checked after each commit: an agent (or
 * anyone) that deletes, replaces, truncates or overwrites {@code state.db} or its WAL under a
 * running process would otherwise let it go on committing into a file that is no longer the
 * database, and report success over a state that is now "not a database".
 *
 * <p>Cheap: one {@code stat} of each file per commit; the 16-byte header of the database (and the
 * 4-byte magic of the WAL) is read only when that file's size or modification time changed since
 * the last check (the database file changes at checkpoints only). Never a scan.
 */
final class DatabaseFile {
  private static final byte[] HEADER = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);
  /** The smallest file a database can be: its header page is at least 512 bytes. */
  private static final long MIN_BYTES = 512;
  private static final int WAL_MAGIC_LE = 0x377f0682;
  private static final int WAL_MAGIC_BE = 0x377f0683;
  private static final int WAL_HEADER_BYTES = 32;

  private final Path file;
  private final Path wal;
  private final Object key;
  private Seen database;
  private Seen log;

  /**
   * A file's size and modification time when last checked. Compared with {@link #same}, not a
   * record's generated {@code equals}: that one is bootstrapped through method handles on its first
   * call, which spins about 20 classes at run time that no start-up archive holds (10 ms of a
   * {@code stats} or {@code compact}, docs/benchmarks.md).
   */
  private record Seen(long size, FileTime modified) {
    boolean same(Seen other) {
      return other != null && size == other.size && modified.equals(other.modified);
    }
  }

  private DatabaseFile(Path file, Object key) {
    this.file = file;
    this.wal = file.resolveSibling(file.getFileName() + "-wal");
    this.key = key;
  }

  /** The file as it is now (just opened); null when it cannot be looked at, and then nothing is checked. */
  static DatabaseFile of(Path file) {
    try {
      BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return a.fileKey() == null ? null : new DatabaseFile(file, a.fileKey());
    } catch (IOException e) {
      return null;
    }
  }

  /** @throws StoreException naming the file when it is not the database this process opened any more */
  void check() {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw destroyed("was deleted");
    } catch (IOException e) {
      throw destroyed("cannot be read any more (" + e.getMessage() + ")");
    }
    if (!Objects.equals(a.fileKey(), key)) {
      throw destroyed("was replaced by another file");
    }
    if (a.size() < MIN_BYTES) {
      throw destroyed("was truncated to " + a.size() + " bytes");
    }
    Seen now = new Seen(a.size(), a.lastModifiedTime());
    if (!now.same(database)) {
      byte[] head = read(file, HEADER.length);
      if (!Arrays.equals(head, HEADER)) {
        throw destroyed("was overwritten (its first bytes are not a SQLite header any more)");
      }
      database = now;
    }
    checkWal();
  }

  private void checkWal() {
    BasicFileAttributes a;
    try {
      a = Files.readAttributes(wal, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return; // no WAL (a checkpoint may truncate or a last close remove it): nothing to check
    }
    Seen now = new Seen(a.size(), a.lastModifiedTime());
    if (a.size() < WAL_HEADER_BYTES || now.same(log)) {
      return;
    }
    byte[] head = read(wal, 4);
    int magic = head.length < 4 ? 0
        : (head[0] & 0xff) << 24 | (head[1] & 0xff) << 16 | (head[2] & 0xff) << 8 | (head[3] & 0xff);
    if (magic != WAL_MAGIC_LE && magic != WAL_MAGIC_BE) {
      throw new StoreException("state database " + file + ": its write-ahead log " + wal.getFileName()
          + " was truncated or overwritten by something else while in use (an agent with write access to the state"
          + " directory?); the changes in it are lost: stop, keep agents out of it, and restore the state directory"
          + " from a copy or " + StateDirectory.ELSEWHERE);
    }
    log = now;
  }

  private byte[] read(Path path, int n) {
    try (InputStream in = Files.newInputStream(path, LinkOption.NOFOLLOW_LINKS)) {
      return in.readNBytes(n);
    } catch (AccessDeniedException e) {
      throw destroyed("cannot be read any more (permission denied)");
    } catch (IOException e) {
      throw destroyed("cannot be read any more (" + e.getMessage() + ")");
    }
  }

  private StoreException destroyed(String what) {
    return new StoreException("state database " + file + " " + what + " while in use (an agent with write"
        + " access to the state directory?); this process stopped rather than go on writing into it: keep agents out"
        + " of it, and restore the state directory from a copy or " + StateDirectory.ELSEWHERE);
  }
}
