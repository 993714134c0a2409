package dev.orchestrate.workspace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Whether a repository's commit-graph files leave a commit out, for {@link RefFiles}: git 2.39 takes
 * a commit's parents from a commit-graph that lists it before it reads the commit's object, and a
 * graph is a file an agent can write, so a commit a graph lists has its parents from git. One no
 * graph lists (a commit made since the last {@code git gc}, as a landing's are) git reads from its
 * object, as {@link RefFiles} does.
 *
 * <p>Read as git's format documents it (Documentation/gitformat-commit-graph.txt): the single
 * {@code objects/info/commit-graph} and each file of {@code objects/info/commit-graphs/}'s chain; a
 * header ({@code CGPH}, version 1, the object format's hash), the chunk table, the OID fanout
 * ({@code OIDF}) and the sorted OID list ({@code OIDL}), searched by halves with a read of one id
 * each. A graph that is a link, cannot be read, or says anything unexpected lists every commit: the
 * answer is then git's.
 */
final class CommitGraphs {
  /** Beyond this, a chain file is git's to read (a chain names one graph a line). */
  static final int CHAIN_MAX_BYTES = 64 * 1024;
  private static final int MAX_CHUNKS = 64;
  private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

  private CommitGraphs() {
  }

  /**
   * Whether no commit-graph of the repository at {@code commonDir} lists {@code id} (an object id
   * of the repository's format, lower-case hex), as far as the files say for certain; false when one
   * lists it or any cannot be read here.
   */
  static boolean without(Path commonDir, String id) {
    Path info = commonDir.resolve("objects").resolve("info");
    List<Path> graphs = new ArrayList<>();
    Path single = info.resolve("commit-graph");
    if (Files.exists(single, NOFOLLOW)) {
      graphs.add(single);
    }
    Path split = info.resolve("commit-graphs");
    if (Files.exists(split, NOFOLLOW)) {
      List<Path> chain = chain(split, id.length());
      if (chain == null) {
        return false;
      }
      graphs.addAll(chain);
    }
    for (Path graph : graphs) {
      if (!lacks(graph, id)) {
        return false;
      }
    }
    return true;
  }

  /** The graphs a split chain names; null when it cannot be read here (then every commit is git's). */
  private static List<Path> chain(Path split, int idLength) {
    try {
      byte[] chain = Files.isDirectory(split, NOFOLLOW)
          ? ReadsOffThread.upTo(split.resolve("commit-graph-chain"), CHAIN_MAX_BYTES) : null;
      if (chain == null) {
        return null;
      }
      List<Path> graphs = new ArrayList<>();
      for (String line : new String(chain, StandardCharsets.ISO_8859_1).split("\n")) {
        if (!RefFiles.hex(line, idLength)) {
          return null;
        }
        graphs.add(split.resolve("graph-" + line + ".graph"));
      }
      return graphs;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Whether the graph file {@code graph} is one git's format describes and does not list {@code id}. */
  private static boolean lacks(Path graph, String id) {
    byte[] wanted = HexFormat.of().parseHex(id);
    try {
      if (!Files.isRegularFile(graph, NOFOLLOW)) {
        return false;
      }
      try (FileChannel file = FileChannel.open(graph, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
        long size = file.size();
        ByteBuffer header = read(file, 0, 8);
        int hashVersion = header.get(5);
        int chunks = header.get(6) & 0xff;
        if (header.getInt(0) != 0x43475048 /* CGPH */ || header.get(4) != 1
            || hashVersion != (wanted.length == 20 ? 1 : 2) || chunks > MAX_CHUNKS) {
          return false;
        }
        long fanout = -1;
        long ids = -1;
        ByteBuffer table = read(file, 8, (chunks + 1) * 12);
        for (int i = 0; i < chunks; i++) {
          int kind = table.getInt(i * 12);
          long offset = table.getLong(i * 12 + 4);
          if (kind == 0x4f494446 /* OIDF */) {
            fanout = offset;
          } else if (kind == 0x4f49444c /* OIDL */) {
            ids = offset;
          }
        }
        if (fanout < 0 || ids < 0 || fanout + 1024 > size) {
          return false;
        }
        ByteBuffer counts = read(file, fanout, 1024);
        int first = wanted[0] & 0xff;
        long lo = first == 0 ? 0 : Integer.toUnsignedLong(counts.getInt((first - 1) * 4));
        long hi = Integer.toUnsignedLong(counts.getInt(first * 4));
        long total = Integer.toUnsignedLong(counts.getInt(255 * 4));
        if (lo > hi || hi > total || ids + total * wanted.length > size) {
          return false;
        }
        while (lo < hi) {
          long mid = (lo + hi) >>> 1;
          int order = java.util.Arrays.compareUnsigned(read(file, ids + mid * wanted.length, wanted.length).array(),
              wanted);
          if (order == 0) {
            return false;
          } else if (order < 0) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        return true;
      }
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** {@code length} bytes of {@code file} from {@code at}, all of them (a short file throws). */
  private static ByteBuffer read(FileChannel file, long at, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (file.read(buffer, at + buffer.position()) < 0) {
        throw new IOException("short");
      }
    }
    return buffer.flip();
  }
}
