package dev.orchestrate.workspace;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * What the state knows of one item's worktree (table {@code workspaces}).
 *
 * @param headCommit    the last phase commit; every attempt starts from it
 * @param pendingCommit a phase commit whose job is not recorded as completed yet (null: none)
 * @param integration   null until the item is done and integration was tried
 * @param note          why the branch is not integrated (conflicting files, local changes), or null
 * @param finishedAt    when the item reached done or blocked, or null while it is at work
 * @param removedAt     when the worktree was removed from disk, or null while it exists
 * @param push          what execution.merge: push did ({@link PushRecord#NONE}: nothing); read with
 *                      the row, never written by {@link WorkspaceStore#save}
 * @param checks        the item's wait for execution.checks ({@link ChecksRecord#NONE}: none); read with
 *                      the row, never written by {@link WorkspaceStore#save}
 */
public record WorkspaceRecord(String itemId, Path path, String branch, String baseBranch, Path gitDir,
    String baseCommit, String headCommit, String pendingCommit, Long pendingJobId, Integration integration,
    String note, long bytes, Instant createdAt, Instant finishedAt, Instant removedAt, PushRecord push,
    ChecksRecord checks) {

  public WorkspaceRecord(String itemId, Path path, String branch, String baseBranch, Path gitDir,
      String baseCommit, String headCommit, String pendingCommit, Long pendingJobId, Integration integration,
      String note, long bytes, Instant createdAt, Instant finishedAt, Instant removedAt, PushRecord push) {
    this(itemId, path, branch, baseBranch, gitDir, baseCommit, headCommit, pendingCommit, pendingJobId, integration,
        note, bytes, createdAt, finishedAt, removedAt, push, ChecksRecord.NONE);
  }

  public WorkspaceRecord(String itemId, Path path, String branch, String baseBranch, Path gitDir,
      String baseCommit, String headCommit, String pendingCommit, Long pendingJobId, Integration integration,
      String note, long bytes, Instant createdAt, Instant finishedAt, Instant removedAt) {
    this(itemId, path, branch, baseBranch, gitDir, baseCommit, headCommit, pendingCommit, pendingJobId, integration,
        note, bytes, createdAt, finishedAt, removedAt, PushRecord.NONE);
  }

  public WorkspaceRecord {
    Objects.requireNonNull(itemId, "itemId");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(branch, "branch");
    Objects.requireNonNull(baseBranch, "baseBranch");
    Objects.requireNonNull(gitDir, "gitDir");
    Objects.requireNonNull(headCommit, "headCommit");
    push = push == null ? PushRecord.NONE : push;
    checks = checks == null ? ChecksRecord.NONE : checks;
  }

  public boolean onDisk() {
    return removedAt == null;
  }

  /** How a done item's branch stands with its base branch. */
  public enum Integration {
    /** The base branch has the item's commits. */
    INTEGRATED,
    /** Rebase or merge conflicted (or the worktree was refused): the item is blocked, its worktree kept. */
    CONFLICT,
    /** Not safe now (local changes in the checkout of the base branch, a dirty worktree): tried again next run. */
    DEFERRED,
    /** execution.merge: none; the branch is left for a pull request. */
    SKIPPED,
    /** execution.merge: push; the branch is on the remote (and its pull request opened), the base untouched. */
    PUSHED,
    /**
     * execution.checks said red for the pushed branch: the item went back to its phase with the
     * report, or was blocked at checks_max_rounds.
     */
    CHECKS_RED,
    /** The checks stayed pending past checks_timeout, or the pull request unapproved past review_feedback_timeout. */
    TIMED_OUT,
    /**
     * execution.review_feedback said changes requested: the item went back to its phase with the
     * reviews, or was blocked at review_feedback_max_rounds.
     */
    CHANGES_REQUESTED,
    /** land: auto; execution.land_command merged the approved, green pull request (or the forge says merged). */
    MERGED,
    /** land: auto; execution.land_command failed too often (or the pull request was closed): blocked. */
    LAND_FAILED;

    public String key() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    public static Integration fromKey(String key) {
      return key == null ? null : valueOf(key.toUpperCase(java.util.Locale.ROOT));
    }
  }
}
