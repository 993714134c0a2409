package dev.orchestrate.workspace;

import java.time.Instant;

/**
 * What {@code execution.merge: push} did for one item (columns {@code push_*} of {@code workspaces}).
 *
 * @param sha      the commit of the item's branch last pushed, or null
 * @param url      the pull request's address (the last http(s) URL its command printed), or null;
 *                 once recorded the command is not run again for the item
 * @param failures failed attempts in a row (0 after a success)
 * @param triedAt  when the last attempt ended, or null: where the retry's wait starts
 */
public record PushRecord(String sha, String url, int failures, Instant triedAt) {
  public static final PushRecord NONE = new PushRecord(null, null, 0, null);
}
