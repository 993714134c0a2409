package dev.orchestrate.item;

import java.nio.file.Path;

/**
 * Where each item's agents work, and what happens to that place during the item's life: the
 * scheduler calls it at spawn, after a successful attempt, and when an item finishes. The shared
 * workspace (the default) does nothing: every agent runs in the backlog's directory. The git
 * worktree implementation lives in {@code workspace/}; how a done item's work lands is
 * {@link ItemLanding}'s.
 *
 * <p>With worktrees, {@link #prepare}, {@link #inspect}, {@link #changedAmong}, {@link #commit} and
 * {@link #maintain} are called on worker threads (issue 46: never git on the scheduler thread): one
 * item's calls one after another, different items' side by side; the rest on the scheduler thread.
 */
public interface ItemWorkspaces {
  ItemWorkspaces SHARED = new ItemWorkspaces() {
  };

  /** Whether a destructive phase still runs alone (always true for the shared workspace). */
  default boolean destructiveRunsAlone() {
    return true;
  }

  /**
   * Before an attempt: the item's workspace exists and holds exactly its last phase commit.
   *
   * @param backlogDir the backlog's directory, where agents work in the shared workspace
   * @return where the agent runs; {@code workspace} null for the shared workspace
   * @throws WorkspaceUnavailableException when the workspace cannot be prepared; the item is
   *     blocked with the message
   */
  default Placement prepare(String itemId, Path backlogDir) {
    return prepare(itemId, backlogDir, false);
  }

  /**
   * As {@link #prepare(String, Path)}; with {@code keep}, a worktree that exists is left as the last
   * attempt left it (its agent's session continues), only verified and its HEAD put back on the
   * item's branch. The placement says whether it was kept.
   */
  default Placement prepare(String itemId, Path backlogDir, boolean keep) {
    return Placement.shared(backlogDir);
  }

  /**
   * As {@link #prepare(String, Path, boolean)}, for an item that depends on {@code dependsOn}: a
   * worktree made now starts from a tree that has their work (under {@code merge: push}, whose base
   * never moves, their pushed branches).
   */
  default Placement prepare(String itemId, Path backlogDir, boolean keep, java.util.List<String> dependsOn) {
    return prepare(itemId, backlogDir, keep);
  }

  /** The worktree's {@code workspace.setup} ran to the end in the job that just ended: not again. */
  default void setUp(String itemId) {
  }

  /**
   * A successful attempt ended: its work is committed (before the job is recorded). Returns the
   * commit, or null when there was nothing to commit.
   */
  default String commit(String itemId, String phase, int attempt, long jobId, String summary) {
    return null;
  }

  /**
   * An agent's attempt just ended, before its outcome is recorded: checks that the agent stayed
   * within its workspace. Whatever it moved that orchestrate owns (a base branch) is put back
   * first.
   *
   * @return why the item must be blocked (its agent moved the base branch, or replaced its
   *     worktree), or null
   */
  default String inspect(String itemId) {
    return null;
  }

  /**
   * What the attempt that just ended changed, in its workspace, among {@code scripts} (paths
   * relative to the backlog's directory: the files the gates run) and {@code paths} (relative to the
   * repository's top; a directory ending in {@code /}), against the item's last phase commit. Empty
   * for the shared workspace, where there is no last phase commit to compare with.
   */
  default java.util.List<String> changedAmong(String itemId, java.util.List<String> scripts,
      java.util.List<String> paths) {
    return java.util.List.of();
  }

  /**
   * {@link #changedAmong}, asked once the agent reported success and before the gates run (on the
   * job's thread): the files among them the attempt changed. The check after the job is
   * {@link #changedAmong} all the same.
   */
  default java.util.List<String> changedBeforeGates(String itemId, java.util.List<String> scripts,
      java.util.List<String> paths) {
    return changedAmong(itemId, scripts, paths);
  }

  /** The job of the commit just made is recorded as completed: the commit is the item's new start. */
  default void committed(String itemId) {
  }

  /** The item is recorded as blocked (its workspace is kept for a person to look at). */
  default void blocked(String itemId) {
  }

  /** Applies the retention of workspaces (finished items' worktrees past their policy). */
  default void maintain() {
  }

  /** The run ends, not interrupted: what the workspaces kept for its next items goes (disk back as it was). */
  default void runEnded() {
  }
}
