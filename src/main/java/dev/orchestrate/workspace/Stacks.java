package dev.orchestrate.workspace;

import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.WorkspaceUnavailableException;
import java.util.ArrayList;
import java.util.List;

/**
 * Stacked starts under {@code merge: push} (docs/workspaces.md), for {@link Worktrees}: the base
 * branch never moves there, so an item that depends on others starts from their pushed branches,
 * not from the base, which lacks their work.
 */
final class Stacks {
  private Stacks() {
  }

  /**
   * The tips of those of {@code dependsOn} that have a branch at {@code checkout}, in their
   * {@code depends_on} order, each once.
   */
  static List<String> tips(Git git, Git.Place checkout, WorkspaceStore store, List<String> dependsOn) {
    List<String> tips = new ArrayList<>();
    for (String dep : dependsOn) {
      store.workspace(dep).map(ws -> git.commit(checkout, "refs/heads/" + ws.branch())).filter(tip -> tip != null
          && !tips.contains(tip)).ifPresent(tips::add);
    }
    return tips;
  }

  /**
   * Several dependencies' branches: the ones after the first ({@code place} already starts at it)
   * merged into the new worktree at {@code place}; returns its HEAD.
   *
   * @throws WorkspaceUnavailableException naming the files when they conflict
   */
  static String merged(Git git, Git.Place place, WorkspaceConfig.Author author, String itemId, List<String> stack) {
    List<String> args = new ArrayList<>(List.of("merge", "--quiet", "--no-ff", "--no-edit", "-m",
        itemId + ": start from its dependencies' branches"));
    args.addAll(stack.subList(1, stack.size()));
    Git.Result merge = git.run(place, author.environment(), args);
    if (!merge.ok()) {
      List<String> files = git.conflicts(place);
      git.run(place, "merge", "--abort");
      throw new WorkspaceUnavailableException("the branches of " + itemId + "'s dependencies conflict"
          + (files.isEmpty() ? ": " + merge.reason() : " in " + String.join(", ", files))
          + ": merge them into one (or make one depend on the other), then unblock " + itemId);
    }
    return git.ok(place, "rev-parse", "HEAD").line();
  }
}
