package dev.orchestrate.item;

import dev.orchestrate.config.ProjectCommand;
import java.nio.file.Path;
import java.util.List;

/**
 * Where an agent runs ({@link ItemWorkspaces#prepare}).
 *
 * @param workDir   the agent's working directory
 * @param workspace the item's own worktree (ORCHESTRATE_WORKSPACE), or null when shared
 * @param branch    the worktree's branch, or null
 * @param kept      the worktree holds the last attempt's work (prepared with {@code keep})
 * @param setup     the {@code workspace.setup} commands the job runs before its agent (a worktree
 *                  whose set-up has not yet succeeded), else empty
 * @param setUpDone run by the job once the set-up passed, before its agent: records what the set-up
 *                  left in the worktree, so that no phase commit takes it (it may throw, and the
 *                  agent then does not run)
 */
public record Placement(Path workDir, Path workspace, String branch, boolean kept, List<ProjectCommand> setup,
    Runnable setUpDone) {
  public Placement {
    setup = setup == null ? List.of() : List.copyOf(setup);
    setUpDone = setUpDone == null ? () -> {} : setUpDone;
  }

  public Placement(Path workDir, Path workspace, String branch, boolean kept, List<ProjectCommand> setup) {
    this(workDir, workspace, branch, kept, setup, null);
  }

  public Placement(Path workDir, Path workspace, String branch) {
    this(workDir, workspace, branch, false, List.of());
  }

  /** The shared workspace: the agent runs in the backlog's directory. */
  public static Placement shared(Path backlogDir) {
    return new Placement(backlogDir, null, null, false, List.of());
  }
}
