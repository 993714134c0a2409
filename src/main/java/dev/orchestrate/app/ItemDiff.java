package dev.orchestrate.app;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.workspace.BranchDiff;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;

/**
 * What {@code diff ID} shows: an item's change against its base, the work its phases committed on
 * its branch ({@code orchestrate/ID}) since it forked from the base branch. Reads the state only
 * (opened to read) and the repository through {@link Git}, nothing of either executing.
 */
public final class ItemDiff {
  /** The patch {@code diff ID} prints, at most (its text, escaped, can be longer). */
  public static final long TEXT_MAX_BYTES = 64L * 1024 * 1024;
  /** The patch a {@code diff ID --json} document holds, at most. */
  public static final long JSON_MAX_BYTES = 1024L * 1024;

  private ItemDiff() {
  }

  /** What {@code diff ID} found: no state yet, no such item, an item with no branch, or its range. */
  public sealed interface Lookup permits NoState, Unknown, NoBranch, Found {
  }

  public record NoState() implements Lookup {
  }

  /** The ids the state knows near the one asked for, for a did-you-mean. */
  public record Unknown(List<String> known) implements Lookup {
    public Unknown {
      known = Frozen.list(known);
    }
  }

  /** The item has no branch: it never ran a phase in a worktree (or the project has none). */
  public record NoBranch(ItemState item) implements Lookup {
  }

  /** The item's branch and the commits of its diff. */
  public record Found(ItemState item, BranchDiff.Range range) implements Lookup {
  }

  /**
   * The item {@code id} and its diff's range.
   *
   * @throws dev.orchestrate.error.OrchestrateException (failed) when git cannot read the branch
   */
  public static Lookup find(StateBackend backend, Git git, String id) {
    if (!backend.exists()) {
      return new NoState();
    }
    try (StateStore store = backend.openToRead()) {
      Optional<ItemState> item = store.items().item(id);
      if (item.isEmpty()) {
        return new Unknown(store.idsNear(id, StatusQuery.NEAR));
      }
      Optional<WorkspaceRecord> ws = store.workspaces().workspace(id);
      if (ws.isEmpty()) {
        return new NoBranch(item.get());
      }
      return new Found(item.get(), BranchDiff.range(git, ws.get()));
    }
  }

  /** The files of the diff with their lines, the first {@link BranchDiff#MAX_FILES} listed. */
  public static BranchDiff.Stat stat(Git git, Found found) {
    return BranchDiff.stat(git, found.range());
  }

  /**
   * The patch into {@code sink} as git makes it, at most {@code maxBytes}: git's raw bytes, which
   * the caller makes safe for where it writes them.
   *
   * @throws IOException when {@code sink} failed (a pager that quit)
   */
  public static BranchDiff.Patch patch(Git git, Found found, long maxBytes, OutputStream sink) throws IOException {
    return BranchDiff.patch(git, found.range(), maxBytes, sink);
  }
}
