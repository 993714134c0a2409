package dev.orchestrate.workspace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Branch tips read from the files git keeps them in, instead of a {@code git for-each-ref} or
 * {@code git rev-parse} process each (issue 46: a process is most of a worktree phase's cost).
 *
 * <p>An answer is given only where the files leave no doubt, and everything else is left to git:
 * <ul>
 *   <li>a ref is read from its loose file (a regular file, not a link, holding exactly one object
 *   id and a newline) or, when it has none, from {@code packed-refs}; a symbolic ref, a link, any
 *   other content, a {@code reftable/} repository, an unreadable or very large {@code packed-refs}:
 *   git;</li>
 *   <li>the id counts as the ref's commit only when the object is a loose object whose header says
 *   {@code commit} (git refuses to point a branch at anything else, but an agent writes files, not
 *   only through git); an object in a pack, or another type: git, which peels or refuses as
 *   before;</li>
 *   <li>"no such ref" is an answer only for the exact names {@code git for-each-ref} matches:
 *   neither a loose file nor a {@code packed-refs} line.</li>
 * </ul>
 * Agents write these files, so what is read is treated as theirs: a ref name of anything but
 * plain components is never turned into a path, the file read is never a link (directories on the
 * way are followed, as git follows them), an object counts only when its bytes hash to its id by
 * the repository's object format, at most {@link
 * #PACKED_REFS_MAX_BYTES} of {@code packed-refs} and {@link #OBJECT_MAX_BYTES} of an object are read,
 * and each answer is waited for at most {@link ReadsOffThread#TIMEOUT} (a FIFO swapped in cannot hang the
 * caller). The walk by parents ({@link #ancestors}) answers only "yes, within so many commits".
 */
final class RefFiles {
  /** Beyond this, {@code packed-refs} is git's to search (it binary-searches a sorted file). */
  static final long PACKED_REFS_MAX_BYTES = 1024 * 1024;
  /**
   * A loose commit of at most this many (compressed) bytes is read whole for its header ("commit
   * <size>\0"); a larger one is git's to look at.
   */
  static final int OBJECT_MAX_BYTES = 64 * 1024;
  private static final Pattern ID = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
  /** Components of letters, digits, '_', '-' and inner dots: no '..', no leading dot, nothing git would refuse. */
  private static final Pattern NAME = Pattern.compile("refs(/[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*)+");
  private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};

  private RefFiles() {
  }

  /**
   * What the files say of each of {@code refs}: the commit it names, or empty for no such ref. A
   * ref missing from the answer could not be told without git.
   */
  static Map<String, Optional<String>> tips(Path commonDir, Collection<String> refs) {
    List<String> names = List.copyOf(refs);
    return ReadsOffThread.read(() -> tipsHere(commonDir, names), Map.of());
  }

  /** The commit {@code ref} names when the files say so; null when there is none or git must say. */
  static String commit(Path commonDir, String ref) {
    return tips(commonDir, List.of(ref)).getOrDefault(ref, Optional.empty()).orElse(null);
  }

  /** Whether the files say for certain that {@code ref} does not exist (false when git must say). */
  static boolean absent(Path commonDir, String ref) {
    Optional<String> tip = tips(commonDir, List.of(ref)).get(ref);
    return tip != null && tip.isEmpty();
  }

  /**
   * The full ref name {@code gitDir}'s {@code HEAD} is on, read from its file when it holds exactly
   * {@code ref: <name>} and a newline, with a plain name; null when git must say (detached, a
   * link, anything else).
   */
  static String headRef(Path gitDir) {
    return ReadsOffThread.read(() -> headRefHere(gitDir), null);
  }

  /**
   * {@code from}'s ancestors reached by its parents within {@code limit} commits, each read as a
   * loose commit object: each one certainly an ancestor; an ancestor missing from the set is no
   * answer (further back, or behind an object in a pack). Empty where git takes parents from
   * elsewhere ({@link #otherParents}).
   */
  static Set<String> ancestors(Path commonDir, String from, int limit) {
    return ReadsOffThread.read(() -> ancestorsHere(commonDir, from, limit), Set.of());
  }

  /** The parents a loose commit object names, in order; null when {@code id} is not one (or not read here). */
  static List<String> parents(Path commonDir, String id) {
    return ReadsOffThread.read(() -> parentsHere(commonDir, id), null);
  }

  /** A loose commit's parents, in order, and its message (after its headers' blank line, as UTF-8). */
  record LooseCommit(List<String> parents, String message) {
  }

  /**
   * Loose commit {@code id}'s parents and message from one read of its object; null when the
   * parents are not read here ({@link #parents}) or it has no message.
   */
  static LooseCommit parentsAndMessage(Path commonDir, String id) {
    LooseCommit read = ReadsOffThread.read(() -> parentsAndMessageHere(commonDir, id), null);
    return read == null || read.message() == null ? null : read;
  }

  private static Map<String, Optional<String>> tipsHere(Path commonDir, Collection<String> refs) {
    Map<String, Optional<String>> known = new LinkedHashMap<>();
    int length = idLength(commonDir);
    if (length < 0 || Files.isDirectory(commonDir.resolve("reftable"), NOFOLLOW)) {
      return known;
    }
    Set<String> packed = new LinkedHashSet<>();
    for (String ref : refs) {
      if (!plain(ref)) {
        continue;
      }
      Loose loose = loose(commonDir, ref);
      if (loose == Loose.ABSENT) {
        packed.add(ref);
      } else if (loose.id() != null) {
        looseCommit(commonDir, loose.id(), length).ifPresent(id -> known.put(ref, Optional.of(id)));
      }
    }
    if (!packed.isEmpty()) {
      Map<String, String> ids = packed(commonDir, packed, length);
      if (ids != null) {
        for (String ref : packed) {
          String id = ids.get(ref);
          if (id == null) {
            known.put(ref, Optional.empty());
          } else {
            looseCommit(commonDir, id, length).ifPresent(c -> known.put(ref, Optional.of(c)));
          }
        }
      }
    }
    return known;
  }

  private static String headRefHere(Path gitDir) {
    try {
      byte[] bytes = ReadsOffThread.upTo(gitDir.resolve("HEAD"), 512);
      String text = bytes == null ? "" : new String(bytes, StandardCharsets.UTF_8);
      if (!text.startsWith("ref: ") || !text.endsWith("\n")) {
        return null;
      }
      String ref = text.substring("ref: ".length(), text.length() - 1);
      return plain(ref) ? ref : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * A name of plain components that lives in the common directory: the per-worktree refs ({@code
   * refs/bisect/}, {@code refs/worktree/}, {@code refs/rewritten/}) are in each worktree's own.
   */
  private static boolean plain(String ref) {
    return NAME.matcher(ref).matches() && !ref.toLowerCase(java.util.Locale.ROOT).matches(".*\\.lock(/.*)?")
        && !ref.startsWith("refs/bisect/") && !ref.startsWith("refs/worktree/") && !ref.startsWith("refs/rewritten/");
  }

  /** A loose ref file: its id, {@link #ABSENT} when there is none, {@link #UNSURE} when git must say. */
  private record Loose(String id) {
    static final Loose ABSENT = new Loose(null);
    static final Loose UNSURE = new Loose(null);
  }

  private static Loose loose(Path commonDir, String ref) {
    Path file = commonDir.resolve(ref);
    BasicFileAttributes attrs;
    try {
      attrs = Files.readAttributes(file, BasicFileAttributes.class, NOFOLLOW);
    } catch (NoSuchFileException e) {
      return Loose.ABSENT;
    } catch (IOException | RuntimeException e) {
      return Loose.UNSURE; // a component that is a file, no permission: git says what it makes of it
    }
    if (attrs.isDirectory()) {
      return Loose.ABSENT; // refs/heads/a when only refs/heads/a/b exists: git's "no such ref" too
    }
    if (!attrs.isRegularFile() || attrs.size() > 66) {
      return Loose.UNSURE; // a link, a FIFO, a symbolic ref to follow, anything else
    }
    try {
      byte[] bytes = ReadsOffThread.upTo(file, 66);
      String text = bytes == null ? "" : new String(bytes, StandardCharsets.US_ASCII);
      if (!text.endsWith("\n")) {
        return Loose.UNSURE;
      }
      String id = text.substring(0, text.length() - 1);
      return ID.matcher(id).matches() ? new Loose(id) : Loose.UNSURE;
    } catch (IOException | RuntimeException e) {
      return Loose.UNSURE; // gone since (git says whether it was packed), or swapped for a FIFO
    }
  }

  /** The ids {@code packed-refs} gives {@code refs} (absent: not there), or null when it cannot be read here. */
  private static Map<String, String> packed(Path commonDir, Set<String> refs, int length) {
    Path file = commonDir.resolve("packed-refs");
    BasicFileAttributes attrs;
    try {
      attrs = Files.readAttributes(file, BasicFileAttributes.class, NOFOLLOW);
    } catch (NoSuchFileException e) {
      return Map.of();
    } catch (IOException | RuntimeException e) {
      return null;
    }
    if (!attrs.isRegularFile() || attrs.size() > PACKED_REFS_MAX_BYTES) {
      return null;
    }
    byte[] bytes;
    try {
      bytes = ReadsOffThread.upTo(file, (int) PACKED_REFS_MAX_BYTES);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    if (bytes == null || (bytes.length > 0 && bytes[bytes.length - 1] != '\n')) {
      return null; // grown since it was looked at, or cut: git reads it
    }
    if (bytes.length == 0) {
      return Map.of();
    }
    // as git writes it, or no answer: its header first, "<id> <name>" lines in strictly increasing
    // byte order (git binary-searches them: a repeated or unsorted name could be found elsewhere),
    // each "^<id>" (a tag's target) right after a ref's line
    String[] lines = new String(bytes, StandardCharsets.ISO_8859_1).split("\n", -1); // the last is the empty tail
    if (!lines[0].startsWith("# pack-refs with:")) {
      return null;
    }
    Map<String, String> ids = new LinkedHashMap<>();
    String previous = null;
    boolean afterRef = false;
    for (int i = 1; i < lines.length - 1; i++) {
      String line = lines[i];
      if (line.startsWith("^")) {
        if (!afterRef || !hex(line.substring(1), length)) {
          return null;
        }
        afterRef = false;
        continue;
      }
      int space = line.indexOf(' ');
      if (space < 0 || !hex(line.substring(0, space), length)) {
        return null; // not the format this reader knows (a blank line, an id of another length)
      }
      String name = line.substring(space + 1);
      if (previous != null && previous.compareTo(name) >= 0) {
        return null;
      }
      previous = name;
      afterRef = true;
      if (refs.contains(name)) {
        ids.put(name, line.substring(0, space));
      }
    }
    return ids;
  }

  private static Set<String> ancestorsHere(Path commonDir, String from, int limit) {
    int length = idLength(commonDir);
    if (length < 0 || otherParents(commonDir)) {
      return Set.of();
    }
    java.util.ArrayDeque<String> next = new java.util.ArrayDeque<>(List.of(from));
    Set<String> seen = new java.util.HashSet<>(next);
    Set<String> reached = new java.util.HashSet<>();
    while (!next.isEmpty() && seen.size() <= limit) {
      LooseCommit commit = parentsOf(commonDir, next.poll(), length);
      List<String> parents = commit == null ? null : commit.parents();
      if (parents == null) {
        break; // what was reached so far is reached all the same
      }
      for (String parent : parents) {
        reached.add(parent);
        if (seen.add(parent)) {
          next.add(parent);
        }
      }
    }
    return reached;
  }

  /**
   * Whether git may read parents other than the objects' own for every commit here: grafts, a
   * shallow clone's boundary, other object directories (whose commit-graphs git reads too), or
   * replace refs (git's merge-base, rebase and log read a replacement's parents). A commit-graph of
   * the repository's own is asked about each commit ({@link CommitGraphs}).
   */
  private static boolean otherParents(Path commonDir) {
    return Stream.of("info/grafts", "shallow", "objects/info/alternates", "refs/replace")
        .anyMatch(name -> Files.exists(commonDir.resolve(name), NOFOLLOW)) || packedReplaceRefs(commonDir);
  }

  /** Whether {@code packed-refs} may name a replace ref (git then reads the replacement's parents); true when unsure. */
  private static boolean packedReplaceRefs(Path commonDir) {
    Path packed = commonDir.resolve("packed-refs");
    if (!Files.exists(packed, NOFOLLOW)) {
      return false;
    }
    try {
      byte[] bytes = ReadsOffThread.upTo(packed, (int) PACKED_REFS_MAX_BYTES);
      return bytes == null || new String(bytes, StandardCharsets.ISO_8859_1).contains("refs/replace/");
    } catch (IOException e) {
      return true;
    }
  }

  private static List<String> parentsHere(Path commonDir, String id) {
    LooseCommit read = parentsAndMessageHere(commonDir, id);
    return read == null ? null : read.parents();
  }

  private static LooseCommit parentsAndMessageHere(Path commonDir, String id) {
    int length = idLength(commonDir);
    return length < 0 || otherParents(commonDir) ? null : parentsOf(commonDir, id, length);
  }

  private static LooseCommit parentsOf(Path commonDir, String id, int length) {
    if (!hex(id, length) || !CommitGraphs.without(commonDir, id)) {
      return null; // a commit a graph lists has its parents from the graph (git 2.39 reads it first)
    }
    String text = looseCommitText(commonDir, id, length);
    List<String> parents = text == null ? null : commitParents(text, length);
    if (parents == null) {
      return null;
    }
    int body = text.indexOf("\n\n", text.indexOf('\0'));
    return new LooseCommit(parents, body < 0 ? null
        : new String(text.substring(body + 2).getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
  }

  /**
   * The parents a commit's text names, as git's commit parser reads them: a {@code tree} line of a
   * full id, then {@code parent} lines of full ids, then {@code author}; null for anything else.
   */
  private static List<String> commitParents(String text, int length) {
    List<String> parents = new ArrayList<>();
    String[] lines = text.substring(text.indexOf('\0') + 1).split("\n", -1);
    if (lines.length < 2 || !lines[0].startsWith("tree ") || !hex(lines[0].substring("tree ".length()), length)) {
      return null;
    }
    for (int i = 1; i < lines.length; i++) {
      if (!lines[i].startsWith("parent ")) {
        return lines[i].startsWith("author ") ? parents : null;
      }
      String parent = lines[i].substring("parent ".length());
      if (!hex(parent, length)) {
        return null;
      }
      parents.add(parent);
    }
    return null;
  }

  /**
   * {@code id} when it is a loose commit object of {@code commonDir}'s ({@link #looseCommitText})
   * that git's commit parser takes ({@link #commitParents}); else empty.
   */
  private static Optional<String> looseCommit(Path commonDir, String id, int length) {
    String text = looseCommitText(commonDir, id, length);
    return text != null && commitParents(text, length) != null ? Optional.of(id) : Optional.empty();
  }

  /**
   * Loose object {@code id} inflated, header first ("commit <size>\0…"), when it is a commit whose
   * bytes hash to {@code id} by the repository's object format (so it is the object git would find
   * in a pack too, and no file an agent planted under another object's name); null otherwise, or
   * when it cannot be read here (no such loose object, a link, over {@link #OBJECT_MAX_BYTES}
   * compressed or inflated, not zlib).
   */
  private static String looseCommitText(Path commonDir, String id, int length) {
    if (!hex(id, length)) {
      return null;
    }
    Path object = commonDir.resolve("objects").resolve(id.substring(0, 2)).resolve(id.substring(2));
    Inflater inflater = new Inflater();
    try {
      byte[] compressed = ReadsOffThread.upTo(object, OBJECT_MAX_BYTES);
      if (compressed == null) {
        return null; // a commit of a large message: git says
      }
      inflater.setInput(compressed);
      java.io.ByteArrayOutputStream inflated = new java.io.ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      while (!inflater.finished()) {
        int n = inflater.inflate(buffer);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          return null; // cut or not zlib
        }
        inflated.write(buffer, 0, n);
        if (inflated.size() > OBJECT_MAX_BYTES * 4) {
          return null;
        }
      }
      if (inflater.getRemaining() != 0) {
        return null; // bytes after the object: git calls it garbage and refuses it
      }
      byte[] bytes = inflated.toByteArray();
      String hash = HexFormat.of().formatHex(MessageDigest.getInstance(id.length() == 40 ? "SHA-1" : "SHA-256")
          .digest(bytes));
      String text = new String(bytes, StandardCharsets.ISO_8859_1);
      int nul = text.indexOf('\0');
      return hash.equals(id) && text.startsWith("commit ") && nul > 0
          && text.substring("commit ".length(), nul).equals(Integer.toString(bytes.length - nul - 1)) ? text : null;
    } catch (IOException | DataFormatException | NoSuchAlgorithmException | RuntimeException e) {
      return null;
    } finally {
      inflater.end();
    }
  }

  /**
   * The length of an object id in the repository at {@code commonDir}: 64 where its configuration
   * names the SHA-256 object format, 40 where it names no format; -1 where it cannot be told (then
   * nothing is answered from the files).
   */
  private static int idLength(Path commonDir) {
    try {
      byte[] bytes = ReadsOffThread.upTo(commonDir.resolve("config"), 256 * 1024);
      if (bytes == null) {
        return -1;
      }
      List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().map(String::strip).toList();
      long named = lines.stream().filter(l -> l.toLowerCase(java.util.Locale.ROOT).contains("objectformat")).count();
      if (named == 0) {
        return 40;
      }
      // only the plainest form git itself writes: one "objectformat = sha256" right in [extensions],
      // repositoryformatversion 1, no continued line; anything else is git's to read
      String section = "";
      boolean sha256 = false;
      boolean version1 = false;
      for (String line : lines) {
        String lower = line.toLowerCase(java.util.Locale.ROOT);
        if (line.endsWith("\\")) {
          return -1;
        } else if (line.startsWith("[")) {
          section = lower;
        } else if (section.equals("[extensions]") && line.matches("(?i:objectformat)\\s*=\\s*sha256")) {
          sha256 = true;
        } else if (section.equals("[core]") && lower.matches("repositoryformatversion\\s*=\\s*1")) {
          version1 = true;
        }
      }
      return named == 1 && sha256 && version1 ? 64 : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  static boolean hex(String id, int length) {
    return id.length() == length && ID.matcher(id).matches();
  }
}
