package dev.orchestrate.workspace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A worktree's git index, read as git's format documents it (Documentation/gitformat-index.txt),
 * versions 2 and 3, for what orchestrate decides without a git process: whether every entry is a
 * file or a symbolic link (a kept worktree's take, {@link SpareWorktrees}), which entries an agent
 * hid from git with an assume-unchanged or skip-worktree bit ({@link StagedFiles#unhide}), and a
 * digest of the whole file (the phase commit's check that nothing was staged). The index is the
 * agent's to write: anything not exactly as the format says, a split index or a sparse directory
 * is not read, and the caller asks git or takes the safe way.
 */
final class IndexFile {
  private static final int MAX_BYTES = 256 * 1024 * 1024;

  private IndexFile() {
  }

  static boolean filesAndLinksOnly(Path index, int hashLength) {
    try {
      return filesAndLinksOnly(ReadsOffThread.upTo(index, MAX_BYTES), hashLength);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * A SHA-256 of the whole index file, in hex, when it holds files and links only
   * ({@link #filesAndLinksOnly}); else null. Not the index's own trailing checksum: git does not
   * check that one when it reads an index, so a hand-written index could keep an old trailer
   * over new entries; two digests alike here mean the same bytes.
   */
  static String digest(Path index, int hashLength) {
    try {
      byte[] bytes = ReadsOffThread.upTo(index, MAX_BYTES);
      if (!filesAndLinksOnly(bytes, hashLength)) {
        return null;
      }
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (IOException | java.security.NoSuchAlgorithmException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The paths whose entries carry an assume-unchanged or a skip-worktree bit, with which git
   * itself stops looking at the file (status, add and the reset all take it as it was), in the
   * order of the index; null when the index is not one this reads (not versions 2 or 3, a split
   * index, anything not as the format says).
   */
  static List<String> hidden(Path index, int hashLength) {
    try {
      List<String> out = new ArrayList<>();
      boolean read = walk(ReadsOffThread.upTo(index, MAX_BYTES), hashLength, (mode, flags, extendedFlags, name) -> {
        if ((flags & 0x8000) != 0 || (extendedFlags & 0x4000) != 0) {
          out.add(name);
        }
        return true;
      });
      return read ? out : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static boolean filesAndLinksOnly(byte[] bytes, int hashLength) {
    // 0b1000: a file, 0b1010: a link; 0b1110: a gitlink; anything else: not a file or a link
    return walk(bytes, hashLength,
        (mode, flags, extendedFlags, name) -> mode >>> 12 == 0b1000 || mode >>> 12 == 0b1010);
  }

  /** One index entry, as {@link #walk} reads it. */
  private interface Entry {
    /** @return false to stop: the index is then not one to go on with */
    boolean visit(int mode, int flags, int extendedFlags, String name);
  }

  /**
   * Reads every entry of a version 2 or 3 index, then its extensions, as git's format says
   * (Documentation/gitformat-index.txt): a name's length is the one its flags give (a scan for
   * its NUL only at 0xFFF and over), a NUL right after it, 1 to 8 NULs of padding; each extension
   * within the file. False for anything else (another version, a split index's {@code link} or a
   * sparse directory's {@code sdir}, a cut or malformed file), or when {@code entry} says stop;
   * never a loop that does not move on.
   */
  private static boolean walk(byte[] bytes, int hashLength, Entry entry) {
    try {
      if (bytes == null || bytes.length < 12 + hashLength) {
        return false;
      }
      java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(bytes, 0, bytes.length - hashLength);
      int version = in.getInt(4);
      if (in.getInt(0) != 0x44495243 /* DIRC */ || (version != 2 && version != 3)) {
        return false;
      }
      long entries = Integer.toUnsignedLong(in.getInt(8));
      int at = 12;
      for (long i = 0; i < entries; i++) {
        int flags = Short.toUnsignedInt(in.getShort(at + 40 + hashLength));
        boolean extended = (flags & 0x4000) != 0;
        if (extended && version == 2) {
          return false;
        }
        int extendedFlags = extended ? Short.toUnsignedInt(in.getShort(at + 42 + hashLength)) : 0;
        int name = at + 40 + hashLength + (extended ? 4 : 2);
        int length = flags & 0xFFF;
        int end = name + length;
        if (length == 0xFFF) {
          while (bytes[end] != 0) {
            end++;
          }
        }
        if (end >= in.limit() || bytes[end] != 0) {
          return false; // the name is not as long as its flags say
        }
        if (!entry.visit(in.getInt(at + 24), flags, extendedFlags,
            new String(bytes, name, end - name, StandardCharsets.UTF_8))) {
          return false;
        }
        int next = at + (((end - at) + 8) & ~7); // 1 to 8 NULs pad each entry to a multiple of eight
        for (int pad = end; pad < next; pad++) {
          if (pad >= in.limit() || bytes[pad] != 0) {
            return false;
          }
        }
        at = next;
      }
      while (at + 8 <= in.limit()) {
        int signature = in.getInt(at);
        int size = in.getInt(at + 4);
        if (signature == 0x6c696e6b /* link */ || signature == 0x73646972 /* sdir */
            || size < 0 || size > in.limit() - at - 8) {
          return false;
        }
        at += 8 + size;
      }
      return at == in.limit();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
