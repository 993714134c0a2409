package dev.orchestrate.workspace;

/**
 * Where an item's worktree and work are, when several clones share one state
 * (docs/workspaces.md, "Several machines"), for status.
 *
 * @param checkout  {@code host:path} of the checkout whose runner made the item's worktree last
 *                  (null: not recorded, one checkout)
 * @param remoteRef with {@code execution.landing: remote}, the remote and the ref that hold the
 *                  item's last phase commit ({@code origin refs/orchestrate/A}); null otherwise
 */
public record WorkspacePlace(String checkout, String remoteRef) {
  public static final WorkspacePlace NONE = new WorkspacePlace(null, null);
}
