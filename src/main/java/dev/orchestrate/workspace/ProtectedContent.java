package dev.orchestrate.workspace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The files a commit tracks among the protected pathspecs (the scripts the gates run, the
 * {@code verify_protected} paths) whose bytes in the worktree are not the commit's, compared
 * without the index or the worktree's attributes: each file's raw bytes hashed as git hashes a
 * blob, against the blob id {@code git ls-tree} gives for the commit. {@code git status} decides
 * from the index's stat data (an agent can write an index whose entry for its rewritten script has
 * the new file's stat data and the old blob id) and compares content after the worktree's
 * {@code .gitattributes} conversions (an agent can add one under which its copy converts to the
 * original); neither is the agent's to decide here. A file that is missing, not a regular file
 * where the commit has one, not a link where it has a link, or under a directory that is a link
 * counts as changed. Gitlinks are left out, as the status leaves them.
 */
final class ProtectedContent {
  private ProtectedContent() {
  }

  /**
   * What {@code commit} tracks under {@code pathspecs}: each file's mode, blob id, size and path, as
   * {@code git ls-tree -l} gives them. Kept for the checks of one attempt (before its gates and
   * before its phase commit), which compare the same commit.
   */
  record Listing(String commit, List<String> pathspecs, List<Entry> entries) {
  }

  /** One file of a {@link Listing}. */
  record Entry(String mode, String blob, long size, String path) {
  }

  /** The files of {@code listing} whose worktree copy under {@code top} is not the commit's. */
  static List<String> differing(Path top, Listing listing) {
    List<String> out = new ArrayList<>();
    for (Entry e : listing.entries()) {
      if (!same(top, e.path(), e.mode(), e.blob(), e.size())) {
        out.add(e.path());
      }
    }
    return out;
  }

  /** {@code commit}'s files under {@code pathspecs} ({@link Listing}); none without a pathspec. */
  static Listing list(Git git, Git.Place place, String commit, List<String> pathspecs) {
    List<Entry> out = new ArrayList<>();
    if (pathspecs.isEmpty() || commit == null) {
      return new Listing(commit, List.copyOf(pathspecs), out);
    }
    // ls-tree takes :(top) and :(literal), and matches paths as prefixes, never as wildcards (the
    // configuration refuses wildcards in verify_protected); its output is read as it comes, so that
    // a listing of any size is all read, not cut at what a command's output is held to
    List<String> args = new ArrayList<>(List.of("ls-tree", "-r", "-z", "-l", "--full-tree", commit, "--"));
    args.addAll(pathspecs);
    java.io.ByteArrayOutputStream entry = new java.io.ByteArrayOutputStream();
    java.io.OutputStream entries = new java.io.OutputStream() {
      @Override
      public void write(int b) {
        if (b != 0) {
          entry.write(b);
          return;
        }
        Entry parsed = parse(entry.toString(StandardCharsets.UTF_8));
        if (parsed != null) {
          out.add(parsed);
        }
        entry.reset();
      }

      @Override
      public void write(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
          write(bytes[i]);
        }
      }
    };
    try {
      Git.Streamed listed = git.stream(place, args, MAX_LISTING, entries);
      if (listed.exitCode() != 0 || listed.cut()) {
        throw new GitException("git ls-tree " + commit + " failed in " + place.dir() + ": "
            + (listed.cut() ? "over " + MAX_LISTING + " bytes" : listed.reason()));
      }
    } catch (IOException e) {
      throw new GitException("could not read the files of " + commit + ": " + e.getMessage(), e);
    }
    return new Listing(commit, List.copyOf(pathspecs), List.copyOf(out));
  }

  /** A tree listing this long (tens of millions of files) is not read to its end. */
  private static final long MAX_LISTING = 1L << 30;

  /** One {@code ls-tree -l} entry; null for a gitlink (the status leaves them out too) or anything unexpected. */
  private static Entry parse(String entry) {
    int tab = entry.indexOf('\t');
    // <mode> <type> <id> <size, padded>TAB<path>
    String[] head = tab < 0 ? new String[0] : entry.substring(0, tab).trim().split(" +");
    if (head.length != 4 || head[0].equals("160000")) {
      return null;
    }
    try {
      return new Entry(head[0], head[2], Long.parseLong(head[3]), entry.substring(tab + 1));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static boolean same(Path top, String path, String mode, String blob, long size) {
    try {
      Path file = top;
      String[] parts = path.split("/");
      for (int i = 0; i < parts.length; i++) {
        file = file.resolve(parts[i]);
        if (i < parts.length - 1 && !Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
          return false; // a directory on the way replaced, by a link or a file
        }
      }
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS);
      MessageDigest digest = MessageDigest.getInstance(blob.length() == 64 ? "SHA-256" : "SHA-1");
      if (mode.equals("120000")) {
        if (!attributes.isSymbolicLink()) {
          return false;
        }
        byte[] target = Files.readSymbolicLink(file).toString().getBytes(StandardCharsets.UTF_8);
        digest.update(("blob " + target.length + "\0").getBytes(StandardCharsets.US_ASCII));
        digest.update(target);
        return HexFormat.of().formatHex(digest.digest()).equals(blob);
      }
      if (!attributes.isRegularFile() || attributes.size() != size) {
        return false; // another size is another content: a file the agent grew is never read
      }
      digest.update(("blob " + attributes.size() + "\0").getBytes(StandardCharsets.US_ASCII));
      long read = 0;
      try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) > 0;) {
          digest.update(buffer, 0, n);
          read += n;
        }
      }
      return read == attributes.size() && HexFormat.of().formatHex(digest.digest()).equals(blob);
    } catch (IOException | NoSuchAlgorithmException | RuntimeException e) {
      return false; // unreadable: not known to be the commit's
    }
  }
}
