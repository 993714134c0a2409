package dev.orchestrate.item;

import dev.orchestrate.backlog.InitialStatus;

import java.util.Objects;

/**
 * The runtime state of one item, as persisted after every change.
 *
 * @param phase         the phase being worked on while scoping/in_progress, else null
 * @param attempts      attempts already made on {@code phase} (the next attempt is attempts + 1)
 * @param blockedFrom   the status the item was blocked from, so {@code unblock} can restore it
 * @param lastFailure   the failure context of the last failed attempt of {@code phase}; it goes
 *                      into the next attempt's prompt
 * @param phaseSummary  the latest successful phase summary, for the next phase's prompt
 * @param unblockNotes  notes given with {@code unblock}, for the next prompt
 * @param resume        the agent session the next attempt of {@code phase} may continue (the last
 *                      attempt's, when it ended in a way a continuation mends), or null: the next
 *                      attempt starts fresh in a reset worktree (docs/verification.md)
 */
public record Progress(
    ItemStatus status,
    String phase,
    int attempts,
    String blockedReason,
    ItemStatus blockedFrom,
    String lastFailure,
    String phaseSummary,
    String unblockNotes,
    Resume resume) {

  public Progress {
    Objects.requireNonNull(status, "status");
    if (attempts < 0) {
      throw new IllegalArgumentException("attempts must be >= 0");
    }
    if (status.isRunningPhases() && phase == null) {
      throw new IllegalArgumentException("an item that is " + status.key() + " needs a phase");
    }
    if (status == ItemStatus.BLOCKED && blockedReason == null) {
      throw new IllegalArgumentException("a blocked item needs a reason");
    }
    if (resume != null && phase == null) {
      throw new IllegalArgumentException("a session to resume belongs to a phase");
    }
  }

  public Progress(ItemStatus status, String phase, int attempts, String blockedReason, ItemStatus blockedFrom,
      String lastFailure, String phaseSummary, String unblockNotes) {
    this(status, phase, attempts, blockedReason, blockedFrom, lastFailure, phaseSummary, unblockNotes, null);
  }

  /**
   * The agent session the next attempt may continue.
   *
   * @param profile the agent profile whose CLI holds it (another profile cannot continue it)
   * @param session the CLI's session id
   */
  public record Resume(String profile, String session) {
    public Resume {
      java.util.Objects.requireNonNull(profile, "profile");
      java.util.Objects.requireNonNull(session, "session");
    }
  }

  /** This progress with the session the next attempt may continue (null: start fresh). */
  public Progress withResume(Resume next) {
    return new Progress(status, phase, attempts, blockedReason, blockedFrom, lastFailure, phaseSummary, unblockNotes,
        phase == null ? null : next);
  }

  /** The progress of an item first seen in the backlog: its status hint applies once. */
  public static Progress initial(InitialStatus hint) {
    return switch (hint) {
      case NEW -> of(ItemStatus.NEW);
      case READY -> of(ItemStatus.READY);
      case DONE -> of(ItemStatus.DONE);
      case BLOCKED -> blocked(ItemStatus.NEW, null, "marked blocked in the backlog");
    };
  }

  /**
   * An item with nothing but its status (new, ready, done, ... with no phase, failure, summary or
   * notes): one shared instance per status, as most of a large backlog is at any time.
   */
  public static Progress of(ItemStatus status) {
    Progress shared = PLAIN.get(status);
    return shared != null ? shared : new Progress(status, null, 0, null, null, null, null, null);
  }

  /**
   * {@code progress} itself, or the shared instance of {@link #of} that equals it. Compared field by
   * field, not with the record's {@code equals}: the short commands read items too, and the first
   * record {@code equals} of a process costs it about 10 ms (docs/architecture.md, "Start-up rules").
   */
  public static Progress shared(Progress progress) {
    Progress plain = PLAIN.get(progress.status());
    boolean bare = progress.phase == null && progress.attempts == 0 && progress.blockedReason == null
        && progress.blockedFrom == null && progress.lastFailure == null && progress.phaseSummary == null
        && progress.unblockNotes == null && progress.resume == null;
    return plain != null && bare ? plain : progress;
  }

  private static final java.util.Map<ItemStatus, Progress> PLAIN = plain();

  private static java.util.Map<ItemStatus, Progress> plain() {
    java.util.Map<ItemStatus, Progress> plain = new java.util.EnumMap<>(ItemStatus.class);
    for (ItemStatus status : ItemStatus.values()) {
      if (!status.isRunningPhases() && status != ItemStatus.BLOCKED) {
        plain.put(status, new Progress(status, null, 0, null, null, null, null, null));
      }
    }
    return plain;
  }

  /**
   * Blocked from {@code from} while at {@code phase} (null when not in a phase). The phase is kept
   * so that {@code unblock} resumes where the item stopped; the phase summary is dropped (it is
   * removed at every transition to Done or Blocked: docs/architecture.md).
   */
  public static Progress blocked(ItemStatus from, String phase, String reason) {
    return new Progress(ItemStatus.BLOCKED, phase, 0, reason, from, null, null, null);
  }

  /** Start (or restart) a phase: attempts and failure context are reset, the summary is kept. */
  public Progress atPhase(ItemStatus newStatus, String newPhase) {
    return new Progress(newStatus, newPhase, 0, null, null, null, phaseSummary, unblockNotes);
  }

  public Progress withFailure(String context) {
    return new Progress(status, phase, attempts + 1, null, null, context, phaseSummary, unblockNotes);
  }

  public Progress withSummary(String summary) {
    return new Progress(status, phase, attempts, blockedReason, blockedFrom, lastFailure, summary, unblockNotes,
        resume);
  }

  public Progress withoutUnblockNotes() {
    return new Progress(status, phase, attempts, blockedReason, blockedFrom, lastFailure, phaseSummary, null, resume);
  }
}
