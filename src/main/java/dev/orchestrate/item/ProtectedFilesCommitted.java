package dev.orchestrate.item;

import dev.orchestrate.error.OrchestrateException;
import java.util.List;

/**
 * The phase commit just made holds a change to a file the pipeline's gates run or protect
 * ({@link ItemWorkspaces#changedAmong} found none in the worktree: the agent's index said otherwise
 * than its files); the commit is undone, and the attempt is refused as {@code protected_changed}.
 */
public final class ProtectedFilesCommitted extends OrchestrateException {
  private static final long serialVersionUID = 1L;

  private final List<String> paths;

  public ProtectedFilesCommitted(List<String> paths) {
    super(Kind.FAILED, "the phase commit changed protected files: " + String.join(", ", paths));
    this.paths = List.copyOf(paths);
  }

  /** The protected files the commit changed, sorted, at most 50. */
  public List<String> paths() {
    return paths;
  }
}
