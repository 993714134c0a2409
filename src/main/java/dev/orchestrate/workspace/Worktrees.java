package dev.orchestrate.workspace;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.Placement;
import dev.orchestrate.item.WorkspaceUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A git worktree and branch per item (docs/workspaces.md): {@code <state>/worktrees/<ID>} on
 * {@code orchestrate/<ID>}, created from the base branch when the item first runs a phase.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>Every attempt starts from the item's last phase commit: tracked files are reset to it and
 *   untracked files removed ({@code git clean -ffd}: ignored files — build outputs, installed
 *   dependencies — survive, so a retry does not rebuild the world; they are derived from tracked
 *   files and never committed).</li>
 *   <li>A successful phase becomes exactly one commit on the branch, made by orchestrate with
 *   {@code git add -A}. An agent that committed itself, moved HEAD or left a rebase half-done has
 *   its branch put back: HEAD is pointed at {@code orchestrate/<ID>}, the branch reset (soft) to
 *   the last phase commit, so whatever the agent committed is squashed into the phase commit.</li>
 *   <li>The database is the truth: the phase commit is recorded pending, and becomes the item's
 *   start only when its job is recorded as completed (see {@link WorkspaceStore}).</li>
 * </ul>
 * Every git command runs with hooks off (see {@link Git}) and against the worktree's own
 * administrative directory, checked before anything destructive: an agent that deleted or
 * replaced the worktree's {@code .git} file cannot make orchestrate reset the user's checkout.
 *
 * <p>How a done item's work lands (integration, push, checks) is {@code landing/}'s: it reaches a
 * worktree only through {@link #restored}, {@link #verified} and {@link #remove}, and the base
 * branches through {@link #bases}, so that the guard and the base watch stay here.
 */
public final class Worktrees implements ItemWorkspaces {
  private static final Logger log = LoggerFactory.getLogger(Worktrees.class);
  public static final String BRANCH_PREFIX = "orchestrate/";

  private final Git git;
  private final Repository repo;
  private final WorkspaceConfig config;
  private final RetentionConfig.WorktreePolicy retention;
  private final WorkspaceStore store;
  private final Path root;
  private final Clock clock;
  /** The user's checkout, the repository pinned: where repository-wide commands run. */
  private final Git.Place checkout;
  private final BaseRefs bases;
  /** Set by {@link #open()}, from real paths taken before any agent of this run worked. */
  private WorktreeGuard guard;
  /** Where the work of several clones meets ({@code execution.landing: remote}); null: this checkout's branches. */
  private SharedRemote remote;
  /** {@code host:path} of this runner's checkout, recorded with each worktree it makes; null: not recorded. */
  private String where;

  /**
   * @param root where the worktrees go ({@code <state>/worktrees}); created, with a
   *             {@code .gitignore} of {@code *} so that the user's {@code git add -A} in the main
   *             checkout never picks the nested worktrees up
   */
  public Worktrees(Git git, Repository repo, WorkspaceConfig config, RetentionConfig.WorktreePolicy retention,
      WorkspaceStore store, Path root, Clock clock) {
    this.git = Objects.requireNonNull(git, "git");
    this.repo = Objects.requireNonNull(repo, "repo");
    this.config = Objects.requireNonNull(config, "config");
    this.retention = Objects.requireNonNull(retention, "retention");
    this.store = Objects.requireNonNull(store, "store");
    this.root = root.toAbsolutePath().normalize();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.checkout = repo.checkout();
    this.bases = new BaseRefs(git, checkout);
  }

  /**
   * Prepares the worktrees directory and settles what a crashed run left pending. The state
   * directory gets a {@code .gitignore} of {@code *} when it has none: inside the repository it
   * would otherwise show up in the user's {@code git status}, worktrees and database included.
   */
  public Worktrees open() {
    prepareRoot();
    int dropped = store.settlePending(clock.instant());
    if (dropped > 0) {
      log.info("{} phase commit(s) of jobs that did not complete were dropped", dropped);
    }
    prune();
    bases.watch(repo.baseBranch());
    CopiedFiles.check(git, repo, config.copy());
    pinRemote();
    return this;
  }

  /** The worktrees' directory and the state's {@code .gitignore}s made, and the guard set on its real path. */
  private void prepareRoot() {
    try {
      Files.createDirectories(root);
      Path stateIgnore = root.getParent().resolve(".gitignore");
      if (!Files.exists(stateIgnore)) {
        Files.writeString(stateIgnore, "# orchestrate's state: never part of the repository\n*\n",
            StandardCharsets.UTF_8);
      }
      Path ignore = root.resolve(".gitignore");
      if (!Files.isRegularFile(ignore)) {
        Files.writeString(ignore, "# orchestrate's worktrees: never part of the repository\n*\n",
            StandardCharsets.UTF_8);
      }
      if (Files.isSymbolicLink(root) || !Files.isDirectory(root, WorktreeGuard.NOFOLLOW)) {
        throw new WorkspaceSetupException(root + " is not a directory orchestrate made" + WorktreeGuard.describe(root)
            + ": remove it, and orchestrate makes it again");
      }
      guard = new WorktreeGuard(root.toRealPath(), repo.commonDir());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + root, e);
    }
  }

  /** With {@code execution.landing: remote}, pins the remote now, before any agent of this run worked. */
  void pinRemote() {
    if (remote == null && config.landsOnRemote()) {
      remote = SharedRemote.pin(git, repo, config.remote());
    }
  }

  /**
   * The remote where work meets ({@code execution.landing: remote}, pinned by {@link #open()}): every
   * phase commit is pushed to it before its job counts, a worktree this clone lacks is made from it,
   * and new worktrees start from its base branch. Null when work meets in this checkout.
   */
  public SharedRemote remote() {
    return remote;
  }

  /**
   * Records {@code checkout} ({@code host:path}) as where each worktree this runner makes is, for
   * status on a state several checkouts share.
   */
  public Worktrees placedAt(String checkout) {
    this.where = checkout;
    return this;
  }

  /** Records where the item's new worktree is, and where its work goes, for status. */
  private void placed(String itemId) {
    if (where != null || remote != null) {
      store.place(itemId, new WorkspacePlace(where, remote == null ? null
          : remote.name() + " " + SharedRemote.itemRef(itemId)), clock.instant());
    }
  }

  /** The repository the worktrees belong to. */
  public Repository repository() {
    return repo;
  }

  /** The base branches' watch: landing reads and moves them through it, so that an agent's move is told from ours. */
  public BaseRefs bases() {
    return bases;
  }

  /** Checks the base branches against the worktrees of the items at work ({@link BaseRefs#check}). */
  public void checkBases() {
    bases.check(atWork());
  }

  /** The real path of the worktrees' directory, once {@link #open()}ed: no work tree of the user's is there. */
  public Path guardRoot() {
    return guard.root();
  }

  /**
   * With {@code execution.landing: remote}, what this clone keeps of items it does not work on any
   * more (another runner continued them after this one died, or landed them): each worktree and
   * local branch {@code orchestrate/<ID>} whose work is on the remote (its tip is in the item's last
   * recorded phase commit, or published from here) is removed, with the uncommitted files of the
   * attempt this runner was running when it died (its phase runs again wherever the item is
   * continued); one that holds commits the remote lacks is kept and reported. Items this clone's worktree is at work on, and finished ones it
   * keeps for a person (blocked, not landed), are left alone. One line each, for the operator.
   */
  public List<String> cleanUp() {
    if (remote == null) {
      return List.of();
    }
    java.util.Set<String> ids = new java.util.TreeSet<>();
    for (String line : git.ok(checkout, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads/" + BRANCH_PREFIX)
        .out().lines().toList()) {
      if (line.startsWith(BRANCH_PREFIX)) {
        ids.add(line.substring(BRANCH_PREFIX.length()));
      }
    }
    try (var dirs = Files.list(root)) {
      dirs.filter(d -> Files.isDirectory(d, WorktreeGuard.NOFOLLOW)).map(d -> d.getFileName().toString())
          .filter(name -> !name.startsWith("+")).forEach(ids::add);
    } catch (IOException e) {
      return List.of("could not list " + root + ": " + e.getMessage());
    }
    List<String> lines = new ArrayList<>();
    for (String id : ids) {
      WorkspaceRecord ws = store.workspace(id).orElse(null);
      if (ws != null && ws.onDisk() && mine(ws)
          && (ws.finishedAt() == null || ws.integration() != WorkspaceRecord.Integration.INTEGRATED)) {
        continue; // this clone's worktree of an item at work, or kept for a person
      }
      String line = cleanUp(id, ws);
      if (line != null) {
        lines.add(line);
      }
    }
    return lines;
  }

  private String cleanUp(String id, WorkspaceRecord ws) {
    String branch = BRANCH_PREFIX + id;
    Path path = root.resolve(id).normalize();
    String tip = git.commit(checkout, "refs/heads/" + branch);
    // on the remote: in the item's recorded work, or published from here (then rebased or squashed as it landed)
    String published = git.commit(checkout, SharedRemote.itemRef(id));
    try {
      if (ws != null && !remote.has(ws.headCommit())) {
        available(ws);
      }
      boolean onRemote = (ws == null ? tip == null : replaceable(id, tip, ws.headCommit()))
          || (published != null && ancestor(tip, published));
      boolean tree = Files.isDirectory(path, WorktreeGuard.NOFOLLOW);
      if (!onRemote) {
        return id + ": kept " + (tree ? "the worktree " + path + " and " : "") + "branch " + branch + ", at " + tip
            + ", which " + remote.name() + " does not have (" + (ws == null ? "the state has no such item"
                : "the item's recorded work is " + ws.headCommit())
            + "): look at it, and delete it once you have "
            + "what you want from it (git worktree remove --force " + path + "; git branch -D " + branch + ")";
      }
      // uncommitted files there are an interrupted attempt's, which the item's holder runs again
      forget(path);
      if (tip != null) {
        git.ok(checkout, "branch", "--quiet", "-D", branch);
      }
      git.run(checkout, "update-ref", "-d", SharedRemote.itemRef(id));
      git.run(checkout, "update-ref", "-d", "refs/orchestrate-remote/" + id);
      return id + ": removed this clone's " + (tip == null ? "worktree" : "worktree and branch " + branch)
          + " (its work is on " + remote.name() + (ws == null ? "" : " at " + abbrev(ws.headCommit())) + ")";
    } catch (GitException | IOException | UncheckedIOException | WorktreeGuard.Breach
        | WorkspaceUnavailableException e) {
      return id + ": could not clean up this clone's worktree and branch " + branch + ": " + e.getMessage();
    }
  }

  private static String abbrev(String commit) {
    return commit.substring(0, Math.min(12, commit.length()));
  }

  /**
   * The item's worktree on disk, made again at its branch's last phase commit when retention removed
   * it or it was lost.
   */
  public WorkspaceRecord restored(WorkspaceRecord ws) throws IOException {
    if (!ws.onDisk() || !mine(ws) || WorktreeGuard.missing(ws.path())) {
      return recreate(ws);
    }
    String tip = git.commit(checkout, "refs/heads/" + ws.branch());
    if (tip != null && !tip.equals(ws.headCommit()) && remote != null
        && replaceable(ws.itemId(), tip, ws.headCommit())) {
      // a worktree left from an earlier hold of the item, whose work another runner continued since
      available(ws);
      reset(ws);
    }
    return ws;
  }

  /**
   * Whether this clone's branch of the item, at {@code tip}, may be moved to the recorded
   * {@code head}: it is behind it, or (with a shared remote) it was published from here, so its
   * work is on the remote, continued or rebased by another runner since.
   */
  private boolean replaceable(String itemId, String tip, String head) {
    if (tip == null || ancestor(tip, head)) {
      return true;
    }
    String published = remote == null ? null : git.commit(checkout, SharedRemote.itemRef(itemId));
    return published != null && ancestor(tip, published);
  }

  /**
   * Whether the record names this runner's own worktree: the directory of its id under this
   * clone's worktrees' directory, registered in this repository. A record another runner (another
   * clone) made names a path of its own, which is never used here.
   */
  boolean mine(WorkspaceRecord ws) {
    return ws.path().equals(root.resolve(ws.itemId()).normalize()) && ws.gitDir().getParent() != null
        && ws.gitDir().getParent().equals(repo.commonDir().resolve("worktrees"));
  }

  private boolean ancestor(String older, String newer) {
    return git.run(checkout, "merge-base", "--is-ancestor", older, newer).ok();
  }

  /**
   * The item's last phase commit is in this clone: fetched from the remote's item ref (or its base
   * branch, before any phase commit) when another runner made it.
   *
   * @throws WorkspaceUnavailableException when neither has it
   */
  private void available(WorkspaceRecord ws) {
    if (remote == null || remote.has(ws.headCommit())) {
      return;
    }
    String fetched = remote.fetchItem(ws.itemId());
    if (!remote.has(ws.headCommit())) {
      remote.fetchBase(ws.baseBranch());
    }
    if (!remote.has(ws.headCommit())) {
      throw new WorkspaceUnavailableException("the last recorded phase commit of " + ws.itemId() + ", "
          + ws.headCommit() + ", is neither in this clone nor on " + remote.name() + " ("
          + SharedRemote.itemRef(ws.itemId()) + (fetched == null ? " does not exist" : " is at " + fetched)
          + "): the runner that made it did not push it; push it from that clone (git push " + remote.name() + " "
          + ws.headCommit() + ":" + SharedRemote.itemRef(ws.itemId()) + "), then unblock " + ws.itemId());
    }
  }

  /**
   * A worktree of orchestrate's own where the item's work is gated as it will land: {@code commit}
   * (the item's work on top of the base's tip) checked out detached in a new directory of the
   * worktrees' directory, {@code +land-<ID>} (never an item's: ids cannot hold a {@code +}), whatever
   * an earlier one left there removed first. Nothing of an agent's is in it but what that commit holds.
   */
  public Path landingTree(String itemId, String commit) throws IOException {
    Path path = landingPath(itemId);
    forget(path);
    git.ok(checkout, "worktree", "add", "--quiet", "--detach", "--force", path.toString(), commit);
    return path;
  }

  /** Removes the item's landing tree ({@link #landingTree}), if there is one. */
  public void dropLandingTree(String itemId) {
    try {
      forget(landingPath(itemId));
    } catch (IOException | GitException | WorktreeGuard.Breach e) {
      log.warn("{}: could not remove its landing tree: {}", itemId, e.getMessage());
    }
  }

  private Path landingPath(String itemId) {
    Path path = root.resolve("+land-" + itemId).normalize();
    if (!root.equals(path.getParent())) {
      throw new WorkspaceUnavailableException("item id '" + itemId + "' names no directory under " + root);
    }
    return path;
  }

  /**
   * The item's worktree verified and its git state made ours again ({@link #guarded}).
   *
   * @throws WorktreeGuard.Breach when it is not the directory orchestrate made
   */
  public Git.Place verified(WorkspaceRecord ws) {
    return guarded(ws);
  }

  @Override
  public boolean destructiveRunsAlone() {
    return config.destructiveRunsAlone();
  }

  @Override
  public Placement prepare(String itemId, Path backlogDir, boolean keep) {
    return prepare(itemId, backlogDir, keep, List.of());
  }

  @Override
  public Placement prepare(String itemId, Path backlogDir, boolean keep, List<String> dependsOn) {
    try {
      WorkspaceRecord ws = store.workspace(itemId).orElse(null);
      if (ws != null && ws.finishedAt() != null) {
        store.finished(itemId, null, clock.instant()); // at work again: retention leaves it alone
        ws = store.workspace(itemId).orElseThrow();
      }
      boolean made = false;
      if (ws == null) {
        ws = create(itemId, dependsOn);
        made = true;
      } else if (!ws.onDisk() || !mine(ws) || WorktreeGuard.missing(ws.path())
          || WorktreeGuard.missing(ws.gitDir())) {
        ws = recreate(ws);
        store.setUp(itemId, null); // a new directory: its set-up (installed dependencies) is gone
        made = true;
      } else {
        available(ws);
      }
      // a worktree left from an earlier hold of the item, whose branch lacks what was recorded since, is not kept
      boolean kept = keep && !made && ws.headCommit().equals(git.commit(checkout, "refs/heads/" + ws.branch()));
      // Kept: the last attempt's edits stay for the agent that continues its session; only the
      // worktree's git state is made ours again. Else the attempt starts at the last phase commit.
      Git.Place place = kept ? guarded(ws) : reset(ws);
      CopiedFiles.into(place.workTree(), repo.top(), config.copy());
      Path workDir = guard.workDir(place.workTree(), repo.subdirectory());
      List<ProjectCommand> setup = config.setup().isEmpty()
          || store.setUpAt(itemId).isPresent() ? List.of() : config.setup();
      return new Placement(workDir, ws.path(), ws.branch(), kept, setup);
    } catch (GitException | IOException | UncheckedIOException | WorktreeGuard.Breach e) {
      throw new WorkspaceUnavailableException("could not prepare the worktree of " + itemId + ": " + e.getMessage());
    }
  }

  @Override
  public void setUp(String itemId) {
    store.setUp(itemId, clock.instant());
  }

  private WorkspaceRecord create(String itemId, List<String> dependsOn) throws IOException {
    String branch = BRANCH_PREFIX + itemId;
    Path path = root.resolve(itemId).normalize();
    // Item ids allow '.' and '..', and dots where git refuses them ("a..b", "x.lock"): such an id
    // names neither a worktree under <state>/worktrees nor a branch.
    if (!root.equals(path.getParent()) || !git.run(checkout, "check-ref-format", "refs/heads/" + branch).ok()) {
      throw new WorkspaceUnavailableException(
          "item id '" + itemId + "' cannot name a git branch (" + branch + ") or a worktree "
              + "directory: give the item an id without '..', a leading or trailing '.', or a '.lock' ending");
    }
    String baseCommit = remote == null
        ? git.ok(checkout, "rev-parse", "--verify", "refs/heads/" + repo.baseBranch() + "^{commit}").line()
        : remote.fetchBase(repo.baseBranch());
    if (baseCommit == null) {
      throw new WorkspaceUnavailableException("the base branch " + repo.baseBranch() + " is not on " + remote.name()
          + " (" + remote.where() + "), where work starts and lands with execution.landing: remote: push it (git push "
          + remote.name() + " " + repo.baseBranch() + "), then unblock " + itemId);
    }
    List<String> stack = stackedOn(dependsOn);
    String start = stack.isEmpty() ? baseCommit : stack.get(0);
    String existing = git.commit(checkout, "refs/heads/" + branch);
    if (existing != null) {
      // Left by a run that crashed between `worktree add` and recording it, or by another state
      // directory. Adopted only when it holds no work of its own; anything else is someone's.
      if (!git.run(checkout, "merge-base", "--is-ancestor", existing, start).ok()) {
        throw new WorkspaceUnavailableException(
            "branch " + branch + " already exists with commits the state does not know: "
                + "delete it (git branch -D " + branch + ") or rename it, then unblock " + itemId);
      }
      forget(path);
      git.ok(checkout, "worktree", "add", "--quiet", "--force", path.toString(), branch);
    } else {
      forget(path);
      git.ok(checkout, "worktree", "add", "--quiet", "-b", branch, path.toString(), start);
    }
    Path admin = adminDir(path);
    if (stack.size() > 1) {
      start = mergedStack(itemId, path, admin, branch, stack);
    }
    WorkspaceRecord ws = new WorkspaceRecord(itemId, path, branch, repo.baseBranch(), admin, baseCommit,
        start, null, null, null, null, DiskUsage.of(path), clock.instant(), null, null);
    store.save(ws, clock.instant());
    placed(itemId);
    log.debug("created worktree {} on {} from {}", path, branch, start);
    return ws;
  }

  /**
   * Under {@code merge: push} the base branch never moves, so an item that depends on others starts
   * from their pushed branches (stacked: docs/workspaces.md), not from the base, which lacks their
   * work: the tips of those of its dependencies that have a branch, in its {@code depends_on} order.
   */
  private List<String> stackedOn(List<String> dependsOn) {
    if (config.merge() != WorkspaceConfig.Merge.PUSH) {
      return List.of();
    }
    List<String> tips = new ArrayList<>();
    for (String dep : dependsOn) {
      store.workspace(dep).map(ws -> git.commit(checkout, "refs/heads/" + ws.branch())).filter(tip -> tip != null
          && !tips.contains(tip)).ifPresent(tips::add);
    }
    return tips;
  }

  /** Several dependencies' branches: merged into the new worktree, or the item is refused with the files. */
  private String mergedStack(String itemId, Path path, Path admin, String branch, List<String> stack) {
    Git.Place place = new Git.Place(path, admin, repo.commonDir(), path);
    List<String> args = new ArrayList<>(List.of("merge", "--quiet", "--no-ff", "--no-edit", "-m",
        itemId + ": start from its dependencies' branches"));
    args.addAll(stack.subList(1, stack.size()));
    Git.Result merge = git.run(place, config.commitAuthor().environment(), args);
    if (!merge.ok()) {
      List<String> files = git.conflicts(place);
      git.run(place, "merge", "--abort");
      throw new WorkspaceUnavailableException("the branches of " + itemId + "'s dependencies conflict"
          + (files.isEmpty() ? ": " + merge.reason() : " in " + String.join(", ", files))
          + ": merge them into one (or make one depend on the other), then unblock " + itemId);
    }
    return git.ok(place, "rev-parse", "HEAD").line();
  }

  /**
   * The worktree was removed (retention) or lost, or another runner (another clone) made it: back on
   * disk here, at this runner's own path, at the item's last recorded phase commit. A local branch
   * that holds that commit is used as it is (a person's fix on it stays); one that lacks it is moved
   * there when it is behind (left from an earlier hold of the item), and refused when it went
   * elsewhere: never a stale branch in place of the recorded work.
   */
  private WorkspaceRecord recreate(WorkspaceRecord ws) throws IOException {
    Path path = root.resolve(ws.itemId()).normalize();
    if (!root.equals(path.getParent())) {
      throw new WorkspaceUnavailableException("item id '" + ws.itemId() + "' names no directory under " + root);
    }
    forget(path);
    available(ws);
    String tip = git.commit(checkout, "refs/heads/" + ws.branch());
    if (tip != null && ancestor(ws.headCommit(), tip)) {
      git.ok(checkout, "worktree", "add", "--quiet", "--force", path.toString(), ws.branch());
    } else if (replaceable(ws.itemId(), tip, ws.headCommit())) {
      git.ok(checkout, "worktree", "add", "--quiet", "--force", "-B", ws.branch(), path.toString(), ws.headCommit());
    } else {
      throw new WorkspaceUnavailableException("branch " + ws.branch() + " in " + repo.top() + " is at " + tip
          + ", which lacks the item's last recorded phase commit " + ws.headCommit() + " (and holds commits it does "
          + "not): look at both (git log " + ws.headCommit() + "..." + tip + "), keep what you want on the branch "
          + "from " + ws.headCommit() + " or delete it (git branch -D " + ws.branch() + "), then unblock "
          + ws.itemId());
    }
    WorkspaceRecord again = new WorkspaceRecord(ws.itemId(), path, ws.branch(), ws.baseBranch(),
        adminDir(path), ws.baseCommit(), ws.headCommit(), null, null, ws.integration(), ws.note(),
        DiskUsage.of(path), ws.createdAt(), ws.finishedAt(), null);
    store.save(again, clock.instant());
    placed(ws.itemId());
    return again;
  }

  /**
   * The administrative directory git just made for the worktree at {@code path}: read from the
   * {@code .git} file {@code worktree add} wrote (no agent has run there yet) and required to be a
   * directory of the repository's {@code worktrees/}.
   */
  private Path adminDir(Path path) throws IOException {
    String pointer = Files.readString(path.resolve(".git"), StandardCharsets.UTF_8).strip();
    Path admin = Path.of(pointer.substring(pointer.indexOf(':') + 1).strip()).toRealPath();
    if (!repo.commonDir().resolve("worktrees").equals(admin.getParent())) {
      throw new GitException("git made the worktree " + path + " with its git directory at " + admin
          + ", outside " + repo.commonDir().resolve("worktrees"));
    }
    return admin;
  }

  /**
   * A directory at {@code path} that git no longer knows as a worktree is ours to delete; a link
   * there is removed itself, never followed.
   */
  private void forget(Path path) throws IOException {
    if (Files.isSymbolicLink(path)) {
      throw new WorktreeGuard.Breach("the worktree " + path + " was replaced" + WorktreeGuard.describe(path)
          + ": orchestrate will not run git there or delete through it; remove it (rm " + path + ") and try again");
    }
    if (Files.exists(path, WorktreeGuard.NOFOLLOW)) {
      if (Files.isDirectory(path, WorktreeGuard.NOFOLLOW) && path.toRealPath().getParent().equals(guard.root())) {
        WorktreeGuard.disarmRegistry(repo.commonDir());
        git.run(checkout, "worktree", "remove", "--force", "--force", path.toString());
      }
      DiskUsage.delete(path);
      prune();
    } else if (store.onDisk().stream().anyMatch(ws -> ws.path().equals(path))) {
      prune();
    }
  }

  /** {@code git worktree prune}, with every planted link in the registry removed first (git would follow it). */
  private void prune() {
    WorktreeGuard.disarmRegistry(repo.commonDir());
    git.run(checkout, "worktree", "prune");
  }

  /** Tracked files back at the last phase commit, untracked ones gone, HEAD on the item's branch. */
  private Git.Place reset(WorkspaceRecord ws) {
    Git.Place place = guarded(ws);
    git.ok(place, "reset", "--quiet", "--hard", ws.headCommit());
    git.ok(place, "clean", "-ffdq");
    return place;
  }

  /**
   * The worktree verified and its git state made ours again before we act on it: the paths are the
   * real directories orchestrate made (refused otherwise), the {@code .git} pointer and the
   * administrative files are rewritten if an agent changed them, no lock of its own or half-done
   * rebase or merge is left, and HEAD is the item's branch.
   */
  private Git.Place guarded(WorkspaceRecord ws) {
    Git.Place place = guard.verify(ws);
    git.ok(place, "symbolic-ref", "HEAD", "refs/heads/" + ws.branch());
    return place;
  }

  /**
   * Brings a blocked item's branch onto the current tip of its base branch before its next attempt
   * ({@code unblock --rebase}): see {@link Rebaser}.
   */
  public Rebase rebaseOntoBase(String itemId) {
    pinRemote();
    if (guard == null && remote != null) {
      prepareRoot(); // another clone's item: its worktree is made here
    }
    if (guard == null && Files.isDirectory(root, WorktreeGuard.NOFOLLOW)) {
      try {
        guard = new WorktreeGuard(root.toRealPath(), repo.commonDir());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + root, e);
      }
    }
    return new Rebaser(this, git, repo, store, clock, config.commitAuthor(), root).onto(itemId, guard != null);
  }

  WorkspaceRecord recreated(WorkspaceRecord ws) throws IOException {
    return recreate(ws);
  }

  Git.Place guardedPlace(WorkspaceRecord ws) {
    return guarded(ws);
  }

  @Override
  public String inspect(String itemId) {
    bases.check(atWork());
    String moved = bases.takeMove(itemId);
    if (moved != null) {
      return moved;
    }
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null || !ws.onDisk()) {
      return null;
    }
    Git.Place place;
    try {
      place = guard.verify(ws);
    } catch (WorktreeGuard.Breach e) {
      return e.getMessage();
    }
    dropAgentCommits(ws, place);
    return null;
  }

  /**
   * The item's branch is orchestrate's: a commit the agent made on it (which may hold a
   * {@code workspace.copy} secret it staged) is taken off the branch as soon as the attempt ends,
   * not only at the next phase commit or reset, so that an attempt that failed for good (the item
   * blocked, the run stopped) leaves no commit of the agent's on {@code orchestrate/<ID>}, nor on
   * the worktree's HEAD (which {@code git log --all} walks too). A soft
   * reset: the attempt's files stay in the worktree and the index, for the phase commit, the
   * resumed session, or a person to look at.
   */
  private void dropAgentCommits(WorkspaceRecord ws, Git.Place place) {
    try {
      // HEAD back on the branch (the worktree was just verified): a detached commit of the agent's is on no ref
      git.ok(place, "symbolic-ref", "HEAD", "refs/heads/" + ws.branch());
      String tip = git.commit(checkout, "refs/heads/" + ws.branch());
      if (tip != null && !tip.equals(ws.headCommit())) {
        git.ok(place, "reset", "--quiet", "--soft", ws.headCommit());
      }
    } catch (GitException e) {
      log.warn("{}: could not take the agent's commits off {}: {}", ws.itemId(), ws.branch(), e.getMessage());
    }
  }

  /** The worktrees of items at work: only their agents can have moved a base branch since the last check. */
  private List<WorkspaceRecord> atWork() {
    return store.onDisk().stream().filter(ws -> ws.finishedAt() == null).toList();
  }

  @Override
  public List<String> changedAmong(String itemId, List<String> scripts, List<String> paths) {
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null || !ws.onDisk() || (scripts.isEmpty() && paths.isEmpty())) {
      return List.of();
    }
    List<String> args = new ArrayList<>(List.of("status", "--porcelain", "-z", "--untracked-files=all",
        "--no-renames", "--ignore-submodules=all", "--"));
    for (String script : scripts) {
      Path top = repo.subdirectory().resolve(script).normalize();
      if (!top.startsWith("..") && !top.isAbsolute() && !top.toString().isEmpty()) {
        args.add(":(top,literal)" + top);
      }
    }
    paths.forEach(path -> args.add(":(top)" + path));
    Git.Place place = guarded(ws);
    List<String> changed = new ArrayList<>();
    for (String entry : nulSeparated(git.ok(place, args.toArray(String[]::new)).out())) {
      if (entry.length() > 3) {
        changed.add(entry.substring(3));
      }
    }
    return changed.stream().distinct().sorted().limit(50).toList();
  }

  @Override
  public String commit(String itemId, String phase, int attempt, long jobId, String summary) {
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null || !ws.onDisk()) {
      return null;
    }
    Git.Place place = guarded(ws);
    guard.subdirectoryProblem(place.workTree(), repo.subdirectory()).ifPresent(problem -> {
      throw new GitException(problem);
    });
    // Whatever the agent committed itself is folded into the one phase commit; after a red
    // integration round, the item's work since the base it was rebased onto is too.
    String parent = store.landingFold(itemId).orElse(ws.headCommit());
    git.ok(place, "reset", "--quiet", "--soft", parent);
    git.ok(place, "add", "--all");
    unstageIgnored(place);
    if (git.run(place, "diff", "--cached", "--quiet", "--no-ext-diff", "--no-textconv").ok()) {
      return null;
    }
    List<String> args = new ArrayList<>(List.of("commit", "--quiet", "--no-verify", "--no-edit",
        "-m", itemId + " " + phase + ": " + firstLine(summary),
        "-m", "Orchestrate-Job: " + jobId + "\nOrchestrate-Attempt: " + attempt));
    git.ok(place, config.commitAuthor().environment(), args);
    String commit = git.ok(place, "rev-parse", "HEAD").line();
    store.commitPending(itemId, commit, jobId, DiskUsage.of(ws.path()), clock.instant());
    if (remote != null) {
      // before the job counts: any runner can continue the item from here
      remote.publish(itemId, commit, ws.headCommit().equals(ws.baseCommit()) ? null : ws.headCommit());
    }
    return commit;
  }

  /**
   * What never goes into a phase commit, even when the agent staged it ({@code git add -f}, or a
   * commit of its own that the phase commit folds in): the {@code workspace.copy} files (secrets
   * like {@code .env}), and any file git ignores that the last phase commit did not have (build
   * output, installed dependencies). A file git ignores that the branch already tracks stays: the
   * user committed it on purpose.
   */
  private void unstageIgnored(Git.Place place) {
    List<String> added = nulSeparated(git.ok(place, "diff", "--cached", "--name-only", "-z", "--no-renames",
        "--diff-filter=A", "--no-ext-diff").out());
    if (added.isEmpty()) {
      return;
    }
    java.util.Set<String> ignored = new java.util.HashSet<>(nulSeparated(git.ok(place, "ls-files", "-z", "--cached",
        "--ignored", "--exclude-standard").out()));
    java.util.Set<String> copies = new java.util.HashSet<>(config.copy());
    List<String> out = added.stream().filter(f -> ignored.contains(f) || copies.contains(f)).toList();
    for (int i = 0; i < out.size(); i += 200) {
      List<String> args = new ArrayList<>(List.of("rm", "--cached", "--quiet", "--ignore-unmatch", "--"));
      args.addAll(out.subList(i, Math.min(out.size(), i + 200)));
      git.ok(place, args.toArray(String[]::new));
    }
  }

  private static List<String> nulSeparated(String text) {
    return java.util.Arrays.stream(text.split("\0")).filter(s -> !s.isEmpty()).toList();
  }

  @Override
  public void committed(String itemId) {
    store.commitConfirmed(itemId, clock.instant());
  }

  @Override
  public void blocked(String itemId) {
    store.workspace(itemId).ifPresent(ws -> store.finished(itemId, clock.instant(), clock.instant()));
  }

  /**
   * Landing moved the item's branch to {@code commit} (rebased onto the base, squashed, a red
   * integration round's tree): it is the item's new start, on the shared remote too when there is
   * one, so that any runner continues from it.
   */
  public void moved(WorkspaceRecord ws, String commit) {
    store.headMoved(ws.itemId(), commit, clock.instant());
    if (remote != null) {
      remote.publish(ws.itemId(), commit, ws.headCommit().equals(ws.baseCommit()) ? null : ws.headCommit());
    }
  }

  /** Removes a landed item's worktree from disk (its work is on the base branch or the remote; the branch stays or goes by config). */
  public void remove(WorkspaceRecord ws) {
    if (!mine(ws)) {
      store.removed(ws.itemId(), clock.instant()); // another clone's: its runner cleans it up (cleanUp)
      return;
    }
    if (WorktreeRetention.removeFromDisk(git, ws, true)) {
      store.removed(ws.itemId(), clock.instant());
    } else {
      log.warn("{}: could not remove the worktree {}", ws.itemId(), ws.path());
    }
  }

  @Override
  public void maintain() {
    new WorktreeRetention(git, store, retention, clock).sweep(clock.instant());
  }

  /** The repository's git directory, from the worktree's administrative one (…/.git/worktrees/X). */
  static Path commonDir(WorkspaceRecord ws) {
    Path parent = ws.gitDir().getParent();
    return parent != null && parent.getParent() != null ? parent.getParent() : ws.gitDir();
  }

  /** The first line of a summary or title, for a commit's subject. */
  public static String firstLine(String text) {
    if (text == null || text.isBlank()) {
      return "phase complete";
    }
    String line = text.strip().lines().findFirst().orElse("").strip();
    return line.length() > 72 ? line.substring(0, 69) + "..." : line;
  }
}
