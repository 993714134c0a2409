package dev.orchestrate.workspace;

import dev.orchestrate.limits.FileTail;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
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
 * and each answer is waited for at most {@link #READ_TIMEOUT} (a FIFO swapped in cannot hang the
 * caller). The walk by parents ({@link #reaches}) answers only "yes, within so many commits".
 */
final class RefFiles {
  /** Beyond this, {@code packed-refs} is git's to search (it binary-searches a sorted file). */
  static final long PACKED_REFS_MAX_BYTES = 1024 * 1024;
  /**
   * A loose commit of at most this many (compressed) bytes is read whole for its header ("commit
   * <size>\0"); a larger one is git's to look at.
   */
  static final int OBJECT_MAX_BYTES = 64 * 1024;
  /**
   * How long a caller waits for an answer read on one of {@link #READERS}: an agent could swap a ref
   * for a FIFO between the look and the open, which would block the open.
   */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
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
    return offThread(() -> tipsHere(commonDir, names), Map.of());
  }

  /**
   * The full ref name {@code gitDir}'s {@code HEAD} is on, read from its file when it holds exactly
   * {@code ref: <name>} and a newline, with a plain name; null when git must say (detached, a
   * link, anything else).
   */
  static String headRef(Path gitDir) {
    return offThread(() -> headRefHere(gitDir), null);
  }

  /**
   * Whether {@code ancestor} is reached from {@code from} by its parents within {@code limit}
   * commits, each read as a loose commit object; false when it is not found that way (not an
   * ancestor, or one further back, or behind an object in a pack): only a true answer is one.
   */
  static boolean reaches(Path commonDir, String from, String ancestor, int limit) {
    return offThread(() -> reachesHere(commonDir, from, ancestor, limit), false);
  }

  /** The parents a loose commit object names, in order; null when {@code id} is not one (or not read here). */
  static List<String> parents(Path commonDir, String id) {
    return offThread(() -> parentsHere(commonDir, id), null);
  }

  /**
   * Threads that read, kept for the next read: a file swapped for a FIFO between the look and the
   * open blocks the open, so each answer is read on one of them and waited for at most {@link
   * #READ_TIMEOUT} (then git is asked, and the FIFO released); a thread stuck keeps it, the next
   * read gets another.
   */
  private static final ExecutorService READERS = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task, "ref-files");
    thread.setDaemon(true);
    return thread;
  });
  /** The file each reading thread is opening now: what to release when it is stuck. */
  static final Map<Thread, Path> OPENING = new ConcurrentHashMap<>();
  /**
   * Reads that outlived their wait and have not ended yet. A FIFO renamed away before its release
   * leaves its reader blocked for good; while {@link #MAX_STUCK} are, the files are not read and
   * every answer is git's, so the threads an agent can strand this way stay few.
   */
  static final java.util.concurrent.atomic.AtomicInteger STUCK = new java.util.concurrent.atomic.AtomicInteger();
  static final int MAX_STUCK = 4;

  private static <T> T offThread(Callable<T> read, T unknown) {
    return offThread(read, unknown, READ_TIMEOUT);
  }

  /** {@code read}'s answer, read on one of {@link #READERS}; {@code unknown} when it took over {@code timeout}. */
  static <T> T offThread(Callable<T> read, T unknown, Duration timeout) {
    if (STUCK.get() >= MAX_STUCK) {
      return unknown; // reads keep getting stuck: git answers for the rest of the process
    }
    AtomicReference<Thread> reader = new AtomicReference<>();
    java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger(); // 1 done, 2 late
    Future<T> answer;
    try {
      answer = READERS.submit(() -> {
        reader.set(Thread.currentThread());
        try {
          return read.call();
        } finally {
          if (!state.compareAndSet(0, 1)) {
            STUCK.decrementAndGet(); // a late read ended after all (its FIFO released)
          }
        }
      });
    } catch (RejectedExecutionException e) {
      return unknown;
    }
    try {
      return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      if (state.compareAndSet(0, 2)) {
        STUCK.incrementAndGet();
      }
      answer.cancel(true);
      Path stuck = reader.get() == null ? null : OPENING.get(reader.get());
      if (stuck != null) {
        FileTail.release(stuck);
      }
      return unknown;
    } catch (InterruptedException e) {
      answer.cancel(true);
      Thread.currentThread().interrupt();
      return unknown;
    } catch (ExecutionException e) {
      return unknown;
    }
  }

  /**
   * {@code file}'s bytes when it is a regular file of at most {@code max} bytes (null when it is
   * larger), read without following a link.
   *
   * @throws IOException when it is not a regular file or cannot be read
   */
  private static byte[] upTo(Path file, int max) throws IOException {
    BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class, NOFOLLOW);
    if (!attrs.isRegularFile()) {
      throw new IOException(file + " is not a regular file");
    }
    return attrs.size() > max ? null : opened(file, max);
  }

  /** {@code file}'s first {@code max} bytes, null when it has more; the open and read as {@link #upTo}'s. */
  static byte[] opened(Path file, int max) throws IOException {
    OPENING.put(Thread.currentThread(), file);
    try (InputStream in = Channels.newInputStream(Files.newByteChannel(file, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS))) {
      byte[] bytes = in.readNBytes(max + 1);
      return bytes.length > max ? null : bytes;
    } finally {
      OPENING.remove(Thread.currentThread());
    }
  }

  private static Map<String, Optional<String>> tipsHere(Path commonDir, Collection<String> refs) {
    Map<String, Optional<String>> known = new LinkedHashMap<>();
    if (Files.isDirectory(commonDir.resolve("reftable"), NOFOLLOW)) {
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
        looseCommit(commonDir, loose.id()).ifPresent(id -> known.put(ref, Optional.of(id)));
      }
    }
    if (!packed.isEmpty()) {
      Map<String, String> ids = packed(commonDir, packed);
      if (ids != null) {
        for (String ref : packed) {
          String id = ids.get(ref);
          if (id == null) {
            known.put(ref, Optional.empty());
          } else {
            looseCommit(commonDir, id).ifPresent(c -> known.put(ref, Optional.of(c)));
          }
        }
      }
    }
    return known;
  }

  private static String headRefHere(Path gitDir) {
    try {
      byte[] bytes = upTo(gitDir.resolve("HEAD"), 512);
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
      byte[] bytes = upTo(file, 66);
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
  private static Map<String, String> packed(Path commonDir, Set<String> refs) {
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
      bytes = upTo(file, (int) PACKED_REFS_MAX_BYTES);
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
    String[] lines = new String(bytes, StandardCharsets.ISO_8859_1).split("\n");
    if (!lines[0].startsWith("# pack-refs with:")) {
      return null;
    }
    Map<String, String> ids = new LinkedHashMap<>();
    String previous = null;
    boolean afterRef = false;
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.startsWith("^")) {
        if (!afterRef || !ID.matcher(line.substring(1)).matches()) {
          return null;
        }
        afterRef = false;
        continue;
      }
      int space = line.indexOf(' ');
      if (space < 0 || !ID.matcher(line.substring(0, space)).matches()) {
        return null; // not the format this reader knows
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

  private static boolean reachesHere(Path commonDir, String from, String ancestor, int limit) {
    if (Files.exists(commonDir.resolve("info/grafts"), NOFOLLOW)
        || Files.exists(commonDir.resolve("shallow"), NOFOLLOW)) {
      return false; // git's log reads parents through these, the objects alone do not say
    }
    java.util.ArrayDeque<String> next = new java.util.ArrayDeque<>(List.of(from));
    Set<String> seen = new java.util.HashSet<>(next);
    while (!next.isEmpty() && seen.size() <= limit) {
      List<String> parents = parentsHere(commonDir, next.poll());
      if (parents == null) {
        return false;
      }
      for (String parent : parents) {
        if (parent.equals(ancestor)) {
          return true;
        }
        if (seen.add(parent)) {
          next.add(parent);
        }
      }
    }
    return false;
  }

  private static List<String> parentsHere(Path commonDir, String id) {
    String text = looseCommitText(commonDir, id);
    if (text == null) {
      return null;
    }
    int length = id.length();
    List<String> parents = new ArrayList<>();
    String[] lines = text.substring(text.indexOf('\0') + 1).split("\n", -1);
    if (lines.length < 2 || !lines[0].startsWith("tree ")) {
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

  /** {@code id} when it is a loose commit object of {@code commonDir}'s ({@link #looseCommitText}); else empty. */
  private static Optional<String> looseCommit(Path commonDir, String id) {
    return looseCommitText(commonDir, id) != null ? Optional.of(id) : Optional.empty();
  }

  /**
   * Loose object {@code id} inflated, header first ("commit <size>\0…"), when it is a commit whose
   * bytes hash to {@code id} by the repository's object format (so it is the object git would find
   * in a pack too, and no file an agent planted under another object's name); null otherwise, or
   * when it cannot be read here (no such loose object, a link, over {@link #OBJECT_MAX_BYTES}
   * compressed or inflated, not zlib).
   */
  private static String looseCommitText(Path commonDir, String id) {
    if (!hex(id, id.length()) || id.length() != idLength(commonDir)) {
      return null;
    }
    Path object = commonDir.resolve("objects").resolve(id.substring(0, 2)).resolve(id.substring(2));
    Inflater inflater = new Inflater();
    try {
      byte[] compressed = upTo(object, OBJECT_MAX_BYTES);
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
      byte[] bytes = upTo(commonDir.resolve("config"), 256 * 1024);
      if (bytes == null) {
        return -1;
      }
      String config = new String(bytes, StandardCharsets.UTF_8).toLowerCase(java.util.Locale.ROOT);
      if (!config.contains("objectformat")) {
        return 40;
      }
      return config.lines().map(String::strip).anyMatch(l -> l.matches("objectformat\\s*=\\s*sha256")) ? 64 : -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static boolean hex(String id, int length) {
    return id.length() == length && ID.matcher(id).matches();
  }
}
