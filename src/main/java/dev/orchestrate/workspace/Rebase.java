package dev.orchestrate.workspace;

/**
 * What {@link Worktrees#rebaseOntoBase} did.
 *
 * @param kind       {@code rebased} (the branch now starts at the base's tip), {@code up_to_date}
 *                   (it already held the tip), {@code no_worktree} (none yet: its first attempt
 *                   starts from the base's tip anyway), {@code conflict} (nothing changed but the
 *                   worktree reset; {@code reason} names the files), {@code refused} ({@code reason}
 *                   says why nothing was done)
 * @param from       the branch's tip before (null without a worktree)
 * @param head       the item's last phase commit now, where its next attempt starts
 * @param base       the base branch's tip it was rebased onto
 * @param moved      the branch had moved since orchestrate recorded it (a person's commit or rebase):
 *                   that tip was taken, not the recorded one
 */
public record Rebase(String kind, String branch, String baseBranch, String from, String head, String base,
    boolean moved, String reason) {
  public boolean failed() {
    return kind.equals("conflict") || kind.equals("refused");
  }
}
