package dev.orchestrate.workspace;

import dev.orchestrate.limits.ProcessTrees;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the git CLI as a subprocess, as a security boundary: agents share the repository's git
 * directory (its config, its refs, its {@code worktrees/}), so everything git would read from
 * there is treated as written by an agent.
 *
 * <ul>
 *   <li>The program is resolved once, to an absolute real path from the absolute entries of
 *   {@code PATH}, when orchestrate starts: never through a path an agent could swap later.</li>
 *   <li>Every inherited {@code GIT_*} variable is dropped (they point git at other repositories,
 *   programs or configuration), and git never prompts, pages or opens an editor.</li>
 *   <li>Configuration orchestrate chose wins over the repository's: hooks, the file-system monitor,
 *   signing, maintenance, submodule recursion and colour are off by fixed {@code -c} options; and
 *   the effective configuration (includes followed) is listed and every key that names a program —
 *   clean/smudge/process filters, diff and merge drivers, credential helpers, pagers, trailer
 *   commands — is overridden with an empty value through {@code GIT_CONFIG_COUNT}. At a pinned
 *   {@link Place} the listing is used again (by places of the repository reading the same files too) while every
 *   file it read is the same file, checked before each command ({@link ConfigListings}); elsewhere before each. A
 *   configuration that cannot be listed in full refuses the command.</li>
 *   <li>Where a command acts on a worktree or checkout orchestrate verified, {@link Place} pins
 *   {@code GIT_DIR}, {@code GIT_COMMON_DIR} and {@code GIT_WORK_TREE}: a {@code .git} file or
 *   {@code core.worktree} an agent rewrote is never consulted.</li>
 *   <li>Output is kept to a bounded size, and a command past its time limit is killed.</li>
 * </ul>
 *
 * <p>The git CLI rather than a Java library: it adds nothing to start-up or to the jar, and it is
 * exactly the git the user and their agents run, with the same on-disk formats and worktree
 * support. The one exception is reading a branch's tip ({@link #tips}, {@link #commit}, {@link
 * #headFromFiles}): {@link RefFiles} answers from git's files where they leave no doubt, as a
 * process is most of a worktree phase's cost.
 *
 * <p>Over 500 lines and kept whole: every git process orchestrate starts goes through here, so the
 * options, environment and configuration check around each one are in one place to review.
 */
public final class Git {
  /** How much of a command's stdout and stderr is kept each; the rest is read and dropped. */
  static final int OUTPUT_MAX_BYTES = 256 * 1024;
  /**
   * What the configuration check reads: its scopes and origins make a listing about three times
   * the configuration's keys and values, which are held to {@link #OUTPUT_MAX_BYTES} as before.
   */
  static final int LISTING_MAX_BYTES = 4 * OUTPUT_MAX_BYTES;
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);
  /** Listing the configuration reads files only: a slow one is a FIFO or a trap, not a big repository. */
  static final Duration CONFIG_TIMEOUT = Duration.ofSeconds(10);
  /** Options before every subcommand: what no repository configuration may change. */
  static final List<String> SAFE_OPTIONS = List.of(
      "-c", "core.hooksPath=/dev/null",
      "-c", "core.fsmonitor=false",
      "-c", "core.quotePath=false",
      "-c", "core.sshCommand=",
      "-c", "core.gitProxy=",
      "-c", "core.askPass=",
      "-c", "core.alternateRefsCommand=",
      "-c", "diff.external=",
      "-c", "commit.gpgSign=false",
      "-c", "tag.gpgSign=false",
      "-c", "log.showSignature=false",
      "-c", "merge.verifySignatures=false",
      "-c", "rebase.updateRefs=false",
      "-c", "rebase.autoStash=false",
      "-c", "merge.autoStash=false",
      "-c", "submodule.recurse=false",
      "-c", "status.submoduleSummary=false",
      "-c", "diff.ignoreSubmodules=all",
      "-c", "protocol.ext.allow=never",
      "-c", "color.ui=false",
      "-c", "gc.auto=0",
      "-c", "maintenance.auto=false",
      "-c", "advice.detachedHead=false",
      // the repository's own core.useReplaceRefs=true wins over GIT_NO_REPLACE_OBJECTS: an agent's
      // replace ref would then make a commit's tree read as another (its rewritten gate as the original)
      "-c", "core.useReplaceRefs=false");

  /** The configuration check: scopes and origins, so that the files read can be named. */
  private static final List<String> LIST_CONFIG = List.of("config", "--show-scope", "--show-origin", "--null",
      "--list");

  private final String executable;
  private final Duration timeout;
  private final ConfigListings listings;
  private final java.util.concurrent.atomic.AtomicLong listed = new java.util.concurrent.atomic.AtomicLong();

  /** The git on the {@code PATH}, resolved now to its real path. */
  public Git() {
    this(resolve("git", System.getenv("PATH")), DEFAULT_TIMEOUT);
  }

  public Git(String executable, Duration timeout) {
    this(executable, timeout, java.time.Clock.systemUTC());
  }

  /** With the clock that tells how recently a configuration file changed (see {@link ConfigListings}). */
  Git(String executable, Duration timeout, java.time.Clock clock) {
    this.executable = Objects.requireNonNull(executable, "executable");
    this.timeout = timeout;
    this.listings = new ConfigListings(clock, System.getenv());
  }

  /** How many times this instance has listed the configuration: for tests of the check's cache. */
  long listings() {
    return listed.get();
  }

  /**
   * Where a command runs, with the repository pinned: {@code GIT_DIR}, {@code GIT_COMMON_DIR} and
   * (when not null) {@code GIT_WORK_TREE}. Build one only from paths orchestrate verified.
   */
  public record Place(Path dir, Path gitDir, Path commonDir, Path workTree) {
    public Place {
      Objects.requireNonNull(dir, "dir");
      Objects.requireNonNull(gitDir, "gitDir");
      Objects.requireNonNull(commonDir, "commonDir");
    }

    /** The repository itself, with no work tree: refs, objects, the worktree registry. */
    public static Place repository(Path commonDir) {
      return new Place(commonDir, commonDir, commonDir, null);
    }
  }

  /** What a git command printed and how it exited. */
  public record Result(int exitCode, String out, String err) {
    public boolean ok() {
      return exitCode == 0;
    }

    /** stdout without its trailing newline. */
    public String line() {
      return out.strip();
    }

    /** The first line of stderr (or stdout), for an error message. */
    public String reason() {
      String text = err.isBlank() ? out : err;
      String first = text.strip().lines().filter(l -> !l.isBlank()).findFirst().orElse("exit code " + exitCode);
      return first.length() > 300 ? first.substring(0, 300) + "..." : first;
    }

    /**
     * The operator's message when git failed on a lock file it could not create: which file, and
     * that it is either held by a git command running now or left by one that was killed.
     */
    public java.util.Optional<String> lockHeld() {
      return lockHeld(INTEGRATES);
    }

    /** {@link #lockHeld()}, saying {@code then} (what the next run does) where it says the next run integrates. */
    public java.util.Optional<String> lockHeld(String then) {
      java.util.regex.Matcher m = LOCK_EXISTS.matcher(err);
      return m.find() ? java.util.Optional.of(lockMessage(m.group(1), then)) : java.util.Optional.empty();
    }
  }

  private static final java.util.regex.Pattern LOCK_EXISTS = java.util.regex.Pattern
      .compile("Unable to create '([^']+\\.lock)': File exists");

  private static final String INTEGRATES = "the next run integrates";

  /** What a lock file left in the user's repository means, and what to do about it. */
  public static String lockMessage(String lock) {
    return lockMessage(lock, INTEGRATES);
  }

  /** {@link #lockMessage(String)}, ending with {@code then}: what the next run does once it is gone. */
  public static String lockMessage(String lock, String then) {
    return "git's lock file " + lock + " exists: a git command is running there now, or one was killed and left "
        + "it; if no git command is running, delete " + lock + " (orchestrate never deletes a lock in your "
        + "repository); " + then;
  }

  /**
   * The commit {@code ref} names at {@code place}, or null when it names none: read from the ref's
   * file when that leaves no doubt ({@link RefFiles}), else by {@code git rev-parse}.
   */
  public String commit(Place place, String ref) {
    String read = RefFiles.commit(place.commonDir(), ref);
    if (read != null) {
      return read; // "no such ref" is left to rev-parse, which also tries the names a short one means
    }
    Result r = run(place, "rev-parse", "--verify", "--quiet", ref + "^{commit}");
    return r.ok() ? r.line() : null;
  }

  /** HEAD at a place: its commit and the full name of the branch it is on. */
  public record Head(String commit, String ref) {
  }

  /** HEAD at {@code place} read from its files ({@link RefFiles}); null when they leave doubt: ask git then. */
  public Head headFromFiles(Place place) {
    String ref = RefFiles.headRef(place.gitDir());
    String tip = ref == null ? null : RefFiles.commit(place.commonDir(), ref);
    return tip != null ? new Head(tip, ref) : null;
  }

  /** {@code from}'s ancestors within {@code limit} commits, as loose commits say ({@link RefFiles#ancestors}): each one certain, the set maybe partial. */
  public java.util.Set<String> ancestorsInFiles(Place place, String from, int limit) {
    return RefFiles.ancestors(place.commonDir(), from, limit);
  }

  /** The parents of loose commit {@code id} ({@link RefFiles#parents}); null: ask git. */
  public List<String> parentsInFiles(Place place, String id) {
    return RefFiles.parents(place.commonDir(), id);
  }

  /** Loose commit {@code id}'s parents and message from one read ({@link RefFiles#parentsAndMessage}); null: ask git. */
  public Commit commitInFiles(Place place, String id) {
    RefFiles.LooseCommit read = RefFiles.parentsAndMessage(place.commonDir(), id);
    return read == null ? null : new Commit(read.parents(), read.message());
  }

  /** A commit's parents, in order, and its message. */
  public record Commit(List<String> parents, String message) {
  }

  /** The commit {@code ref} names when its files say so ({@link RefFiles}); null: ask git. */
  public String tipInFiles(Place place, String ref) {
    return RefFiles.commit(place.commonDir(), ref);
  }

  /**
   * The commits of full ref names; null: no such ref. Read from the ref files where they leave no
   * doubt ({@link RefFiles}); the rest by one for-each-ref ({@link #commit}: a process each), a ref
   * naming no commit itself (a tag) peeled by {@link #commit}. Names match exactly, not as patterns.
   */
  public Map<String, String> tips(Place place, List<String> refs) {
    Map<String, String> tips = new LinkedHashMap<>();
    refs.forEach(ref -> tips.put(ref, null));
    Map<String, Optional<String>> read = RefFiles.tips(place.commonDir(), tips.keySet());
    if (read.size() == tips.size()) {
      read.forEach((ref, tip) -> tips.put(ref, tip.orElse(null)));
      return tips;
    }
    List<String> args = new ArrayList<>(List.of("for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)",
        "--"));
    args.addAll(tips.keySet());
    List<String> peel = new ArrayList<>();
    for (String line : ok(place, args.toArray(String[]::new)).out().split("\n")) {
      String[] parts = line.split("\0", -1);
      if (parts.length == 3 && tips.containsKey(parts[0])) {
        boolean commit = parts[2].equals("commit") && parts[1].matches("[0-9a-f]{40,64}");
        tips.put(parts[0], commit ? parts[1] : null);
        if (!commit) {
          peel.add(parts[0]);
        }
      }
    }
    peel.forEach(ref -> tips.put(ref, commit(place, ref)));
    return tips;
  }

  /** The files a rebase or merge at {@code place} left conflicting (at most 50). */
  public List<String> conflicts(Place place) {
    return run(place, "diff", "--name-only", "--diff-filter=U", "--no-ext-diff").out().lines()
        .filter(l -> !l.isBlank()).distinct().limit(50).toList();
  }

  /** Runs {@code git -C dir args...}, git finding the repository itself; for discovery only. */
  public Result run(Path dir, String... args) {
    return run(dir, Map.of(), List.of(args));
  }

  /** Runs {@code git -C dir args...}; throws unless it exited 0. */
  public Result ok(Path dir, String... args) {
    return checked(dir.toString(), args, run(dir, args));
  }

  /** Runs a command at a verified place, the repository pinned. */
  public Result run(Place place, String... args) {
    return run(place, Map.of(), List.of(args));
  }

  /** Like {@link #run(Place, String...)}; throws unless it exited 0. */
  public Result ok(Place place, String... args) {
    return checked(place.dir().toString(), args, run(place, args));
  }

  /** Like {@link #run(Place, Map, List)}; throws unless it exited 0. */
  public Result ok(Place place, Map<String, String> env, List<String> args) {
    return checked(place.dir().toString(), args.toArray(String[]::new), run(place, env, args));
  }

  public Result run(Path dir, Map<String, String> env, List<String> args) {
    return execute(dir, null, env, args);
  }

  /**
   * Runs {@code git -C place.dir args...} with extra environment (an author, say).
   *
   * @throws GitException when git cannot be started, its configuration cannot be listed, or it does
   *                      not finish within the time limit
   */
  public Result run(Place place, Map<String, String> env, List<String> args) {
    return execute(place.dir(), place, env, args);
  }

  private static Result checked(String where, String[] args, Result result) {
    if (!result.ok()) {
      throw new GitException("git " + String.join(" ", args) + " failed in " + where + ": " + result.reason());
    }
    return result;
  }

  private Result execute(Path dir, Place place, Map<String, String> env, List<String> args) {
    return spawn(dir, prepared(dir, place, env), args, timeout);
  }

  /**
   * The environment of a command at {@code dir}: {@link #environment}, every program the listed
   * configuration names switched off, then {@code env}.
   */
  private Map<String, String> prepared(Path dir, Place place, Map<String, String> env) {
    Map<String, String> base = new LinkedHashMap<>(environment(place));
    Map<String, String> neutral = place == null ? null : listings.overrides(place);
    if (neutral == null) {
      neutral = listed(dir, place, base).overrides();
    }
    base.put("GIT_CONFIG_COUNT", Integer.toString(neutral.size()));
    int i = 0;
    for (Map.Entry<String, String> e : neutral.entrySet()) {
      base.put("GIT_CONFIG_KEY_" + i, e.getKey());
      base.put("GIT_CONFIG_VALUE_" + i, e.getValue());
      i++;
    }
    base.putAll(env);
    return base;
  }

  /** What a listing of the configuration gave: the overrides it calls for, and its {@link ConfigListings#steering} entries. */
  private record Listing(Map<String, String> overrides, String steering) {
  }

  /** Lists the configuration seen from {@code dir}: the overrides it calls for, kept for {@code place}. */
  private Listing listed(Path dir, Place place, Map<String, String> base) {
    ConfigListings.Before before = place == null ? null : listings.before(place);
    listed.incrementAndGet();
    Result config = spawn(dir, base, LIST_CONFIG, listingLimit(), LISTING_MAX_BYTES);
    if (!config.ok() && !config.err().isBlank()) {
      // git refuses a broken configuration for every command alike: say so once, clearly
      throw new GitException("git cannot read the repository's configuration in " + dir + ": " + config.reason());
    }
    // kept to its cap means cut (a character cut in two decodes to one of three bytes)
    boolean cut = config.out().getBytes(StandardCharsets.UTF_8).length >= LISTING_MAX_BYTES - 4;
    if (cut || ConfigListings.settingsBytes(config.out()) >= OUTPUT_MAX_BYTES) {
      throw new GitException("the git configuration seen from " + dir + " is larger than "
          + OUTPUT_MAX_BYTES / 1024 + " KiB: orchestrate will not run git on a configuration it cannot read in full");
    }
    List<ConfigListings.Setting> settings = ConfigListings.parse(config.out());
    Map<String, String> neutral = ConfigListings.overrides(settings, textMerge());
    // only from a listing git finished: one that failed without a word may be cut short, and an
    // empty steering pinned at a run's start would refuse every later fetch as a change
    String steering = config.ok() ? ConfigListings.steering(config.out()) : null;
    if (place != null) {
      listings.keep(place, before, settings, neutral, steering, () -> spawn(dir, base,
          List.of("config", "--system", "--show-origin", "--null", "--list"), listingLimit()));
    }
    return new Listing(neutral, steering);
  }

  /**
   * The configuration at {@code place} that steers where and how a fetch or push to {@code remote}
   * goes: {@code url.*} (rewrites like {@code insteadOf}), {@code http.*} (a proxy, certificate
   * checks, extra headers) and {@code remote.<remote>.*}, each entry as git lists it, in its order,
   * each followed by a NUL; null when there are more than {@link ConfigListings#STEERING_MAX_CHARS}
   * characters of them (the caller asks git for them itself). Taken from the listing the
   * configuration check keeps for {@code place} while every file it read is unchanged, for at most
   * 2 s ({@link ConfigListings}), else from a new listing, which the check before the next command
   * at {@code place} uses in turn when it can be kept: comparing these before each fetch and push
   * costs no process of its own (it was a {@code config --get-regexp} each, six a phase with
   * {@code landing: remote}).
   *
   * @throws GitException as the configuration check does: git cannot read the configuration, or it
   *                      is too large to read in full
   */
  String steering(Place place, String remote) {
    ConfigListings.KeptSteering kept = listings.steering(place);
    String entries = kept.kept() ? kept.entries()
        : listed(place.dir(), place, new LinkedHashMap<>(environment(place))).steering();
    if (entries == null) {
      return null;
    }
    String own = "remote." + remote + ".";
    StringBuilder out = new StringBuilder();
    for (String entry : entries.split("\0")) {
      if (entry.startsWith("url.") || entry.startsWith("http.") || entry.startsWith(own)) {
        out.append(entry).append('\0');
      }
    }
    return out.toString();
  }

  private Duration listingLimit() {
    return timeout.compareTo(CONFIG_TIMEOUT) < 0 ? timeout : CONFIG_TIMEOUT;
  }

  /** The environment of every git command: nothing inherited that steers git, the place pinned. */
  static Map<String, String> environment(Place place) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("GIT_TERMINAL_PROMPT", "0");
    env.put("GIT_EDITOR", "true");
    env.put("GIT_SEQUENCE_EDITOR", "true");
    env.put("GIT_PAGER", "cat");
    env.put("GIT_OPTIONAL_LOCKS", "0");
    env.put("GIT_NO_REPLACE_OBJECTS", "1");
    env.put("GIT_ATTR_NOSYSTEM", "1");
    env.put("LC_ALL", "C");
    if (place != null) {
      env.put("GIT_DIR", place.gitDir().toString());
      env.put("GIT_COMMON_DIR", place.commonDir().toString());
      if (place.workTree() != null) {
        env.put("GIT_WORK_TREE", place.workTree().toString());
      }
    }
    return env;
  }

  /**
   * git's own three-way text merge as a merge driver ({@code git merge-file}, by this git's real
   * path): a conflict leaves markers and a non-zero exit, as git's built-in merge does.
   */
  private String textMerge() {
    return executable.indexOf('\'') >= 0 || !executable.startsWith("/") ? ""
        : "'" + executable + "' merge-file -q %A %O %B";
  }

  private Result spawn(Path dir, Map<String, String> env, List<String> args, Duration limit) {
    return spawn(dir, env, args, limit, OUTPUT_MAX_BYTES);
  }

  private Result spawn(Path dir, Map<String, String> env, List<String> args, Duration limit, int maxOut) {
    String what = "git " + String.join(" ", args);
    Process process = start(dir, env, args);
    CompletableFuture<String> out = drain(process.getInputStream(), maxOut, "git-output");
    CompletableFuture<String> err = drain(process.getErrorStream());
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        ProcessTrees.kill(process);
        throw new GitException(what + " in " + dir + " did not finish within " + limit.toSeconds() + " s");
      }
      return new Result(process.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      ProcessTrees.kill(process); // a push's receive-pack and the remote's hooks with it
      Thread.currentThread().interrupt();
      throw new GitException(what + " was interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new GitException("could not read the output of " + what + ": " + e, e);
    }
  }

  /** What a streamed command came to: see {@link #stream}. */
  public record Streamed(int exitCode, String err, long bytes, boolean cut) {
    /** Exited 0, or was stopped because its output passed the cap (all that was wanted was read). */
    public boolean ok() {
      return exitCode == 0 || cut;
    }

    /** The first line of stderr, for an error message. */
    public String reason() {
      return new Result(exitCode, "", err).reason();
    }
  }

  /**
   * Runs a command at a verified place, as {@link #run(Place, String...)} does, handing its stdout
   * to {@code sink} as git writes it, never more than {@code maxBytes}: at the cap git is stopped
   * and the result says {@code cut} (only when there was more). Nothing of the output is held here,
   * so a diff of any size costs a buffer. The time limit counts git's time, not the time
   * {@code sink} spent writing (a pager the user reads in).
   *
   * @throws IOException  when {@code sink} failed (a pager that quit): git is stopped first
   * @throws GitException when git cannot be started, its configuration cannot be listed, or it
   *                      does not finish within the time limit
   */
  public Streamed stream(Place place, List<String> args, long maxBytes, java.io.OutputStream sink)
      throws IOException {
    Process process = start(place.dir(), prepared(place.dir(), place, Map.of()), args);
    CompletableFuture<String> err = drain(process.getErrorStream());
    StreamClock clock = new StreamClock(process, timeout);
    long total = 0;
    boolean cut = false;
    try (InputStream in = process.getInputStream()) {
      byte[] buffer = new byte[8192];
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        int keep = (int) Math.min(n, maxBytes - total);
        if (keep > 0) {
          clock.writing(true);
          sink.write(buffer, 0, keep);
          clock.writing(false);
          total += keep;
        }
        if (keep < n) {
          cut = true;
          break;
        }
      }
    } catch (IOException e) {
      ProcessTrees.kill(process);
      throw e;
    } finally {
      clock.stop();
    }
    return ended(process, err, args, clock, total, cut);
  }

  private Streamed ended(Process process, CompletableFuture<String> err, List<String> args, StreamClock clock,
      long total, boolean cut) {
    String what = "git " + String.join(" ", args);
    if (cut) {
      ProcessTrees.kill(process);
    }
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        ProcessTrees.kill(process);
      }
      if (clock.expired()) {
        throw new GitException(what + " did not finish within " + timeout.toSeconds() + " s");
      }
      return new Streamed(process.isAlive() ? -1 : process.exitValue(), err.get(10, TimeUnit.SECONDS), total, cut);
    } catch (InterruptedException e) {
      ProcessTrees.kill(process);
      Thread.currentThread().interrupt();
      throw new GitException(what + " was interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new GitException("could not read the errors of " + what + ": " + e, e);
    }
  }

  /** Starts {@code git -C dir SAFE_OPTIONS args...} with {@code env}, stdin empty. */
  private Process start(Path dir, Map<String, String> env, List<String> args) {
    dev.orchestrate.limits.LoopThread.slowWork(args.isEmpty() ? "git" : "git " + args.get(0));
    List<String> argv = new ArrayList<>();
    argv.add(executable);
    argv.add("-C");
    argv.add(dir.toString());
    argv.addAll(SAFE_OPTIONS);
    argv.addAll(args);
    // In a session of its own: a Ctrl-C stops the run, which stops git with its tree (a push and
    // the remote's hooks), never git alone behind the run's back.
    ProcessBuilder builder = new ProcessBuilder(ProcessTrees.inOwnSession(argv));
    Map<String, String> environment = builder.environment();
    environment.keySet().removeIf(k -> k.startsWith("GIT_"));
    environment.putAll(env);
    try {
      return builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
    } catch (IOException e) {
      throw new GitException("could not run git (" + executable + "): " + e.getMessage()
          + "; install git or put it on the PATH", e);
    }
  }

  /**
   * The real path of {@code program} in the first absolute {@code PATH} entry that has it as an
   * executable file; the name itself (for the error at its first use) when none does. Relative
   * entries ({@code .}, {@code bin}) are skipped: they would name a file in whatever directory
   * orchestrate stands in, which an agent's commit may have filled.
   */
  static String resolve(String program, String path) {
    return ProcessTrees.onAbsolutePath(program, path).map(Path::toString).orElse(program);
  }

  /** Reads a stream to its end on a daemon thread, keeping the first {@link #OUTPUT_MAX_BYTES}. */
  private static CompletableFuture<String> drain(InputStream in) {
    return drain(in, OUTPUT_MAX_BYTES, "git-output");
  }

  /**
   * The threads that read git's output, kept for the next command's: a thread started for each of a
   * command's two streams was 2.5 % of a worktree run's CPU (docs/benchmarks.md, "Fifth round").
   * A stream held open by something git left running keeps its thread; the next gets another.
   */
  private static final ExecutorService OUTPUT_READERS = Executors.newCachedThreadPool(task -> {
    Thread thread = new Thread(task, "git-output");
    thread.setDaemon(true);
    return thread;
  });

  /**
   * Reads a process's stream to its end on a daemon thread (named {@code thread} while it reads),
   * keeping the first {@code maxBytes} (the rest is read and dropped, so the process never blocks on
   * a full pipe).
   */
  public static CompletableFuture<String> drain(InputStream in, int maxBytes, String thread) {
    return CompletableFuture.supplyAsync(() -> {
      Thread.currentThread().setName(thread);
      try {
        return readKeeping(in, maxBytes);
      } finally {
        Thread.currentThread().setName("git-output");
      }
    }, OUTPUT_READERS);
  }

  /** {@code in} to its end, the first {@code maxBytes} kept as text. */
  private static String readKeeping(InputStream in, int maxBytes) {
    ByteArrayOutputStream kept = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try (in) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        int room = maxBytes - kept.size();
        if (room > 0) {
          kept.write(buffer, 0, Math.min(room, n));
        }
      }
    } catch (IOException e) {
      // the process went away: what was read is what there is
    }
    return kept.toString(StandardCharsets.UTF_8);
  }

}
