package dev.orchestrate.workspace;

import java.time.Instant;

/**
 * An item's wait for {@code execution.checks} (columns {@code checks_*} of {@code workspaces}).
 *
 * @param since  when the current wait began (the push), or null: the item awaits no checks
 * @param nextAt when the command is polled next, or null
 * @param rounds red reports so far for the item
 * @param resume the agent session a red report continues (the item's last successful phase's), or
 *               null; written apart from the wait ({@link WorkspaceStore#checksResume})
 */
public record ChecksRecord(Instant since, Instant nextAt, int rounds, Resume resume) {
  public static final ChecksRecord NONE = new ChecksRecord(null, null, 0);

  public ChecksRecord(Instant since, Instant nextAt, int rounds) {
    this(since, nextAt, rounds, null);
  }

  public boolean waiting() {
    return since != null;
  }

  /**
   * The session of the item's last successful phase (columns {@code checks_resume_*}).
   *
   * @param phase   the phase its attempt worked in
   * @param profile the agent profile that ran it
   * @param session the agent CLI's session id
   */
  public record Resume(String phase, String profile, String session) {
  }
}
