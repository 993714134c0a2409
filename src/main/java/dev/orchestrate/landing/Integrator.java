package dev.orchestrate.landing;

import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.Repository;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.Worktrees;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The git side of integrating an item's branch (docs/workspaces.md), for {@link Landing}: rebasing
 * it onto the base branch or merging it, the files that conflict, moving the base branch forward by
 * a fast-forward git itself checks, and which base commit carries each job's phase commit.
 */
final class Integrator {
  private static final Logger log = LoggerFactory.getLogger(Integrator.class);
  private final Git git;
  private final Repository repo;
  private final WorkspaceConfig config;
  /** The user's checkout, the repository pinned: where repository-wide commands run. */
  private final Git.Place checkout;
  /** Where orchestrate's worktrees go: never "another work tree" of the user's. */
  private final Path root;

  /** The fast-forward of the user's checkout marked while it runs, and what one cut short left put back. */
  private final CutShortFastForward cutShort;

  Integrator(Git git, Repository repo, WorkspaceConfig config, Git.Place checkout, Path root) {
    this.git = git;
    this.repo = repo;
    this.config = config;
    this.checkout = checkout;
    this.root = root;
    this.cutShort = new CutShortFastForward(git, checkout, repo.top(), root);
  }

  /**
   * Which commit of the base branch carries each job's phase commit, now that {@code tip} landed on
   * it from {@code base}: a rebase copies the phase commits under new ids, which {@code jobs} and
   * {@code status ID} show instead of ids no branch holds. Found by the Orchestrate-Job trailer each
   * phase commit has; only recorded, so a git that cannot say leaves them unknown.
   */
  Map<Long, String> landed(Git.Place place, String base, String tip) {
    return landed(place, base, tip, null);
  }

  /**
   * {@link #landed(Git.Place, String, String)}, answered from {@code head} without a process when
   * it covers the range: {@code tip} is the HEAD it read and its only parent {@code base} (the range
   * is that one commit, its trailers read with it), or {@code tip} is {@code base} (no commit).
   */
  Map<Long, String> landed(Git.Place place, String base, String tip, Head head) {
    if (tip.equals(base)) {
      return new java.util.LinkedHashMap<>();
    }
    if (head != null && tip.equals(head.tip()) && head.parents().equals(List.of(base))) {
      return jobs(head.tip() + "\u001f" + head.trailers());
    }
    Git.Result log = git.run(place, "log",
        "--format=%H%x1f%(trailers:key=Orchestrate-Job,valueonly,separator=%x2C)%x1e",
        base + ".." + tip);
    if (!log.ok()) {
      return new java.util.LinkedHashMap<>();
    }
    return jobs(log.out());
  }

  /** The jobs of {@code hash\x1fjobs\x1e} entries: each job's commit, the first (newest) that names it. */
  static Map<Long, String> jobs(String entries) {
    Map<Long, String> landed = new java.util.LinkedHashMap<>();
    for (String entry : entries.split("\u001e")) {
      String[] parts = entry.strip().split("\u001f", 2);
      if (parts.length < 2) {
        continue;
      }
      for (String job : parts[1].split(",")) { // a squashed commit carries each of its jobs
        if (job.strip().matches("\\d{1,18}")) {
          landed.putIfAbsent(Long.parseLong(job.strip()), parts[0]);
        }
      }
    }
    return landed;
  }

  /**
   * What one {@code git log --no-walk} at the item's worktree read before integrating: the base
   * branch's tip ({@code base}), the worktree's HEAD ({@code tip}), HEAD's parents and its
   * Orchestrate-Job trailers. It answers the checks of the usual landing (a phase commit on top of
   * the base's tip) that were a process each: the base's tip for {@link dev.orchestrate.workspace.BaseRefs},
   * whether the base is an ancestor of HEAD (it is HEAD or HEAD's parent), HEAD itself, and the
   * jobs that land.
   */
  record Head(String base, String tip, List<String> parents, String trailers) {
  }

  /**
   * Reads {@link Head} at {@code place}: from git's files when they leave no doubt
   * ({@link #headInFiles}), else by one {@code git log}; null when git cannot (no base branch, say):
   * each is read on its own then.
   */
  Head head(Git.Place place, String baseBranch) {
    Head read = headInFiles(git, place, baseBranch);
    return read != null ? read : headFromLog(git, place, baseBranch);
  }

  /** {@link Head} by one {@code git log}; null when git cannot. */
  static Head headFromLog(Git git, Git.Place place, String baseBranch) {
    Git.Result log = git.run(place, "log", "--no-walk=unsorted",
        "--format=%H%x1f%P%x1f%(trailers:key=Orchestrate-Job,valueonly,separator=%x2C)%x1e",
        "refs/heads/" + baseBranch, "HEAD", "--");
    if (!log.ok()) {
      return null;
    }
    List<String[]> entries = new java.util.ArrayList<>();
    for (String entry : log.out().split("\u001e")) {
      if (!entry.isBlank()) {
        // newlines only: String.strip() takes the unit separators of empty fields for white space
        entries.add(entry.replaceAll("^\n+|\n+$", "").split("\u001f", -1));
      }
    }
    // one entry: the base's tip is HEAD (git shows a commit named twice once)
    if (entries.isEmpty() || entries.size() > 2 || entries.stream().anyMatch(e -> e.length != 3
        || !e[0].matches("[0-9a-f]{40,64}"))) {
      return null;
    }
    String[] head = entries.get(entries.size() - 1);
    List<String> parents = head[1].isBlank() ? List.of() : List.of(head[1].strip().split(" "));
    return new Head(entries.get(0)[0], head[0], parents, head[2]);
  }

  /**
   * Whether the base cannot be one of HEAD's ancestors, as loose commits say: the usual way a
   * landing rebases, the base moved on from where the item started. HEAD's chain of single-parent
   * commits (the item's phase commits) reaches, within {@link #ITEM_MAX_COMMITS}, a commit among the
   * base's ancestors (within {@link #MOVED_ON_MAX_COMMITS}) without passing the base: the base then
   * descends from that commit and is neither it nor on the chain above it, the only places HEAD's
   * ancestors are. False is no answer: {@code git merge-base} says.
   */
  private boolean movedOn(Git.Place place, String base, Head head) {
    if (head == null || head.tip().equals(base)) {
      return false;
    }
    java.util.Set<String> belowBase = null; // read once, when the first parent is looked up
    List<String> parents = head.parents();
    for (int i = 0; i < ITEM_MAX_COMMITS && parents != null && parents.size() == 1; i++) {
      String parent = parents.get(0);
      if (parent.equals(base)) {
        return false; // on the chain: an ancestor
      }
      belowBase = belowBase != null ? belowBase : git.ancestorsInFiles(place, base, MOVED_ON_MAX_COMMITS);
      if (belowBase.contains(parent)) {
        return true;
      }
      parents = git.parentsInFiles(place, parent);
    }
    return false;
  }

  /** A phase commit's last paragraph, as orchestrate writes it: its job and attempt trailers, nothing else. */
  private static final java.util.regex.Pattern OWN_TRAILERS = java.util.regex.Pattern.compile(
      "Orchestrate-(Job|Attempt): \\d{1,18}(\nOrchestrate-(Job|Attempt): \\d{1,18})*");

  /**
   * {@link Head} from git's files: the base's tip, HEAD on a branch and its loose commit, its
   * parents, and its Orchestrate-Job trailers when its message ends in a paragraph of nothing but
   * orchestrate's own trailer lines after at least one other, with no line git could take for a
   * patch's start or a comment ({@code ---}, {@code #}), where git's trailer parser reads exactly
   * those; null for anything else (git's log reads it then).
   */
  static Head headInFiles(Git git, Git.Place place, String baseBranch) {
    String base = git.tipInFiles(place, "refs/heads/" + baseBranch);
    Git.Head head = base == null ? null : git.headFromFiles(place);
    Git.Commit commit = head == null ? null : git.commitInFiles(place, head.commit());
    String jobs = commit == null ? null : ownJobs(commit.message());
    return jobs == null ? null : new Head(base, head.commit(), commit.parents(), jobs);
  }

  /**
   * The Orchestrate-Job trailers of a commit's {@code message}, joined by commas as git's
   * {@code %(trailers:key=Orchestrate-Job,valueonly,separator=%x2C)} gives them, when the message
   * ends in a paragraph of nothing but orchestrate's own trailer lines after at least one other and
   * has no line git could take for a patch's start or a comment ({@code ---}, {@code #}); null for
   * anything else (and for no message).
   */
  static String ownJobs(String message) {
    if (message == null || message.lines().anyMatch(l -> l.startsWith("---") || l.startsWith("#"))) {
      return null;
    }
    String text = message.strip();
    int last = text.lastIndexOf("\n\n");
    if (last <= 0 || text.substring(0, last).isBlank() || !OWN_TRAILERS.matcher(text.substring(last + 2)).matches()) {
      return null;
    }
    return String.join(",", text.substring(last + 2).lines()
        .filter(l -> l.startsWith("Orchestrate-Job: ")).map(l -> l.substring("Orchestrate-Job: ".length())).toList());
  }

  /**
   * What {@code git log --format=%H%x1f<jobs>%x1e base..HEAD} prints, read from git's files: HEAD's
   * chain of single-parent loose commits down to {@code base} (at most {@link #ITEM_MAX_COMMITS}),
   * each with its jobs ({@link #ownJobs}); null when the files leave any doubt (ask git then).
   */
  static String logInFiles(Git git, Git.Place place, String base) {
    Git.Head head = git.headFromFiles(place);
    String at = head == null || head.commit().equals(base) ? null : head.commit();
    StringBuilder out = new StringBuilder();
    for (int i = 0; at != null && i < ITEM_MAX_COMMITS; i++) {
      Git.Commit commit = git.commitInFiles(place, at);
      String jobs = commit == null || commit.parents().size() != 1 ? null : ownJobs(commit.message());
      if (jobs == null) {
        return null;
      }
      out.append(at).append('\u001f').append(jobs).append('\u001e');
      if (commit.parents().get(0).equals(base)) {
        return out.toString();
      }
      at = commit.parents().get(0);
    }
    return null;
  }

  /**
   * The item's commits since {@code base}, when there are several, as one commit of the same tree
   * on {@code base} (its message lists each phase commit's subject and carries every job's trailer),
   * the item's branch and worktree moved there; else {@code tip} itself. With integration gates, the
   * commit that lands is the one they ran on, and an earlier phase's commit never reaches the base
   * untested.
   */
  String squash(WorkspaceRecord ws, Git.Place place, String base, String tip, String title) {
    List<String> subjects = git.ok(place, "log", "--reverse", "--format=%s", base + ".." + tip).out().lines()
        .filter(l -> !l.isBlank()).toList();
    if (subjects.size() < 2) {
      return tip;
    }
    List<String> jobs = git.ok(place, "log", "--reverse", "--format=%(trailers:key=Orchestrate-Job,valueonly)",
        base + ".." + tip).out().lines().map(String::strip).filter(l -> l.matches("\\d{1,18}")).toList();
    StringBuilder body = new StringBuilder();
    subjects.forEach(subject -> body.append("- ").append(subject).append('\n'));
    StringBuilder trailers = new StringBuilder();
    jobs.forEach(job -> trailers.append(trailers.length() == 0 ? "" : "\n").append("Orchestrate-Job: ").append(job));
    List<String> args = new java.util.ArrayList<>(List.of("commit-tree", tip + "^{tree}", "-p", base, "-m",
        ws.itemId() + ": " + Worktrees.firstLine(title), "-m", body.toString().strip()));
    if (!jobs.isEmpty()) {
      args.addAll(List.of("-m", trailers.toString()));
    }
    String squashed = git.ok(place, author(), args).line();
    git.ok(place, "update-ref", "-m", "orchestrate: squash to land", "refs/heads/" + ws.branch(), squashed, tip);
    git.ok(place, "reset", "--quiet", "--hard", squashed);
    return squashed;
  }

  /**
   * The tip to fast-forward the base branch to, or the files that conflict, or why git failed
   * otherwise; {@code landed}: the jobs whose commits are between the base and the tip, when the
   * rebase read them with the tip (null: not read, {@link #landed} reads them).
   */
  record Integrated(String tip, List<String> conflicts, String failure, Map<Long, String> landed) {
    Integrated(String tip, List<String> conflicts, String failure) {
      this(tip, conflicts, failure, null);
    }
  }

  Integrated rebase(WorkspaceRecord ws, Git.Place place, String base) {
    return rebase(ws, place, base, null);
  }

  /** How far back from the base its walk to HEAD's parent looks (the landings since the item started). */
  static final int MOVED_ON_MAX_COMMITS = 64;
  /** How many of the item's own commits (one a phase) the walk down from HEAD takes at most. */
  static final int ITEM_MAX_COMMITS = 16;

  /**
   * {@link #rebase(WorkspaceRecord, Git.Place, String)}, with what {@code head} read at this place
   * just before: a base that is HEAD or one of HEAD's parents is an ancestor of HEAD, and a base
   * that moved on from the item's commits ({@link #movedOn}) is not, both without a merge-base; HEAD
   * is known without a rev-parse.
   */
  Integrated rebase(WorkspaceRecord ws, Git.Place place, String base, Head head) {
    if (head != null && (head.tip().equals(base) || head.parents().contains(base))) {
      return new Integrated(head.tip(), null, null);
    }
    if (!movedOn(place, base, head) && git.run(place, "merge-base", "--is-ancestor", base, "HEAD").ok()) {
      // already on top of the base (nothing new there, or a person merged it in to resolve a conflict)
      return new Integrated(git.ok(place, "rev-parse", "HEAD").line(), null, null);
    }
    Git.Result rebase = git.run(place, author(), List.of("rebase", "--quiet", "--no-autostash", base));
    if (!rebase.ok()) {
      List<String> files = conflicts(place);
      git.run(place, "rebase", "--abort");
      return files.isEmpty() ? failed(rebase) : new Integrated(null, files, null);
    }
    // the rebased tip and the jobs of its commits from git's files, else in one process, where a
    // rev-parse and a log were two
    String entries = logInFiles(git, place, base);
    if (entries == null) {
      Git.Result log = git.run(place, "log",
          "--format=%H%x1f%(trailers:key=Orchestrate-Job,valueonly,separator=%x2C)%x1e", base + "..HEAD");
      entries = log.ok() ? log.out() : "";
    }
    String first = entries.split("\u001e", 2)[0].strip();
    String tip = first.split("\u001f", 2)[0];
    if (!tip.matches("[0-9a-f]{40,64}")) {
      return new Integrated(git.ok(place, "rev-parse", "HEAD").line(), null, null);
    }
    return new Integrated(tip, null, null, jobs(entries));
  }

  /** A merge commit of the branch on top of the base, made on a detached HEAD in the item's worktree. */
  Integrated merge(WorkspaceRecord ws, Git.Place place, String base, String title) {
    git.ok(place, "checkout", "--quiet", "--detach", base);
    Git.Result merge = git.run(place, author(), List.of("merge", "--quiet", "--no-ff", "--no-edit",
        "-m", "Merge " + ws.branch() + ": " + Worktrees.firstLine(title), ws.branch()));
    if (!merge.ok()) {
      List<String> files = conflicts(place);
      git.run(place, "merge", "--abort");
      git.run(place, "reset", "--quiet", "--hard");
      git.ok(place, "checkout", "--quiet", ws.branch());
      return files.isEmpty() ? failed(merge) : new Integrated(null, files, null);
    }
    String tip = git.ok(place, "rev-parse", "HEAD").line();
    git.ok(place, "checkout", "--quiet", ws.branch());
    return new Integrated(tip, null, null);
  }

  /** git failed without a conflicting file: a lock, a broken repository; the item stays done, to retry. */
  private static Integrated failed(Git.Result result) {
    return new Integrated(null, null, result.lockHeld().orElse("git failed: " + result.reason()
        + "; the next run integrates"));
  }

  List<String> conflicts(Git.Place place) {
    return git.conflicts(place);
  }

  sealed interface Advance {
    Advance DONE = new Done();
    Advance MOVED = new Moved();

    record Done() implements Advance {
    }

    record Moved() implements Advance {
    }

    record Refused(String reason) implements Advance {
    }
  }

  /**
   * Moves the base branch from {@code base} to {@code tip} (a descendant). Where the user's checkout
   * has the base branch checked out, git's own fast-forward merge does it there, and refuses when a
   * local change would be overwritten: the user's uncommitted work is never touched. A base branch
   * checked out in any other work tree is left alone.
   */
  Advance advanceBase(WorkspaceRecord ws, String base, String tip, Path guardRoot) {
    // HEAD's commit and the branch it is on, from its files or one rev-parse; an unborn HEAD fails it:
    // then a command each
    Git.Head at = git.headFromFiles(checkout);
    if (at == null) {
      Git.Result both = git.run(checkout, "rev-parse", "HEAD^{commit}", "--symbolic-full-name", "HEAD", "--");
      List<String> lines = both.out().lines().toList();
      at = both.ok() && lines.size() >= 2 && lines.get(0).matches("[0-9a-f]{40,64}")
          ? new Git.Head(lines.get(0), lines.get(1)) : null;
    }
    boolean read = at != null;
    Git.Result head = read ? null : git.run(checkout, "symbolic-ref", "--quiet", "HEAD");
    if (read ? at.ref().equals("refs/heads/" + ws.baseBranch())
        : head.ok() && head.line().equals("refs/heads/" + ws.baseBranch())) {
      if (!base.equals(read ? at.commit() : revParse("HEAD"))) {
        return Advance.MOVED;
      }
      // git's fast-forward updates the files before the branch: a lock on the branch would leave
      // the user's checkout changed and the branch where it was
      for (Path lock : List.of(repo.gitDir().resolve("index.lock"), repo.gitDir().resolve("HEAD.lock"),
          repo.commonDir().resolve("refs/heads/" + ws.baseBranch() + ".lock"))) {
        if (Files.exists(lock, LinkOption.NOFOLLOW_LINKS)) {
          return new Advance.Refused(Git.lockMessage(lock.toString()));
        }
      }
      return fastForwardCheckout(ws, base, tip);
    }
    Path elsewhere = checkedOutElsewhere(ws.baseBranch(), guardRoot);
    if (elsewhere != null) {
      return new Advance.Refused("the base branch " + ws.baseBranch() + " is checked out in " + elsewhere
          + ", another work tree: orchestrate fast-forwards it only in " + repo.top() + " or where no work tree has "
          + "it; check it out there or switch that work tree to another branch");
    }
    Git.Result update = git.run(checkout, "update-ref", "-m", "orchestrate: integrate " + ws.branch(),
        "refs/heads/" + ws.baseBranch(), tip, base);
    if (update.ok()) {
      return Advance.DONE;
    }
    if (!base.equals(revParse("refs/heads/" + ws.baseBranch()))) {
      return Advance.MOVED;
    }
    return new Advance.Refused(update.lockHeld().orElse("git could not move " + ws.baseBranch() + ": "
        + update.reason() + "; the next run integrates " + ws.branch()));
  }

  /**
   * git's fast-forward of the user's checkout, on the base branch at {@code base}, to {@code tip},
   * marked while it runs ({@link CutShortFastForward}): when it is refused and an earlier run died
   * inside the same one, what that one had written is put back and the fast-forward runs again.
   */
  private Advance fastForwardCheckout(WorkspaceRecord ws, String base, String tip) {
    String branch = "refs/heads/" + ws.baseBranch();
    CutShortFastForward.Marked earlier = cutShort.read();
    // an earlier run died inside a fast-forward of this branch from this same commit
    boolean cutShortHere = earlier != null && earlier.branch().equals(branch) && earlier.from().equals(base);
    cutShort.mark(new CutShortFastForward.Marked(branch, base, tip));
    Git.Result merge = git.run(checkout, "merge", "--quiet", "--ff-only", tip);
    if (!merge.ok() && merge.lockHeld().isEmpty() && cutShortHere && base.equals(revParse("HEAD"))) {
      // what that fast-forward was writing is put back, then this one runs again
      List<String> undone = cutShort.undo(earlier);
      if (undone != null && !undone.isEmpty()) {
        log.warn("the fast-forward of {} in {} was cut short by the end of an earlier run: put back {} file(s) it "
            + "had written ({}{}), and fast-forwarded again", ws.baseBranch(), repo.top(), undone.size(),
            String.join(", ", undone.subList(0, Math.min(5, undone.size()))), undone.size() > 5 ? ", ..." : "");
        merge = git.run(checkout, "merge", "--quiet", "--ff-only", tip);
      }
    }
    if (merge.ok()) {
      cutShort.drop();
      return Advance.DONE;
    }
    if (!base.equals(revParse("HEAD"))) {
      cutShort.drop();
      return Advance.MOVED;
    }
    // git refused before it wrote anything: the mark of an earlier run's cut-short one stays
    if (cutShortHere) {
      cutShort.mark(earlier);
    } else {
      cutShort.drop();
    }
    return new Advance.Refused(merge.lockHeld().orElse("the base branch " + ws.baseBranch() + " is checked out in "
        + repo.top() + " with local changes the fast-forward would overwrite (" + merge.reason()
        + "): commit or stash them; the next run integrates " + ws.branch()));
  }

  /**
   * A work tree other than the user's checkout and orchestrate's own worktrees that has
   * {@code branch} checked out, or null. (One of orchestrate's worktrees on the base branch is an
   * agent's doing: {@link BaseRefs} and the guard deal with it.)
   */
  private Path checkedOutElsewhere(String branch, Path guardRoot) {
    String list = git.ok(checkout, "worktree", "list", "--porcelain").out();
    Path current = null;
    for (String line : list.lines().toList()) {
      if (line.startsWith("worktree ")) {
        current = Path.of(line.substring("worktree ".length()));
      } else if (line.equals("branch refs/heads/" + branch) && current != null && !current.equals(repo.top())
          && !current.toAbsolutePath().normalize().startsWith(root) && !current.startsWith(guardRoot)) {
        return current;
      }
    }
    return null;
  }

  String revParse(String ref) {
    return git.commit(checkout, ref);
  }

  Map<String, String> author() {
    return config.commitAuthor().environment();
  }
}
