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
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Lock;
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
  /** Landed items' worktrees kept for the next items', when {@link #keepingSpares}. */
  private final SpareWorktrees spares;
  private volatile boolean keepSpares;

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
    this.spares = new SpareWorktrees(git, checkout, this.root, repo.commonDir());
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
    int left = spares.dropLeftovers(layout());
    if (left > 0) {
      log.info("{} worktree(s) an earlier run kept for its next items were deleted", left);
    }
    return this;
  }

  /**
   * A landed item's worktree is kept for the next item's rather than deleted ({@link
   * SpareWorktrees}): the next item's then writes only the files that differ, where a new one writes
   * every file of the checkout and a landed one's deletion deletes them all (docs/benchmarks.md: 40 %
   * of a worktree phase's CPU on a file system that scans past deleted inodes). A run turns it on and
   * deletes what is kept at its end ({@link #runEnded}). Off for the one-shot commands, whose process
   * would leave them behind.
   */
  public Worktrees keepingSpares() {
    keepSpares = true;
    return this;
  }

  /** The run ends: the worktrees kept for its next items are deleted. */
  @Override
  public void runEnded() {
    spares.dropAll(layout());
  }

  /** The worktrees' directory made, and the guard set on its real path ({@link WorktreeGuard#made}). */
  private void prepareRoot() {
    guard = WorktreeGuard.made(root, repo.commonDir());
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

  /**
   * {@link #checkBases()}, with tips the caller read just now in one process with refs of its own
   * ({@code refs/heads/<branch>} to commit), after {@link BaseRefs#moves} was {@code movesBefore}: a
   * base branch among them is not read again unless orchestrate moved one since.
   */
  public void checkBases(Map<String, String> known, long movesBefore) {
    bases.check(atWork(), known, movesBefore);
  }

  /**
   * Deletes a landed item's branch. {@code git branch -D} removes the branch's section from
   * {@code .git/config} too, which rewrites that file whether it has one or not (and so makes every
   * kept configuration check list again, {@link ConfigListings}), and refuses a branch checked out in
   * a work tree. When the branch is known to be at {@code expected}, the repository keeps its refs in
   * files, its {@code config} does not name the branch (so holds no section of it) and no work tree
   * has it checked out, nor is rebasing or bisecting it (read from their {@code HEAD},
   * {@code rebase-*}{@code /head-name} and {@code BISECT_START}, as git reads them), the ref alone
   * is deleted, {@code git update-ref -d} from {@code expected} (refused if it moved meanwhile).
   * Otherwise, or when that fails, {@code git branch -D} does it, as it always did.
   *
   * @param expected the commit the branch is at; null: not known
   */
  public void deleteBranch(String branch, String expected) {
    if (expected != null && WorktreeGuard.refOnlyDeletable(repo.commonDir(), branch)
        && git.run(checkout, "update-ref", "-d", "refs/heads/" + branch, expected).ok()) {
      return;
    }
    git.run(checkout, "branch", "--quiet", "-D", branch);
  }

  /** The real path of the worktrees' directory, once {@link #open()}ed: no work tree of the user's is there. */
  public Path guardRoot() {
    return guard.root();
  }

  /**
   * With {@code execution.landing: remote}, removes what this clone kept of items it no longer works
   * on, and names what it keeps ({@link SharedWork#cleanUp}); one line each, for the operator.
   */
  public List<String> cleanUp() {
    return remote == null ? List.of() : shared().cleanUp();
  }

  /** What this clone shares with others through the remote (null remote: nothing to share). */
  private SharedWork shared() {
    return new SharedWork(this, git, repo, store, root, remote);
  }

  private boolean ancestor(String older, String newer) {
    return git.run(checkout, "merge-base", "--is-ancestor", older, newer).ok();
  }

  private boolean replaceable(String itemId, String tip, String head) {
    return shared().replaceable(itemId, tip, head);
  }

  private void available(WorkspaceRecord ws) {
    shared().available(ws);
  }

  /**
   * The item's worktree on disk, made again at its branch's last phase commit when retention removed
   * it or it was lost.
   */
  public WorkspaceRecord restored(WorkspaceRecord ws) throws IOException {
    if (!ws.onDisk() || !mine(ws) || WorktreeGuard.missing(ws.path())) {
      return recreate(ws);
    }
    if (remote == null) {
      return ws; // the branch's tip decides nothing without a shared remote: not read
    }
    String tip = git.commit(checkout, "refs/heads/" + ws.branch());
    if (tip != null && !tip.equals(ws.headCommit()) && replaceable(ws.itemId(), tip, ws.headCommit())) {
      // a worktree left from an earlier hold of the item, whose work another runner continued since
      available(ws);
      reset(ws);
    }
    return ws;
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

  /** Where the items' worktrees (and landing trees) are: {@code <state>/worktrees}. */
  public Path root() {
    return root;
  }

  /**
   * A worktree of orchestrate's own where the item's work is gated as it will land: {@code commit}
   * (the item's work on top of the base's tip) checked out detached in a new directory of the
   * worktrees' directory, {@code +land-<ID>} (never an item's: ids cannot hold a {@code +}), whatever
   * an earlier one left there removed first. Nothing of an agent's is in it but what that commit holds.
   */
  public Path landingTree(String itemId, String commit) throws IOException {
    Path path = landingPath(itemId);
    inLayout(() -> {
      forget(path);
      git.ok(checkout, "worktree", "add", "--quiet", "--detach", "--force", path.toString(), commit);
    });
    return path;
  }

  /**
   * Marks the item's worktree as changed by a landing step (the rebase or merge onto the base, the
   * squash) until {@link #landingStepDone}: a run that ends inside one (a kill, a crash) leaves
   * the mark, {@code +landing-<ID>} beside the worktrees, and the next landing puts the worktree
   * back ({@link #undoInterruptedLanding}) instead of taking what the step left for a person's
   * uncommitted changes.
   */
  public void landingStep(String itemId, String step) throws IOException {
    Path mark = landingMark(itemId);
    DiskUsage.delete(mark); // whatever was planted there (a link, a directory) goes, never written through
    Files.writeString(mark, step + "\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE_NEW,
        java.nio.file.StandardOpenOption.WRITE);
  }

  /**
   * The landing step {@link #landingStep} marked ended: the worktree is as git left it after the
   * step. A mark that stays (it could not be removed) costs the next landing a reset to the branch,
   * which the step left the worktree at.
   */
  public void landingStepDone(String itemId) {
    try {
      Files.deleteIfExists(landingMark(itemId));
    } catch (IOException e) {
      log.warn("{}: could not remove the mark of its landing step: {}", itemId, e.getMessage());
    }
  }

  /**
   * Whether a landing step of an earlier run ended inside this worktree ({@link #landingStep}'s mark
   * is there); then its tracked files are put back at the item's branch (HEAD is on it:
   * {@link #verified}), and the branch itself back at the recorded head {@code ws} names when the
   * step had moved it to commits that lack it (a rebase or squash done, not yet recorded: the
   * record's commit holds the same work); the untracked files the step left are removed, what the
   * set-up left and the {@code workspace.copy} files kept, and the mark is dropped. Before the step
   * the worktree had no change (a landing starts only then), so nothing of the item's work is lost.
   */
  public boolean undoInterruptedLanding(WorkspaceRecord ws, Git.Place place) {
    Path mark = landingMark(ws.itemId());
    if (!Files.isRegularFile(mark, WorktreeGuard.NOFOLLOW)) {
      return false;
    }
    String tip = git.commit(checkout, "refs/heads/" + ws.branch());
    boolean kept = tip != null && (tip.equals(ws.headCommit()) || ancestor(ws.headCommit(), tip));
    git.ok(place, "reset", "--quiet", "--hard", kept ? tip : ws.headCommit());
    List<String> clean = new ArrayList<>(List.of("clean", "-ffdq", "--", "."));
    clean.addAll(notTheWork(ws.itemId()));
    git.ok(place, clean.toArray(String[]::new));
    landingStepDone(ws.itemId());
    return true;
  }

  /**
   * Pathspecs that leave out of a command on the item's worktree what is there and is not the
   * item's work: the {@code workspace.copy} files (copied in, never committed) and what
   * {@code workspace.setup} left ({@link SetUpOutput}).
   */
  public List<String> notTheWork(String itemId) {
    List<String> out = new ArrayList<>();
    config.copy().forEach(path -> out.add(":(exclude,literal)" + path));
    SetUpOutput.read(setUpPath(itemId)).forEach(path -> out.add(":(exclude,top,literal)" + path));
    return out;
  }

  private Path landingMark(String itemId) {
    return beside("+landing-", itemId, "file");
  }

  /** Removes the item's landing tree ({@link #landingTree}), if there is one. */
  public void dropLandingTree(String itemId) {
    try {
      forget(landingPath(itemId));
    } catch (IOException | GitException | WorktreeGuard.Breach e) {
      log.warn("{}: could not remove its landing tree: {}", itemId, e.getMessage());
    }
  }

  /** What the item's set-up left in its worktree and no phase commit takes ({@link SetUpOutput}): paths from the top. */
  public List<String> setUpOutput(String itemId) {
    return SetUpOutput.read(setUpPath(itemId));
  }

  /** Where what the item's set-up left is recorded ({@link SetUpOutput}): beside its worktree, not in it. */
  private Path setUpPath(String itemId) {
    return beside("+setup-", itemId, "file");
  }

  private Path landingPath(String itemId) {
    return beside("+land-", itemId, "directory");
  }

  /**
   * {@code <root>/<prefix><ID>}: a file or directory of the item's beside the worktrees, never an
   * item's own (ids hold no {@code +}); an id that would name a path elsewhere is refused.
   */
  private Path beside(String prefix, String itemId, String kind) {
    Path path = root.resolve(prefix + itemId).normalize();
    if (!root.equals(path.getParent())) {
      throw new WorkspaceUnavailableException("item id '" + itemId + "' names no " + kind + " under " + root);
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
    forget(itemId);
    try {
      WorkspaceRecord ws = store.workspace(itemId).orElse(null);
      if (ws != null && ws.finishedAt() != null) {
        store.finished(itemId, null, clock.instant()); // at work again: retention leaves it alone
        ws = store.workspace(itemId).orElseThrow();
      }
      boolean made = false;
      boolean fresh = false;
      if (ws == null) {
        Created created = create(itemId, dependsOn);
        ws = created.ws();
        made = true;
        fresh = created.fresh();
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
      // Fresh: a new branch just checked out at its start by `worktree add -b`, HEAD on it, nothing
      // untracked yet; the reset would change nothing (three git processes a phase).
      Git.Place place = kept ? guarded(ws) : fresh ? guard.verify(ws) : reset(ws);
      if (!kept && config.copy().isEmpty()) {
        // git just left this index at the commit the attempt starts at: the phase commit compares it
        // (not with workspace.copy files, when it lists the ignored files whatever the index)
        String digest = IndexFile.digest(place.gitDir().resolve("index"), ws.headCommit().length() / 2);
        if (digest != null) {
          indexAsCheckedOut.put(itemId, ws.headCommit() + " " + digest);
        }
      }
      CopiedFiles.into(place.workTree(), repo.top(), config.copy());
      Path workDir = guard.workDir(place.workTree(), repo.subdirectory());
      List<ProjectCommand> setup = config.setup().isEmpty()
          || store.setUpAt(itemId).isPresent() ? List.of() : config.setup();
      if (made) {
        SetUpOutput.forget(setUpPath(itemId)); // a new directory: what an earlier set-up left is gone
      }
      Path recorded = setUpPath(itemId);
      // run by the job on its own thread: git on this worktree's pinned place, a file of this item's
      return new Placement(workDir, ws.path(), ws.branch(), kept, setup,
          setup.isEmpty() ? null : () -> SetUpOutput.record(git, place, recorded));
    } catch (GitException | IOException | UncheckedIOException | WorktreeGuard.Breach e) {
      throw new WorkspaceUnavailableException("could not prepare the worktree of " + itemId + ": " + e.getMessage());
    }
  }

  @Override
  public void setUp(String itemId) {
    store.setUp(itemId, clock.instant());
  }

  /** A worktree {@link #create} made; {@code fresh} when on a new branch at its start, as checked out. */
  private record Created(WorkspaceRecord ws, boolean fresh) {
  }

  private Created create(String itemId, List<String> dependsOn) throws IOException {
    String branch = BRANCH_PREFIX + itemId;
    Path path = root.resolve(itemId).normalize();
    // Item ids allow '.' and '..', and dots where git refuses them ("a..b", "x.lock"): such an id
    // names neither a worktree under <state>/worktrees nor a branch.
    if (!root.equals(path.getParent()) || !validBranch(branch)) {
      throw new WorkspaceUnavailableException(
          "item id '" + itemId + "' cannot name a git branch (" + branch + ") or a worktree "
              + "directory: give the item an id without '..', a leading or trailing '.', or a '.lock' ending");
    }
    String baseRef = "refs/heads/" + repo.baseBranch();
    String branchRef = "refs/heads/" + branch;
    // the base's tip and whether the item's branch exists: one for-each-ref, not a rev-parse each
    Map<String, String> tips = git.tips(checkout, remote == null ? List.of(baseRef, branchRef) : List.of(branchRef));
    String baseCommit = remote != null ? remote.fetchBase(repo.baseBranch())
        : tips.get(baseRef) != null ? tips.get(baseRef)
            : git.ok(checkout, "rev-parse", "--verify", baseRef + "^{commit}").line(); // fails as before, naming it
    if (baseCommit == null) {
      throw new WorkspaceUnavailableException("the base branch " + repo.baseBranch() + " is not on " + remote.name()
          + " (" + remote.where() + "), where work starts and lands with execution.landing: remote: push it (git push "
          + remote.name() + " " + repo.baseBranch() + "), then unblock " + itemId);
    }
    List<String> stack = config.merge() == WorkspaceConfig.Merge.PUSH ? Stacks.tips(git, checkout, store, dependsOn)
        : List.of();
    String start = stack.isEmpty() ? baseCommit : stack.get(0);
    String existing = tips.get(branchRef);
    boolean fresh = existing == null && stack.size() <= 1;
    boolean checkedOut = true;
    if (existing != null) {
      // Left by a run that crashed between `worktree add` and recording it, or by another state
      // directory. Adopted only when it holds no work of its own; anything else is someone's.
      if (!git.run(checkout, "merge-base", "--is-ancestor", existing, start).ok()) {
        throw new WorkspaceUnavailableException(
            "branch " + branch + " already exists with commits the state does not know: "
                + "delete it (git branch -D " + branch + ") or rename it, then unblock " + itemId);
      }
      addWorktree(path, "--force", path.toString(), branch);
      checkedOut = !large();
    } else if (!(keepSpares && spares.take(path, branch, start, layout()))) {
      addWorktree(path, "-b", branch, path.toString(), start);
      checkedOut = !large();
    }
    Path admin = adminDir(path);
    if (!checkedOut) {
      // made with --no-checkout under the lock: its files are checked out here, beside other items' adds
      git.ok(new Git.Place(path, admin, repo.commonDir(), path), "reset", "--quiet", "--hard");
    }
    if (stack.size() > 1) {
      start = Stacks.merged(git, new Git.Place(path, admin, repo.commonDir(), path), config.commitAuthor(), itemId,
          stack);
    }
    WorkspaceRecord ws = new WorkspaceRecord(itemId, path, branch, repo.baseBranch(), admin, baseCommit,
        start, null, null, null, null, DiskUsage.of(path), clock.instant(), null, null);
    store.save(ws, clock.instant());
    placed(itemId);
    log.debug("created worktree {} on {} from {}", path, branch, start);
    return new Created(ws, fresh);
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
    landingStepDone(ws.itemId()); // a new directory: a landing step's leftovers went with the old one
    available(ws);
    String tip = git.commit(checkout, "refs/heads/" + ws.branch());
    if (tip != null && ancestor(ws.headCommit(), tip)) {
      inLayout(() -> git.ok(checkout, "worktree", "add", "--quiet", "--force", path.toString(), ws.branch()));
    } else if (replaceable(ws.itemId(), tip, ws.headCommit())) {
      inLayout(() -> git.ok(checkout, "worktree", "add", "--quiet", "--force", "-B", ws.branch(), path.toString(),
          ws.headCommit()));
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
    return adminDir(path, repo.commonDir());
  }

  /** {@link #adminDir(Path)} of a worktree of the repository whose git directory is {@code commonDir}. */
  static Path adminDir(Path path, Path commonDir) throws IOException {
    String pointer = Files.readString(path.resolve(".git"), StandardCharsets.UTF_8).strip();
    Path admin = Path.of(pointer.substring(pointer.indexOf(':') + 1).strip()).toRealPath();
    if (!commonDir.resolve("worktrees").equals(admin.getParent())) {
      throw new GitException("git made the worktree " + path + " with its git directory at " + admin
          + ", outside " + commonDir.resolve("worktrees"));
    }
    return admin;
  }

  /**
   * A directory at {@code path} that git no longer knows as a worktree is ours to delete; a link
   * there is removed itself, never followed.
   */
  void forget(Path path) throws IOException {
    if (Files.isSymbolicLink(path)) {
      throw new WorktreeGuard.Breach("the worktree " + path + " was replaced" + WorktreeGuard.describe(path)
          + ": orchestrate will not run git there or delete through it; remove it (rm " + path + ") and try again");
    }
    if (Files.exists(path, WorktreeGuard.NOFOLLOW)) {
      inLayout(() -> {
        if (Files.isDirectory(path, WorktreeGuard.NOFOLLOW) && path.toRealPath().getParent().equals(guard.root())) {
          WorktreeGuard.disarmRegistry(repo.commonDir());
          git.run(checkout, "worktree", "remove", "--force", "--force", path.toString());
        }
        DiskUsage.delete(path);
        prune();
      });
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
    landingStepDone(ws.itemId()); // the reset below puts back whatever a landing step left
    git.ok(place, "reset", "--quiet", "--hard", ws.headCommit());
    List<String> clean = new ArrayList<>(List.of("clean", "-ffdq"));
    clean.addAll(SetUpOutput.keptByClean(SetUpOutput.read(setUpPath(ws.itemId()))));
    git.ok(place, clean.toArray(String[]::new));
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
    if (!WorktreeGuard.headOn(place.gitDir(), ws.branch())) {
      git.ok(place, "symbolic-ref", "HEAD", "refs/heads/" + ws.branch());
    }
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
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    boolean own = ws != null && ws.onDisk();
    String branchRef = own ? "refs/heads/" + ws.branch() : null;
    // the base branches' tips and the item's branch's in one for-each-ref (a failed read: each on its own)
    List<String> refs = new ArrayList<>(bases.watchedRefs());
    if (own) {
      refs.add(branchRef);
    }
    long moves = bases.moves(); // a landing on another thread may move a base while the tips are read
    Map<String, String> tips = readTips(refs);
    bases.check(atWork(), tips, moves);
    String moved = bases.takeMove(itemId);
    if (moved != null || !own) {
      return moved;
    }
    Git.Place place;
    try {
      place = guard.verify(ws);
    } catch (WorktreeGuard.Breach e) {
      return e.getMessage();
    }
    // first: nothing after this may skip it
    try {
      List<String> hidden = StagedFiles.unhide(git, place, ws.headCommit().length() / 2);
      if (!hidden.isEmpty()) {
        log.warn("{}: the agent hid {} from git (assume-unchanged or skip-worktree): cleared, so they count as "
            + "what they are", itemId, hidden.size() == 1 ? hidden.get(0) : hidden.size() + " files");
      }
    } catch (GitException e) {
      return "could not clear what the agent hid from git in " + ws.path() + ": " + e.getMessage();
    }
    String tip;
    try {
      tip = tips.containsKey(branchRef) ? tips.get(branchRef) : git.commit(checkout, branchRef);
    } catch (GitException e) {
      log.warn("{}: could not take the agent's commits off {}: {}", ws.itemId(), ws.branch(), e.getMessage());
      return null;
    }
    if (StagedFiles.dropAgentCommits(git, ws, place, tip)) {
      atHead.put(itemId, ws.headCommit());
    }
    return null;
  }

  /** The tips of {@code refs} in one process; empty when git could not list them (each is read on its own then). */
  private Map<String, String> readTips(List<String> refs) {
    try {
      return git.tips(checkout, refs);
    } catch (GitException e) {
      log.debug("could not read {} at once: {}", refs, e.getMessage());
      return Map.of();
    }
  }

  /**
   * Whether {@code branch} is a valid branch name: names of letters, digits, {@code _} and
   * {@code -}, with single dots between them and no {@code .lock} ending, are (git's rules, which
   * such a name cannot break) without asking git; any other name is checked by
   * {@code git check-ref-format}, as every name was.
   */
  private boolean validBranch(String branch) {
    String id = branch.substring(BRANCH_PREFIX.length());
    if (id.matches("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*") && !id.toLowerCase(java.util.Locale.ROOT).endsWith(".lock")) {
      return true;
    }
    return git.run(checkout, "check-ref-format", "refs/heads/" + branch).ok();
  }

  /** The worktrees of items at work: only their agents can have moved a base branch since the last check. */
  private List<WorkspaceRecord> atWork() {
    return store.onDisk().stream().filter(ws -> ws.finishedAt() == null).toList();
  }

  @Override
  public List<String> changedAmong(String itemId, List<String> scripts, List<String> paths) {
    return protectedChanges(itemId, scripts, paths, true);
  }

  /**
   * Before the gates run: the same check as {@link #changedAmong} (git's status, for new files, and
   * the tracked files compared by their bytes), on the worktree as the agent left it: verified, but
   * HEAD not put back (the listing is read from the repository, so a HEAD the agent broke fails
   * only the status, and the caller refuses then). The listing is kept for the check after the job.
   */
  @Override
  public List<String> changedBeforeGates(String itemId, List<String> scripts, List<String> paths) {
    return protectedChanges(itemId, scripts, paths, false);
  }

  /**
   * The check of both: after the job ({@code afterJob}) on the worktree made ours again, its
   * pathspecs kept for the phase commit's check; before the gates on the worktree only verified.
   */
  private List<String> protectedChanges(String itemId, List<String> scripts, List<String> paths, boolean afterJob) {
    WorkspaceRecord ws = store.workspace(itemId).orElse(null);
    if (ws == null || !ws.onDisk() || (scripts.isEmpty() && paths.isEmpty())) {
      return List.of();
    }
    List<String> pathspecs = StagedFiles.protectedPathspecs(repo.subdirectory(), scripts, paths);
    if (afterJob) {
      protectedPathspecs.put(itemId, pathspecs); // the phase commit checks what it holds against them
    }
    Git.Place place = afterJob ? guarded(ws) : guard.verify(ws);
    return StagedFiles.changedAmong(git, place,
        listing(itemId, Git.Place.repository(repo.commonDir()), ws.headCommit(), pathspecs));
  }

  /** The item's protected files at {@code commit}: the one its last check listed, when of the same commit and pathspecs. */
  private ProtectedContent.Listing listing(String itemId, Git.Place place, String commit, List<String> pathspecs) {
    ProtectedContent.Listing kept = protectedListings.get(itemId);
    if (kept != null && kept.commit().equals(commit) && kept.pathspecs().equals(pathspecs)) {
      return kept;
    }
    ProtectedContent.Listing listed = ProtectedContent.list(git, place, commit, pathspecs);
    protectedListings.put(itemId, listed);
    return listed;
  }

  @Override
  public String commit(String itemId, String phase, int attempt, long jobId, String summary) {
    // taken at once: a commit that ends early (nothing to commit) leaves nothing behind for the run
    List<String> guarded = protectedPathspecs.remove(itemId);
    protectedListings.remove(itemId);
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
    // just inspected: HEAD on the branch, the branch at the recorded head (the agent's commits taken
    // off), so the reset would change nothing and the new commit's id is the branch's ref
    boolean inspected = parent.equals(atHead.remove(itemId));
    if (!inspected) {
      git.ok(place, "reset", "--quiet", "--soft", parent);
    }
    // Nothing staged since the preparation left the index at the attempt's start (the same bytes:
    // not the agent's `git add -f`, nor a commit of its own, nor anything else that wrote it), no
    // copied files, no fold: `git add --all` stages no file git ignores, so there is none to
    // unstage and its listing is spared (one process a phase).
    String checkedOut = indexAsCheckedOut.remove(itemId);
    boolean untouched = checkedOut != null && config.copy().isEmpty() && parent.equals(ws.headCommit())
        && checkedOut.equals(parent + " "
            + IndexFile.digest(place.gitDir().resolve("index"), parent.length() / 2));
    git.ok(place, "add", "--all");
    if (!untouched) {
      StagedFiles.unstageIgnored(git, place, config.copy());
    }
    SetUpOutput.unstage(git, place, SetUpOutput.read(setUpPath(itemId)));
    List<String> args = new ArrayList<>(List.of("commit", "--quiet", "--no-verify", "--no-edit",
        "-m", itemId + " " + phase + ": " + firstLine(summary),
        "-m", "Orchestrate-Job: " + jobId + "\nOrchestrate-Attempt: " + attempt));
    // git commit refuses an index with nothing staged itself: the check that it has changes runs
    // only when the commit failed, to tell "nothing to commit" from a failure
    Git.Result made = git.run(place, config.commitAuthor().environment(), args);
    if (!made.ok()) {
      if (git.run(place, "diff", "--cached", "--quiet", "--no-ext-diff", "--no-textconv").ok()) {
        return null;
      }
      throw new GitException("git commit failed in " + place.dir() + ": " + made.reason());
    }
    // the commit just made moved the branch HEAD is on: its ref file names it (git asked when unsure)
    String branchRef = "refs/heads/" + ws.branch();
    String commit = inspected ? RefFiles.commit(repo.commonDir(), branchRef) : null;
    if (commit == null) {
      commit = git.ok(place, "rev-parse", "HEAD").line();
    }
    refuseProtected(guarded, place, ws.headCommit(), parent, commit);
    store.commitPending(itemId, commit, jobId, DiskUsage.of(ws.path()), clock.instant());
    if (remote != null) {
      // before the job counts: any runner can continue the item from here
      remote.publish(itemId, commit, ws.headCommit().equals(ws.baseCommit()) ? null : ws.headCommit());
    }
    return commit;
  }

  /**
   * The phase commit just made, checked against {@code guarded}, the protected pathspecs the check
   * of its worktree took ({@link #changedAmong}; none: a phase that may change them, or no gates): what it holds,
   * whatever the index said (git builds it from the index's entries and its cache of trees, both
   * the agent's to have written), against the item's last phase commit {@code head}, as the check
   * of the worktree compares (not against {@code parent}, the base when the commit folds a red
   * landing: an earlier phase's allowed change to them is not this attempt's). One that changes
   * them is undone, the branch back at {@code parent}, and refused.
   *
   * @throws dev.orchestrate.item.ProtectedFilesCommitted naming the files
   */
  private void refuseProtected(List<String> guarded, Git.Place place, String head, String parent, String commit) {
    if (guarded == null || guarded.isEmpty()) {
      return;
    }
    List<String> changed = StagedFiles.committedAmong(git, place, head, commit, guarded);
    if (!changed.isEmpty()) {
      git.ok(place, "reset", "--quiet", "--soft", parent);
      throw new dev.orchestrate.item.ProtectedFilesCommitted(changed);
    }
  }

  /** What this runner keeps of an item's worktree between its steps, dropped (prepared again, blocked, removed). */
  private void forget(String itemId) {
    atHead.remove(itemId);
    indexAsCheckedOut.remove(itemId);
    protectedPathspecs.remove(itemId);
    protectedListings.remove(itemId);
  }

  /**
   * Items whose worktree {@link #inspect} just left on their branch at the recorded head (the
   * agent's commits taken off): their phase commit needs no reset. One entry per item at most,
   * taken by the phase commit, dropped when the worktree is prepared again or removed.
   */
  private final java.util.Map<String, String> atHead = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Each item's start commit and a digest of its index as the last preparation left it, git's
   * reset or checkout at that commit (not a kept worktree's, which holds the last attempt's
   * staging): the phase commit skips the listing of ignored files when both are still so. Set by
   * the preparation, taken by the phase commit, dropped when the item is blocked or its worktree
   * removed.
   */
  private final java.util.Map<String, String> indexAsCheckedOut = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Each item's protected pathspecs, as the check of its attempt's worktree ({@link #changedAmong})
   * just took them: the phase commit that follows checks what it holds against them too. Taken by
   * the commit, dropped at the next preparation, a block or the worktree's removal.
   */
  private final java.util.Map<String, List<String>> protectedPathspecs = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Each item's protected files at its last phase commit, as the check before its gates listed
   * them, for the check after its job; dropped with {@link #protectedPathspecs}.
   */
  private final java.util.Map<String, ProtectedContent.Listing> protectedListings = new java.util.concurrent.ConcurrentHashMap<>();

  @Override
  public void committed(String itemId) {
    store.commitConfirmed(itemId, clock.instant());
  }

  @Override
  public void blocked(String itemId) {
    forget(itemId);
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
    forget(ws.itemId());
    landingStepDone(ws.itemId()); // a mark of a landing step is about this worktree only
    if (!mine(ws)) {
      store.removed(ws.itemId(), clock.instant()); // another clone's: its runner cleans it up (cleanUp)
      return;
    }
    if (keepSpares && kept(ws)) {
      store.removed(ws.itemId(), clock.instant());
      return;
    }
    // the files deleted beside other items' adds, the registry's entry under the lock
    boolean removed = WorktreeRetention.removeFromDisk(git, ws, true, layout());
    if (removed) {
      store.removed(ws.itemId(), clock.instant());
    } else {
      log.warn("{}: could not remove the worktree {}", ws.itemId(), ws.path());
    }
  }

  /** The landed worktree of {@code ws}, verified as the one orchestrate made, kept for a later item's. */
  private boolean kept(WorkspaceRecord ws) {
    try {
      return spares.keep(guard.verify(ws), layout());
    } catch (WorktreeGuard.Breach e) {
      return false;
    }
  }

  @Override
  public void maintain() {
    Lock beside = layout();
    beside.lock();
    try {
      new WorktreeRetention(() -> git, store, retention, clock).sweep(clock.instant());
    } finally {
      beside.unlock();
    }
  }

  /**
   * Whatever is at {@code path} removed, then {@code git worktree add --quiet args}, under
   * {@link #layout}: one at a time (git's add reads every other worktree's registry entry), never
   * beside the shared remote's fetches, whose connectivity check reads every worktree's HEAD, which
   * {@code worktree add} writes before the commit it names is checked out ("bad object
   * worktrees/X/HEAD", issue 46).
   */
  private void addWorktree(Path path, String... args) throws IOException {
    inLayout(() -> {
      forget(path);
      List<String> add = new ArrayList<>(List.of("worktree", "add", "--quiet"));
      if (large()) {
        add.add("--no-checkout"); // the caller checks the files out after the lock
      }
      add.addAll(List.of(args));
      git.ok(checkout, add.toArray(String[]::new));
    });
  }

  /** Work on the worktrees' registry, which may throw what git and the disk throw. */
  @FunctionalInterface
  private interface LayoutWork {
    void run() throws IOException;
  }

  /** Runs {@code work} holding {@link #layout}. */
  private void inLayout(LayoutWork work) throws IOException {
    Lock beside = layout();
    beside.lock();
    try {
      work.run();
    } finally {
      beside.unlock();
    }
  }

  /**
   * Whether the repository is large enough that a new worktree's checkout is made outside the
   * layout's lock ({@link #addWorktree}): its index is over {@value #LARGE_INDEX_BYTES} bytes (about
   * 5,000 files), where a checkout takes a second or more; below it, the checkout inside
   * {@code worktree add} costs no process more. Read once.
   */
  private boolean large() {
    Boolean known = large;
    if (known == null) {
      long bytes;
      try {
        bytes = Files.size(repo.gitDir().resolve("index"));
      } catch (IOException | UncheckedIOException e) {
        bytes = 0;
      }
      known = bytes > LARGE_INDEX_BYTES;
      large = known;
    }
    return known;
  }

  static final long LARGE_INDEX_BYTES = 512 * 1024;
  private volatile Boolean large;

  /** Tests: the repository counted large, or not, whatever its index. */
  Worktrees large(boolean large) {
    this.large = large;
    return this;
  }

  private Lock layout() {
    SharedRemote shared = remote;
    return shared != null ? shared.besideFetches() : unshared;
  }

  /** Without a shared remote: worktree add and removal one at a time all the same (see {@link SharedRemote#besideFetches}). */
  private final Lock unshared = new java.util.concurrent.locks.ReentrantLock();

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
