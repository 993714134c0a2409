package dev.orchestrate.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The configuration check of {@link Git} kept between commands at one {@link Git.Place}: the
 * overrides a listing produced are used again only while every file git read for it (or would
 * have read, had it existed) is the same file as when it was listed, compared by device, inode,
 * size, modification and change time before each command. A stat costs microseconds where a
 * listing costs a process.
 *
 * <p>The files are: the system file (known from the listing's system entries, or once from git's
 * own refusal to read it when it is missing), both global files, the repository's {@code config},
 * the place's {@code config.worktree} (whether or not the repository enables it), every file an
 * entry came from, every include target (found or not, its condition true or not) and, when a
 * condition names a branch, the place's {@code HEAD}. A listing that cannot be pinned down this way
 * (an include through {@code %(prefix)} or {@code ~user}, an origin that is not a file, a target
 * that is not a regular file, an empty system file whose path git never names) is used for its
 * command and never kept: that place lists before every command, as it always did.
 *
 * <p>A listing is kept only when its files did not change while git read them: each is looked at
 * before the listing and after it, and must be the same both times and older than
 * {@link #RACY_FINE} (three seconds on a file system with whole-second times), since a write within
 * the same tick of the file system's clock could leave every attribute as it was. The first
 * listing at a place with includes only learns their names, so the next command lists again.
 *
 * <p>With each listing it keeps the entries that steer fetches and pushes ({@link #steering}, at
 * most {@value #STEERING_MAX_CHARS} characters), which the shared remote and the pusher compare with
 * what they read when the run started ({@link Git#steering}).
 */
final class ConfigListings {
  /** Places remembered, the least recently used forgotten first: a run has a few per item. */
  static final int PLACES = 64;
  /** How recent a change may be and still leave its file's next change visible in its times. */
  static final Duration RACY_FINE = Duration.ofMillis(100);
  /** The same on a file system that keeps whole seconds (or two, as FAT does). */
  static final Duration RACY_COARSE = Duration.ofSeconds(3);

  /** One entry of {@code git config --show-scope --show-origin --null --list}. */
  record Setting(String scope, String origin, String key, String value) {
    Setting {
      Objects.requireNonNull(scope, "scope");
      Objects.requireNonNull(origin, "origin");
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }
  }

  /** What a file was when looked at: {@link #ABSENT}, or its identity and times. */
  record Identity(Object fileKey, long size, FileTime modified, FileTime changed) {
    static final Identity ABSENT = new Identity("absent", -1, FileTime.fromMillis(0), FileTime.fromMillis(0));
  }

  /** The files looked at before a listing, and when. */
  record Before(Instant at, Map<Path, Identity> files) {
  }

  /**
   * A listing kept at a place. {@code shared}: it names no include and nothing of the worktree
   * scope, so it read the fixed files only (system, global, the repository's {@code config}, its
   * place's {@code config.worktree}), which every place of the same repository reads alike.
   * {@code steering}: its {@link #steering} entries, null when over {@link #STEERING_MAX_CHARS}.
   */
  private record Kept(Map<Path, Identity> files, Map<String, String> overrides, boolean trusted, Instant listedAt,
      boolean shared, String steering) {
  }

  /**
   * The most characters of a listing's {@link #steering} entries kept with it (one string of at most
   * 32 KiB, so at most 2 MiB for the {@value #PLACES} places); a listing with more keeps none, and
   * the shared remote asks git for them itself each time, as it did before they were kept.
   */
  static final int STEERING_MAX_CHARS = 16 * 1024;

  /**
   * How long a kept listing is used at most, its files unchanged or not: a write through a shared
   * memory mapping changes a file without changing its times until the kernel writes it back
   * (about 30 s), so no identity catches it; the bound keeps such a change from standing longer
   * than a burst of one phase's commands (a security review's finding).
   */
  static final Duration MAX_AGE = Duration.ofSeconds(2);

  /** Why a listing cannot be kept. */
  private static final class Unpinned extends Exception {
    Unpinned(String why) {
      super(why, null, false, false);
    }
  }

  private final Clock clock;
  private final List<Path> globalFiles;
  private final String home;
  private final Map<Git.Place, Kept> kept = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Git.Place, Kept> eldest) {
      return size() > PLACES;
    }
  };
  /** The system file once known; {@link #UNKNOWN} when git never named it. */
  private Path systemFile;
  private static final Path UNKNOWN = Path.of("/nonexistent/unknown");

  ConfigListings(Clock clock, Map<String, String> environment) {
    this.clock = clock;
    this.globalFiles = globalFiles(environment);
    this.home = environment.get("HOME");
  }

  /** git's global files: {@code $XDG_CONFIG_HOME/git/config} (or under {@code ~/.config}) and {@code ~/.gitconfig}. */
  static List<Path> globalFiles(Map<String, String> environment) {
    List<Path> files = new ArrayList<>();
    String home = environment.get("HOME");
    String xdg = environment.get("XDG_CONFIG_HOME");
    if (xdg != null && !xdg.isEmpty()) {
      files.add(Path.of(xdg, "git", "config"));
    } else if (home != null && !home.isEmpty()) {
      files.add(Path.of(home, ".config", "git", "config"));
    }
    if (home != null && !home.isEmpty()) {
      files.add(Path.of(home, ".gitconfig"));
    }
    return List.copyOf(files);
  }

  /** The overrides kept for {@code place} when every file its listing read is as it was; null otherwise. */
  synchronized Map<String, String> overrides(Git.Place place) {
    Kept k = kept.get(place);
    if (k != null && usable(k)) {
      return k.overrides();
    }
    return sibling(place);
  }

  /** Whether a kept listing is trusted, young enough, and every file it read is as it was. */
  private boolean usable(Kept k) {
    if (!k.trusted() || clock.instant().isAfter(k.listedAt().plus(MAX_AGE))) {
      return false;
    }
    for (Map.Entry<Path, Identity> file : k.files().entrySet()) {
      Identity now;
      try {
        now = identity(file.getKey());
      } catch (Unpinned e) {
        return false;
      }
      if (!now.equals(file.getValue())) {
        return false;
      }
    }
    return true;
  }

  /**
   * The overrides of a listing kept at another place of the same repository (the user's checkout,
   * say, for a worktree just made), when git at {@code place} would read exactly the files it read:
   * that listing is {@link Kept#shared} (no include, no worktree scope), usable, its own place had
   * no {@code config.worktree}, and {@code place} has none either. Then the system, global and
   * repository files, unchanged, are all either listing reads, and it would list the same settings.
   * Null when there is none.
   */
  private Map<String, String> sibling(Git.Place place) {
    Identity own;
    try {
      own = identity(place.gitDir().resolve("config.worktree"));
    } catch (Unpinned e) {
      return null;
    }
    if (!Identity.ABSENT.equals(own)) {
      return null;
    }
    for (Map.Entry<Git.Place, Kept> e : kept.entrySet()) {
      Git.Place other = e.getKey();
      Kept k = e.getValue();
      if (!other.equals(place) && k.shared() && other.commonDir().equals(place.commonDir())
          && Identity.ABSENT.equals(k.files().get(other.gitDir().resolve("config.worktree"))) && usable(k)) {
        return k.overrides();
      }
    }
    return null;
  }

  /** Looks at the files a listing at {@code place} is expected to read, before it runs. */
  synchronized Before before(Git.Place place) {
    Instant at = clock.instant();
    Set<Path> files = new LinkedHashSet<>(fixedFiles(place));
    Kept k = kept.get(place);
    if (k != null) {
      files.addAll(k.files().keySet());
    }
    Map<Path, Identity> seen = new LinkedHashMap<>();
    for (Path file : files) {
      try {
        seen.put(file, identity(file));
      } catch (Unpinned e) {
        return new Before(at, Map.of());
      }
    }
    return new Before(at, seen);
  }

  /**
   * Keeps a listing's overrides for the next command at {@code place} when its files can be named
   * and did not change while git read them; remembers the files' names in any case.
   *
   * @param steering    the listing's {@link #steering} entries (null: too many to keep)
   * @param systemProbe {@code git config --system --show-origin --null --list}, run once when the
   *                    listing had no system entry to name the system file by
   */
  synchronized void keep(Git.Place place, Before before, List<Setting> settings, Map<String, String> overrides,
      String steering, Supplier<Git.Result> systemProbe) {
    learnSystemFile(settings, systemProbe);
    Map<Path, Identity> after = new LinkedHashMap<>();
    boolean trusted = !before.files().isEmpty() && !UNKNOWN.equals(systemFile);
    try {
      for (Path file : files(place, settings)) {
        Identity now = identity(file);
        after.put(file, now);
        trusted &= now.equals(before.files().get(file)) && !racy(now, before.at());
      }
    } catch (Unpinned e) {
      kept.remove(place);
      return;
    }
    kept.put(place, new Kept(Map.copyOf(after), Map.copyOf(overrides), trusted, before.at(), placeFree(settings),
        steering));
  }

  /**
   * What {@link #steering(Git.Place)} found. {@code kept}: a listing is kept for the place and
   * usable; {@code entries}: its {@link #steering} entries, null when it had more than {@link
   * #STEERING_MAX_CHARS} characters of them (or when nothing is kept).
   */
  record KeptSteering(boolean kept, String entries) {
    static final KeptSteering NONE = new KeptSteering(false, null);
  }

  /**
   * The {@link #steering} entries of the listing kept for exactly {@code place} while every file it
   * read is as it was (never another place's).
   */
  synchronized KeptSteering steering(Git.Place place) {
    Kept k = kept.get(place);
    return k != null && usable(k) ? new KeptSteering(true, k.steering()) : KeptSteering.NONE;
  }

  /**
   * A listing's entries that steer where and how a fetch or push goes, as git printed them
   * ({@code key}, or {@code key\nvalue}: a key with no value and one with an empty value differ):
   * {@code url.*} (rewrites like {@code insteadOf}), {@code http.*} (a proxy, certificate checks,
   * extra headers) and {@code remote.*}, in the listing's order, each followed by a NUL. Null when
   * they are over {@link #STEERING_MAX_CHARS}.
   */
  static String steering(String listing) {
    String[] parts = listing.split("\0", -1);
    StringBuilder entries = new StringBuilder();
    for (int i = 0; i + 2 < parts.length; i += 3) {
      String entry = parts[i + 2];
      if (entry.startsWith("url.") || entry.startsWith("http.") || entry.startsWith("remote.")) {
        entries.append(entry).append('\0');
        if (entries.length() > STEERING_MAX_CHARS) {
          return null;
        }
      }
    }
    return entries.toString();
  }

  /** Whether a listing names no include (of any kind) and no setting of the worktree scope. */
  private static boolean placeFree(List<Setting> settings) {
    for (Setting s : settings) {
      String key = s.key().toLowerCase(Locale.ROOT);
      if (s.scope().equals("worktree") || key.startsWith("include.") || key.startsWith("includeif.")) {
        return false;
      }
    }
    return true;
  }

  /**
   * The overrides that switch off every program a listed configuration names: for each key that
   * names a program, the key with an empty value (git then runs nothing; a required filter is
   * made optional), and a configured merge driver is replaced by git's own text merge.
   *
   * @param settings  the listed configuration
   * @param textMerge the merge driver command that does what git does without one
   */
  static Map<String, String> overrides(List<ConfigListings.Setting> settings, String textMerge) {
    Map<String, String> out = new LinkedHashMap<>();
    for (ConfigListings.Setting setting : settings) {
      String key = setting.key();
      if (key.isEmpty()) {
        continue;
      }
      int first = key.indexOf('.');
      int last = key.lastIndexOf('.');
      if (first < 0) {
        continue;
      }
      String section = key.substring(0, first).toLowerCase(Locale.ROOT);
      String name = key.substring(last + 1).toLowerCase(Locale.ROOT);
      boolean sub = last > first;
      String value = switch (section) {
        case "filter" -> sub && name.equals("required") ? "false"
            : sub && (name.equals("clean") || name.equals("smudge") || name.equals("process")) ? "" : null;
        case "diff" -> sub && (name.equals("command") || name.equals("textconv")) ? "" : null;
        case "merge" -> sub && name.equals("driver") ? textMerge : null;
        case "credential" -> name.equals("helper") ? "" : null;
        case "pager" -> "false";
        case "trailer" -> sub && (name.equals("command") || name.equals("cmd")) ? "" : null;
        case "core" -> name.equals("pager") || name.equals("editor") ? "" : null;
        case "sequence" -> name.equals("editor") ? "" : null;
        case "gpg" -> name.equals("program") || name.equals("defaultkeycommand") ? "" : null;
        default -> null;
      };
      if (value != null) {
        out.put(key, value);
      }
    }
    return out;
  }

  /** The bytes of a listing's keys and values, scopes and origins left out: the configuration's size. */
  static long settingsBytes(String listing) {
    long bytes = 0;
    for (Setting s : parse(listing)) {
      bytes += s.key().length() + s.value().length() + 2;
    }
    return bytes;
  }

  /** Parses the listing: {@code scope\0origin\0key\nvalue\0}..., a key without value as empty. */
  static List<Setting> parse(String listing) {
    String[] parts = listing.split("\0", -1);
    List<Setting> settings = new ArrayList<>();
    for (int i = 0; i + 2 < parts.length; i += 3) {
      String entry = parts[i + 2];
      int newline = entry.indexOf('\n');
      String key = (newline < 0 ? entry : entry.substring(0, newline)).strip();
      String value = newline < 0 ? "" : entry.substring(newline + 1);
      settings.add(new Setting(parts[i], parts[i + 1], key, value));
    }
    return settings;
  }

  private void learnSystemFile(List<Setting> settings, Supplier<Git.Result> systemProbe) {
    if (systemFile != null) {
      return;
    }
    for (Setting s : settings) {
      if (s.scope().equals("system") && s.origin().startsWith("file:")) {
        systemFile = Path.of(s.origin().substring(5)).toAbsolutePath();
        return;
      }
    }
    Git.Result probe = systemProbe.get();
    java.util.regex.Matcher missing = java.util.regex.Pattern
        .compile("unable to read config file '([^']+)': No such file or directory").matcher(probe.err());
    if (probe.ok() && probe.out().startsWith("file:")) {
      systemFile = Path.of(probe.out().substring(5, probe.out().indexOf('\0'))).toAbsolutePath();
    } else {
      systemFile = !probe.ok() && missing.find() ? Path.of(missing.group(1)).toAbsolutePath() : UNKNOWN;
    }
  }

  /** The files read at {@code place} whatever the listing says. */
  private List<Path> fixedFiles(Git.Place place) {
    List<Path> files = new ArrayList<>();
    if (systemFile != null && !UNKNOWN.equals(systemFile)) {
      files.add(systemFile);
    }
    files.addAll(globalFiles);
    files.add(place.commonDir().resolve("config"));
    files.add(place.gitDir().resolve("config.worktree"));
    return files;
  }

  /** Every file the listing read or would read if it were there. */
  private Set<Path> files(Git.Place place, List<Setting> settings) throws Unpinned {
    Set<Path> files = new LinkedHashSet<>(fixedFiles(place));
    for (Setting s : settings) {
      if (s.origin().startsWith("file:")) {
        // Never normalize(): git opens the path as written, and the kernel resolves "lnk/.." after
        // following the link lnk, which removing "lnk/.." as text would not (a review's finding).
        Path origin = place.dir().resolve(s.origin().substring(5));
        files.add(origin);
        String key = s.key().toLowerCase(Locale.ROOT);
        boolean include = key.equals("include.path") || key.startsWith("includeif.") && key.endsWith(".path");
        if (include && !s.value().isEmpty()) {
          files.add(includeTarget(origin, s.value()));
        }
        if (key.startsWith("includeif.onbranch:")) {
          files.add(place.gitDir().resolve("HEAD"));
        }
      } else if (!s.origin().startsWith("command line:")) {
        throw new Unpinned("an entry from " + s.origin());
      }
    }
    return files;
  }

  private Path includeTarget(Path origin, String value) throws Unpinned {
    if (value.startsWith("~/")) {
      if (home == null || home.isEmpty()) {
        throw new Unpinned("~ without HOME");
      }
      return Path.of(home, value.substring(2));
    }
    if (value.startsWith("~") || value.startsWith("%(")) {
      throw new Unpinned("an include git expands itself: " + value);
    }
    Path target = Path.of(value);
    return target.isAbsolute() ? target : origin.getParent().resolve(target);
  }

  /** Whether a change this recent could be followed by one its times would not show. */
  private static boolean racy(Identity identity, Instant listedAt) {
    if (identity == Identity.ABSENT) {
      return false;
    }
    boolean coarse = identity.changed().to(TimeUnit.NANOSECONDS) % 1_000_000_000L == 0
        && identity.modified().to(TimeUnit.NANOSECONDS) % 1_000_000_000L == 0;
    Instant safe = listedAt.minus(coarse ? RACY_COARSE : RACY_FINE);
    return !identity.changed().toInstant().isBefore(safe) || !identity.modified().toInstant().isBefore(safe);
  }

  /** The file's identity, following links as git does; {@link Identity#ABSENT} when there is none. */
  private static Identity identity(Path file) throws Unpinned {
    try {
      Map<String, Object> a = Files.readAttributes(file, "unix:dev,ino,mode,size,lastModifiedTime,ctime");
      int type = ((Integer) a.get("mode")) & 0170000;
      if (type != 0100000) {
        throw new Unpinned(file + " is not a regular file");
      }
      return new Identity(List.of(a.get("dev"), a.get("ino")), (Long) a.get("size"),
          (FileTime) a.get("lastModifiedTime"), (FileTime) a.get("ctime"));
    } catch (NoSuchFileException e) {
      return Identity.ABSENT;
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      throw new Unpinned(file + ": " + e);
    }
  }
}
