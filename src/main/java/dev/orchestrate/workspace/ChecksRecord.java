package dev.orchestrate.workspace;

import java.time.Instant;

/**
 * An item's wait for {@code execution.checks} (columns {@code checks_*} of {@code workspaces}).
 *
 * @param since  when the current wait began (the push), or null: the item awaits no checks
 * @param nextAt when the command is polled next, or null
 * @param rounds red reports so far for the item
 */
public record ChecksRecord(Instant since, Instant nextAt, int rounds) {
  public static final ChecksRecord NONE = new ChecksRecord(null, null, 0);

  public boolean waiting() {
    return since != null;
  }
}
