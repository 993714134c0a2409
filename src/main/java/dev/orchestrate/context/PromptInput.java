package dev.orchestrate.context;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.ProjectCommand;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What goes into one attempt's prompt. Nullable texts are simply left out of the prompt.
 *
 * @param stage         "pre-phase" while scoping, "phase" otherwise
 * @param maxAttempts   max_retries + 1
 * @param projectMemory the boot context (docs/agents.md), rendered under {@code ## Project Memory}
 * @param priorContextSummary the summary of the item's older turns, or null
 * @param recentTurns   the item's most recent turns, verbatim, oldest first
 * @param workspace     the item's own git worktree and branch, or null when agents share a directory
 * @param verify        the gates that run after the agent reports success (docs/verification.md)
 */
public record PromptInput(
    BacklogItem item,
    PhaseDef phase,
    String stage,
    int attempt,
    int maxAttempts,
    String previousPhaseSummary,
    String unblockNotes,
    String previousFailure,
    Path resultFile,
    String projectMemory,
    String priorContextSummary,
    List<Turn> recentTurns,
    Workspace workspace,
    List<ProjectCommand> verify) {

  /**
   * An item's own worktree, as the prompt names it.
   *
   * @param keepsFailedWork whether a failed attempt's edits stay for the next attempt (its agent
   *                        profile resumes sessions) instead of being discarded
   */
  public record Workspace(Path path, String branch, boolean keepsFailedWork) {
    public Workspace(Path path, String branch) {
      this(path, branch, false);
    }
  }

  public PromptInput(BacklogItem item, PhaseDef phase, String stage, int attempt, int maxAttempts,
      String previousPhaseSummary, String unblockNotes, String previousFailure, Path resultFile,
      String projectMemory, String priorContextSummary, List<Turn> recentTurns, Workspace workspace) {
    this(item, phase, stage, attempt, maxAttempts, previousPhaseSummary, unblockNotes, previousFailure, resultFile,
        projectMemory, priorContextSummary, recentTurns, workspace, List.of());
  }

  public PromptInput withVerify(List<ProjectCommand> gates) {
    return new PromptInput(item, phase, stage, attempt, maxAttempts, previousPhaseSummary, unblockNotes,
        previousFailure, resultFile, projectMemory, priorContextSummary, recentTurns, workspace, gates);
  }

  public PromptInput(BacklogItem item, PhaseDef phase, String stage, int attempt, int maxAttempts,
      String previousPhaseSummary, String unblockNotes, String previousFailure, Path resultFile,
      String projectMemory, String priorContextSummary, List<Turn> recentTurns) {
    this(item, phase, stage, attempt, maxAttempts, previousPhaseSummary, unblockNotes, previousFailure, resultFile,
        projectMemory, priorContextSummary, recentTurns, null);
  }

  public PromptInput withWorkspace(Workspace workspace) {
    return new PromptInput(item, phase, stage, attempt, maxAttempts, previousPhaseSummary, unblockNotes,
        previousFailure, resultFile, projectMemory, priorContextSummary, recentTurns, workspace, verify);
  }

  public PromptInput {
    recentTurns = recentTurns == null ? List.of() : List.copyOf(recentTurns);
    verify = verify == null ? List.of() : List.copyOf(verify);
    Objects.requireNonNull(item, "item");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(stage, "stage");
    Objects.requireNonNull(resultFile, "resultFile");
  }

  /** Without project memory or prior context. */
  public PromptInput(BacklogItem item, PhaseDef phase, String stage, int attempt, int maxAttempts,
      String previousPhaseSummary, String unblockNotes, String previousFailure, Path resultFile) {
    this(item, phase, stage, attempt, maxAttempts, previousPhaseSummary, unblockNotes, previousFailure,
        resultFile, null, null, List.of());
  }

  public PromptInput withProjectMemory(String memory) {
    return new PromptInput(item, phase, stage, attempt, maxAttempts, previousPhaseSummary, unblockNotes,
        previousFailure, resultFile, memory, priorContextSummary, recentTurns, workspace, verify);
  }

  public PromptInput withPriorContext(PriorContext prior) {
    return new PromptInput(item, phase, stage, attempt, maxAttempts, previousPhaseSummary, unblockNotes,
        previousFailure, resultFile, projectMemory, prior.summary(), prior.recentTurns(), workspace, verify);
  }
}
