package dev.orchestrate.workspace;

import dev.orchestrate.item.WorkspaceUnavailableException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one clone's worktrees share with the other clones through the remote
 * ({@code execution.landing: remote}, docs/workspaces.md, "Several machines"), for {@link Worktrees}:
 * the item's recorded work fetched when this clone lacks it, which of this clone's branches may be
 * moved to the recorded work, and the clean-up of what a restarted runner left of items others
 * continued or landed.
 */
final class SharedWork {
  private final Worktrees worktrees;
  private final Git git;
  private final WorkspaceStore store;
  private final Path root;
  /** Null: work meets in this checkout (execution.landing: local). */
  private final SharedRemote remote;
  private final Git.Place checkout;

  SharedWork(Worktrees worktrees, Git git, Repository repo, WorkspaceStore store, Path root, SharedRemote remote) {
    this.worktrees = worktrees;
    this.git = git;
    this.store = store;
    this.root = root;
    this.remote = remote;
    this.checkout = repo.checkout();
  }

  /**
   * With {@code execution.landing: remote}, what this clone keeps of items it does not work on any
   * more (another runner continued them after this one died, or landed them): each worktree and
   * local branch {@code orchestrate/<ID>} whose work is on the remote (its tip is in the item's last
   * recorded phase commit, or published from here) is removed, with the uncommitted files of the
   * attempt this runner was running when it died (its phase runs again wherever the item is
   * continued), and that attempt's phase commit when it was made and never pushed; one that holds
   * other commits the remote lacks is kept and reported. Items this clone's worktree is at work on, and finished ones it
   * keeps for a person (blocked, not landed), are left alone. One line each, for the operator.
   */
  List<String> cleanUp() {
    java.util.Set<String> ids = new java.util.TreeSet<>();
    for (String line : git
        .ok(checkout, "for-each-ref", "--format=%(refname:strip=2)", "refs/heads/" + Worktrees.BRANCH_PREFIX)
        .out().lines().toList()) {
      if (line.startsWith(Worktrees.BRANCH_PREFIX)) {
        ids.add(line.substring(Worktrees.BRANCH_PREFIX.length()));
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
      if (ws != null && ws.onDisk() && worktrees.mine(ws)
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
    String branch = Worktrees.BRANCH_PREFIX + id;
    Path path = root.resolve(id).normalize();
    if (!root.equals(path.getParent())) {
      // a branch an agent made (orchestrate/a/b): its "worktree" would be below a directory of the
      // worktrees' directory, which may be a link it planted; nothing is deleted through it
      return id + ": left alone: branch " + branch + " names no worktree orchestrate makes (an id holds no '/')";
    }
    String tip = git.commit(checkout, "refs/heads/" + branch);
    // on the remote: in the item's recorded work, or published from here (then rebased or squashed as it landed)
    String published = git.commit(checkout, SharedRemote.itemRef(id));
    try {
      if (ws != null && !remote.has(ws.headCommit())) {
        available(ws);
      }
      boolean onRemote = (ws == null ? tip == null : replaceable(id, tip, ws.headCommit()))
          || (published != null && ancestor(tip, published)) || interruptedPhaseCommit(id, tip, ws);
      boolean tree = Files.isDirectory(path, WorktreeGuard.NOFOLLOW);
      if (!onRemote) {
        return id + ": kept " + (tree ? "the worktree " + path + " and " : "") + "branch " + branch + ", at " + tip
            + ", which " + remote.name() + " does not have (" + (ws == null ? "the state has no such item"
                : "the item's recorded work is " + ws.headCommit())
            + "): look at it, and delete it once you have "
            + "what you want from it (git worktree remove --force " + path + "; git branch -D " + branch + ")";
      }
      // uncommitted files there are an interrupted attempt's, which the item's holder runs again
      worktrees.forget(path);
      worktrees.landingStepDone(id);
      if (tip != null) {
        Git.Result deleted = git.run(checkout, "branch", "--quiet", "-D", branch);
        if (!deleted.ok()) {
          // a git killed as it moved the branch leaves its lock: say which file, as the landing does
          return id + ": could not clean up this clone's worktree and branch " + branch + ": the worktree is "
              + "removed, the branch kept: " + deleted.lockHeld("the next run deletes the branch")
                  .orElse("git branch -D failed: " + deleted.reason());
        }
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

  /**
   * Whether {@code tip} is a phase commit of orchestrate's own (its {@code Orchestrate-Job}
   * trailer) on top of work the remote has, never published: the commit of an attempt killed after
   * its {@code git commit} and before its push, which never counted (its job was interrupted and
   * its phase ran again where the item was continued), like that attempt's uncommitted files.
   */
  private boolean interruptedPhaseCommit(String id, String tip, WorkspaceRecord ws) {
    if (tip == null || ws == null) {
      return false;
    }
    Git.Result read = git.run(checkout, "log", "-1", "--no-show-signature", "--format=%P%n%B", tip);
    if (!read.ok()) {
      return false;
    }
    List<String> lines = read.out().lines().toList();
    String[] parents = lines.isEmpty() ? new String[0] : lines.get(0).trim().split(" ");
    boolean trailer = lines.stream().skip(1).anyMatch(l -> PHASE_TRAILER.matcher(l).matches());
    return parents.length == 1 && !parents[0].isEmpty() && trailer && replaceable(id, parents[0], ws.headCommit());
  }

  private static final java.util.regex.Pattern PHASE_TRAILER = java.util.regex.Pattern
      .compile("Orchestrate-Job: [0-9]+");

  private static String abbrev(String commit) {
    return commit.substring(0, Math.min(12, commit.length()));
  }

  /**
   * Whether this clone's branch of the item, at {@code tip}, may be moved to the recorded
   * {@code head}: it is behind it, or (with a shared remote) it was published from here, so its
   * work is on the remote, continued or rebased by another runner since.
   */
  boolean replaceable(String itemId, String tip, String head) {
    if (tip == null || ancestor(tip, head)) {
      return true;
    }
    String published = remote == null ? null : git.commit(checkout, SharedRemote.itemRef(itemId));
    return published != null && ancestor(tip, published);
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
  void available(WorkspaceRecord ws) {
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
}
