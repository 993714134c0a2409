package dev.orchestrate.workspace;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the workspace manager persists. Each method is one transaction. The phase commit follows a
 * two-step protocol so that the last phase commit never runs ahead of the job that made it: the
 * commit is first recorded as pending ({@link #commitPending}), and becomes the head only once
 * its job is recorded as completed ({@link #commitConfirmed}); a pending commit whose job did not
 * complete (a crash in between) is dropped by {@link #settlePending}.
 */
public interface WorkspaceStore {

  Optional<WorkspaceRecord> workspace(String itemId);

  /** Every item's workspace record, by item id. */
  Map<String, WorkspaceRecord> all();

  /** Every worktree on disk, oldest finished first, those at work last. */
  List<WorkspaceRecord> onDisk();

  /** Inserts or replaces the item's row (creation, recreation after removal). */
  void save(WorkspaceRecord record, Instant now);

  void commitPending(String itemId, String commit, long jobId, long bytes, Instant now);

  /** The pending commit becomes the head and is written on its job. */
  void commitConfirmed(String itemId, Instant now);

  /**
   * For every pending commit: confirmed if its job completed, dropped otherwise. Returns how many
   * were dropped.
   */
  int settlePending(Instant now);

  /** The branch was rewritten (rebased) or moved by integration: its new head. */
  void headMoved(String itemId, String commit, Instant now);

  void integration(String itemId, WorkspaceRecord.Integration integration, String note, Instant now);

  /** The item reached done or blocked (null: it is at work again). */
  void finished(String itemId, Instant at, Instant now);

  void removed(String itemId, Instant now);

  /** The phase commits of these jobs (jobs without one are left out). */
  Map<Long, String> commits(Collection<Long> jobIds);

  /**
   * The commits of the base branch that carry these jobs' phase commits, recorded at integration
   * ({@link #landed(Map, Instant)}); jobs without one are left out.
   */
  default Map<Long, String> landed(Collection<Long> jobIds) {
    return Map.of();
  }

  /** Records, by job id, the commit of the base branch that carries each job's phase commit (integration). */
  default void landed(Map<Long, String> commits, Instant now) {
  }

  /** When {@code workspace.setup} last succeeded in the item's worktree; empty: it has yet to run there. */
  default Optional<Instant> setUpAt(String itemId) {
    return Optional.empty();
  }

  /** Records that the item's worktree was set up at {@code at}; null: it needs its set-up again (recreated). */
  default void setUp(String itemId, Instant at) {
  }

  /** What {@code merge: push} did for the item; {@link PushRecord#NONE} before its first attempt. */
  default PushRecord push(String itemId) {
    return PushRecord.NONE;
  }

  /** Every item's push record that has one (a push attempted), by item id. */
  default Map<String, PushRecord> pushes() {
    return Map.of();
  }

  /** Records the outcome of a push attempt for the item. */
  default void push(String itemId, PushRecord push, Instant now) {
  }

  /** The item's wait for execution.checks; {@link ChecksRecord#NONE} when it has none. */
  default ChecksRecord checks(String itemId) {
    return ChecksRecord.NONE;
  }

  /** Every item that awaits its checks, by item id. */
  default Map<String, ChecksRecord> checksWaits() {
    return Map.of();
  }

  /**
   * Records the item's wait for its checks (since null: it waits no more, its rounds kept); its
   * {@link ChecksRecord#resume} is left as it is.
   */
  default void checks(String itemId, ChecksRecord checks, Instant now) {
  }

  /** Records the session a red report of the item's checks continues; null: none. */
  default void checksResume(String itemId, ChecksRecord.Resume resume, Instant now) {
  }

  /** What execution.review_feedback and land: auto keep of the item; {@link ReviewRecord#NONE} when nothing. */
  default ReviewRecord review(String itemId) {
    return ReviewRecord.NONE;
  }

  /** Records what execution.review_feedback and land: auto keep of the item. */
  default void review(String itemId, ReviewRecord review, Instant now) {
  }

  /** How many times the item's integration gates were red since it last landed (the merge queue's rounds). */
  default int landingRounds(String itemId) {
    return 0;
  }

  default void landingRounds(String itemId, int rounds, Instant now) {
  }

  /**
   * After a red integration round, the base commit the item's work was rebased onto: its next phase
   * commit folds everything since into one commit on it (so the red state never lands on its own).
   */
  default Optional<String> landingFold(String itemId) {
    return Optional.empty();
  }

  default void landingFold(String itemId, String base, Instant now) {
  }

  /** Where the item's worktree and work are (several clones); {@link WorkspacePlace#NONE} when not recorded. */
  default WorkspacePlace place(String itemId) {
    return WorkspacePlace.NONE;
  }

  /** Records where the item's worktree and work are (after its row is saved). */
  default void place(String itemId, WorkspacePlace place, Instant now) {
  }
}
