package dev.orchestrate.item;

import java.nio.file.Path;
import java.util.List;

/**
 * Where each item's agents work, and what happens to that place as the item moves on: the
 * scheduler calls it at spawn, after a successful attempt, and when an item finishes. The shared
 * workspace (the default) does nothing: every agent runs in the backlog's directory. The git
 * worktree implementation lives in {@code workspace/}.
 *
 * <p>Called on the scheduler thread only.
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
   * @throws Unavailable when the workspace cannot be prepared; the item is blocked with the message
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
    return new Placement(backlogDir, null, null, false, List.of());
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

  /** The job of the commit just made is recorded as completed: the commit is the item's new start. */
  default void committed(String itemId) {
  }

  /**
   * The item is recorded as done: its work goes to the base branch.
   *
   * @return what happened; a {@link Integration#conflict} blocks the item
   */
  default Integration integrate(String itemId, String title) {
    return Integration.NONE;
  }

  /**
   * As {@link #integrate}, its slow part (merge: push's push and pull-request command) left to run
   * off the scheduler thread; the default does it all at once, on the scheduler thread.
   */
  default Slow<Integration> integrateSlowly(String itemId, String title) {
    return Slow.now(() -> integrate(itemId, title));
  }

  /**
   * As {@link #check}, its command left to run off the scheduler thread; the default polls at
   * once, on the scheduler thread.
   */
  default Slow<Checks> checkSlowly(String itemId) {
    return Slow.now(() -> check(itemId));
  }

  /**
   * Work on an item's workspace whose slow part, a command (a push, the pull-request command, a
   * checks poll), runs off the scheduler thread: {@link #run} there, touching no state, then
   * {@link #finish} back on the scheduler thread records what it did. One at a time per item.
   */
  interface Slow<T> {
    /** Off the scheduler thread: runs the command; touches no state. */
    void run();

    /**
     * From any thread: stops the command if it runs (its process tree, TERM then KILL) or keeps it
     * from starting; {@link #run} returns soon after, and {@link #finish} records nothing.
     */
    void cancel();

    /**
     * On the scheduler thread, after {@link #run}: records what the command did and returns the
     * result; null when it was cancelled, or when {@link #next} has more to run.
     */
    T finish();

    /** After {@link #finish}: the next slow part of the same work (a pull request after its push), or null. */
    default Slow<T> next() {
      return null;
    }

    /** Whether {@link #run} has anything to do off the scheduler thread (false: all of it is in {@link #finish}). */
    default boolean offThread() {
      return true;
    }

    /** Work with no slow part: {@code work} runs in {@link #finish}, on the scheduler thread. */
    static <T> Slow<T> now(java.util.function.Supplier<T> work) {
      return new Slow<>() {
        @Override
        public void run() {
        }

        @Override
        public void cancel() {
        }

        @Override
        public T finish() {
          return work.get();
        }

        @Override
        public boolean offThread() {
          return false;
        }
      };
    }

    /** This work, its result (and its next part's) passed through {@code then} on the scheduler thread. */
    default <R> Slow<R> then(java.util.function.Function<T, R> then) {
      Slow<T> self = this;
      return new Slow<>() {
        private Slow<R> next;

        @Override
        public void run() {
          self.run();
        }

        @Override
        public void cancel() {
          self.cancel();
        }

        @Override
        public R finish() {
          T result = self.finish();
          Slow<T> more = self.next();
          if (more != null) {
            next = more.then(then);
            return null;
          }
          return result == null ? null : then.apply(result);
        }

        @Override
        public Slow<R> next() {
          return next;
        }

        @Override
        public boolean offThread() {
          return self.offThread();
        }
      };
    }
  }

  /** The item is recorded as blocked (its workspace is kept for a person to look at). */
  default void blocked(String itemId) {
  }

  /** Done items whose integration is still to do (after a crash, a deferral, an unblock). */
  default List<String> integrationPending() {
    return List.of();
  }

  /**
   * Done items whose failed integration is to be retried now, during the run (merge: push retries
   * a failed push on a backoff); the other modes wait for the next run ({@link #integrationPending}).
   */
  default List<String> retriesDue() {
    return List.of();
  }

  /** Items whose checks (execution.checks) are due for a poll now. */
  default List<String> checksDue() {
    return List.of();
  }

  /** Whether some item awaits its checks (the run waits for them). */
  default boolean awaitingChecks() {
    return false;
  }

  /**
   * Polls the item's checks once (execution.checks).
   *
   * @return what they said; null when the item awaits none
   */
  default Checks check(String itemId) {
    return null;
  }

  /**
   * Keeps with the item's workspace the agent session of its last successful phase, which a red
   * report of its checks continues (with agent.resume), so that a restarted run continues it too;
   * null forgets it.
   */
  default void lastSession(String itemId, LastSession session) {
  }

  /**
   * The agent session of an item's last successful phase.
   *
   * @param phase  the phase its attempt worked in
   * @param resume the profile and session id to continue
   */
  record LastSession(String phase, Progress.Resume resume) {
  }

  /**
   * What one poll of an item's checks said.
   *
   * @param kind    pending, green, red (back to the phase with the report), or blocked (too many
   *                red rounds, or pending past checks_timeout)
   * @param message the report (red), the block reason, or what happened
   * @param round   the red round this report is (red), else the rounds so far
   * @param phase   execution.checks_phase, or null: the pipeline's last phase
   * @param last    the session kept by {@link #lastSession}, or null
   */
  record Checks(String kind, String message, int round, String phase, LastSession last) {
    public Checks(String kind, String message, int round, String phase) {
      this(kind, message, round, phase, null);
    }
  }

  /** Applies the retention of workspaces (finished items' worktrees past their policy). */
  default void maintain() {
  }

  /**
   * Where an agent runs.
   *
   * @param workDir   the agent's working directory
   * @param workspace the item's own worktree (ORCHESTRATE_WORKSPACE), or null when shared
   * @param branch    the worktree's branch, or null
   * @param kept      the worktree holds the last attempt's work (prepared with {@code keep})
   * @param setup     the {@code workspace.setup} commands the job runs before its agent (a worktree
   *                  whose set-up has not yet succeeded), else empty
   */
  record Placement(Path workDir, Path workspace, String branch, boolean kept,
      List<dev.orchestrate.config.ProjectCommand> setup) {
    public Placement {
      setup = setup == null ? List.of() : List.copyOf(setup);
    }

    public Placement(Path workDir, Path workspace, String branch) {
      this(workDir, workspace, branch, false, List.of());
    }
  }

  /**
   * The result of integrating a done item.
   *
   * @param kind    none (shared workspace), integrated, skipped (merge: none), pushed (merge: push),
   *                deferred, conflict, refused (the worktree was replaced: nothing is integrated from
   *                it), push_failed (merge: push failed too many times in a row)
   * @param message for the event log and the operator; the block reason for a conflict or a refusal
   */
  record Integration(String kind, String message) {
    public static final Integration NONE = new Integration("none", null);

    /**
     * Whether the item is blocked with the message: a conflict, a worktree orchestrate refuses to
     * use, or a push that kept failing.
     */
    public boolean blocks() {
      return kind.equals("conflict") || kind.equals("refused") || kind.equals("push_failed");
    }
  }

  /** The workspace of an item cannot be prepared; the message says why and what to do. */
  final class Unavailable extends RuntimeException {
    public Unavailable(String message) {
      super(message);
    }
  }
}
