package dev.orchestrate.workspace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * orchestrate owns the base branches of a run: each moves only through its integration. It keeps
 * the commit it last saw or moved each one to; when a branch is found elsewhere (checked after
 * every attempt and before every integration), it looks for the agent that moved it — a worktree
 * whose HEAD is on the base branch, or whose HEAD, branch or HEAD log holds the new tip — and if
 * one did, puts the branch back with a compare-and-swap and names the item, to be blocked.
 *
 * <p>A move no worktree explains (a commit of the user's in their checkout, a fetch, a reset) is
 * accepted as the user's. An agent runs as the same user as orchestrate, so one determined to hide
 * can make its move look like the user's (a commit made with {@code commit-tree} and no trace in
 * its worktree): that is the limit docs/security.md states.
 *
 * <p>Its methods are synchronized: inspections run on the worktrees' workers, landing on its own
 * threads.
 */
public final class BaseRefs {
  private static final Logger log = LoggerFactory.getLogger(BaseRefs.class);
  /** How much of the end of a HEAD log is searched for the new tip. */
  private static final int REFLOG_TAIL_BYTES = 64 * 1024;

  private final Git git;
  private final Git.Place repo;
  private final Map<String, String> expected = new HashMap<>();
  /** orchestrate's own moves recorded so far ({@link #moves}). */
  private long moves;
  /** Items whose agents moved a base branch, with the reason to block them, until their attempt ends. */
  private final Map<String, String> movers = new LinkedHashMap<>();

  BaseRefs(Git git, Git.Place repo) {
    this.git = git;
    this.repo = repo;
  }

  /** Starts watching {@code branch} at its current tip, unless already watched. */
  public synchronized void watch(String branch) {
    if (!expected.containsKey(branch)) {
      expected.put(branch, tip(branch));
    }
  }

  /** orchestrate's own integration moved {@code branch} to {@code commit}. */
  public synchronized void movedByUs(String branch, String commit) {
    expected.put(branch, commit);
    moves++;
  }

  /**
   * orchestrate's own move of {@code branch} to {@code commit}, made by {@code move} with no check
   * beside it, and recorded when {@code done} says it moved: a check on another thread never sees
   * the branch moved and not yet recorded (it took a landing for an agent's move and undid it).
   */
  public synchronized <T> T ownMove(String branch, String commit, java.util.function.Supplier<T> move,
      java.util.function.Predicate<T> done) {
    T result = move.get();
    if (done.test(result)) {
      movedByUs(branch, commit);
    }
    return result;
  }

  /**
   * How many moves of orchestrate's own were recorded: a caller that reads tips itself takes this
   * first, and {@link #check(List, Map, long)} trusts its tips only when none came since.
   */
  public synchronized long moves() {
    return moves;
  }

  /** Where orchestrate last saw or moved {@code branch} (null: it had no commit). */
  public synchronized String expected(String branch) {
    return expected.get(branch);
  }

  /**
   * Checks every watched base branch; a move an agent made is undone and its item remembered.
   *
   * @param worktrees the worktrees on disk, whose agents may have moved a branch
   */
  void check(List<WorkspaceRecord> worktrees) {
    check(worktrees, Map.of());
  }

  /** The base branches watched, as full ref names: what a caller reads with its own refs ({@link #check(List, Map)}). */
  synchronized List<String> watchedRefs() {
    return expected.keySet().stream().map(branch -> "refs/heads/" + branch).toList();
  }

  /**
   * {@link #check(List)}, with the tips a caller just read in the same git process as refs of its own
   * ({@code refs/heads/<branch>} to commit, null: no commit): a watched branch among them is not read
   * again.
   */
  synchronized void check(List<WorkspaceRecord> worktrees, Map<String, String> known) {
    check(worktrees, known, moves);
  }

  /**
   * {@link #check(List, Map)}, with tips read when {@link #moves} was {@code movesBefore}: when a move
   * of orchestrate's own was recorded since, they may predate it, and each branch is read again here.
   */
  synchronized void check(List<WorkspaceRecord> worktrees, Map<String, String> tips, long movesBefore) {
    Map<String, String> known = movesBefore == moves ? tips : Map.of();
    for (Map.Entry<String, String> e : expected.entrySet()) {
      String branch = e.getKey();
      String before = e.getValue();
      String ref = "refs/heads/" + branch;
      String now = known.containsKey(ref) ? known.get(ref) : tip(branch);
      if (Objects.equals(before, now)) {
        continue;
      }
      List<WorkspaceRecord> culprits = new ArrayList<>();
      for (WorkspaceRecord ws : worktrees) {
        if (movedBy(ws, branch, before, now)) {
          culprits.add(ws);
        }
      }
      if (culprits.isEmpty()) {
        log.info("the base branch {} moved from {} to {} outside orchestrate (no agent's worktree holds that "
            + "commit): taken as yours", branch, abbrev(before), abbrev(now));
        e.setValue(now);
        continue;
      }
      Git.Result restore = git.run(repo, "update-ref", "-m", "orchestrate: undo an agent's move of " + branch,
          "refs/heads/" + branch, before == null ? "0".repeat(40) : before, now == null ? "0".repeat(40) : now);
      String undone = restore.ok()
          ? "orchestrate put it back at " + abbrev(before)
          : "orchestrate could not put it back (" + restore.reason()
              + "): reset it yourself (git update-ref refs/heads/"
              + branch + " " + before + ")";
      for (WorkspaceRecord ws : culprits) {
        String reason = "the agent moved the base branch " + branch + " from " + abbrev(before) + " to "
            + abbrev(now) + " (only orchestrate's integration may move it): " + undone
            + "; its commits stay reachable from " + (now == null ? "the reflog" : now) + ". Look at the work on "
            + ws.branch() + ", then unblock " + ws.itemId();
        movers.merge(ws.itemId(), reason, (a, b) -> a);
        log.warn("{}: {}", ws.itemId(), reason);
      }
      if (!restore.ok()) {
        e.setValue(now); // cannot undo: do not accuse every later attempt of the same move
      }
    }
  }

  /** Why {@code itemId}'s agent must be blocked for moving a base branch (and forgets it), or null. */
  synchronized String takeMove(String itemId) {
    return movers.remove(itemId);
  }

  /** Whether the worktree's agent left a trace of moving {@code branch} from {@code before} to {@code now}. */
  private boolean movedBy(WorkspaceRecord ws, String branch, String before, String now) {
    Path admin = ws.gitDir();
    String head = readHead(admin.resolve("HEAD"));
    if (head.equals("ref: refs/heads/" + branch)) {
      return true; // it checked the base branch out in its worktree (git switch --ignore-other-worktrees)
    }
    if (now == null) {
      return false;
    }
    String start = ws.baseCommit();
    if (start != null && (before == null || git.run(repo, "merge-base", "--is-ancestor", before, now).ok())
        && git.run(repo, "merge-base", "--is-ancestor", now, start).ok()) {
      // a forward move the worktree started from (or after): it holds the new tip, and its HEAD log
      // names it, because it started there; the move was someone else's (the user, another runner
      // here). A move back to where it started is not excused: that rewinds the base
      return false;
    }
    if (tail(admin.resolve("logs/HEAD")).contains(now)) {
      return true; // it committed the new tip in its worktree
    }
    if (before != null && git.run(repo, "merge-base", "--is-ancestor", now, before).ok()) {
      return false; // moved back: nothing new on it, nobody's work to attribute
    }
    for (String from : List.of(head.startsWith("ref: ") ? head.substring(5) : head, "refs/heads/" + ws.branch())) {
      if (!from.isBlank() && git.run(repo, "merge-base", "--is-ancestor", now, from).ok()) {
        return true; // the new tip is work of this worktree
      }
    }
    return false;
  }

  /** The branch's tip: from its ref file when that leaves no doubt, else by rev-parse ({@link Git#commit}). */
  private String tip(String branch) {
    return git.commit(repo, "refs/heads/" + branch);
  }

  private static String readHead(Path file) {
    try {
      if (!Files.isRegularFile(file, WorktreeGuard.NOFOLLOW) || Files.size(file) > 4096) {
        return "";
      }
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      return "";
    }
  }

  /** The last {@link #REFLOG_TAIL_BYTES} of a log file, or "" (no link is followed). */
  private static String tail(Path file) {
    try {
      if (!Files.isRegularFile(file, WorktreeGuard.NOFOLLOW)) {
        return "";
      }
      long size = Files.size(file);
      try (InputStream in = Files.newInputStream(file, WorktreeGuard.NOFOLLOW)) {
        in.skipNBytes(Math.max(0, size - REFLOG_TAIL_BYTES));
        return new String(in.readNBytes(REFLOG_TAIL_BYTES), StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      return "";
    }
  }

  static String abbrev(String commit) {
    return commit == null ? "(none)" : commit.substring(0, Math.min(12, commit.length()));
  }
}
