package dev.orchestrate.context;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.PhaseDef;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What goes into one attempt's prompt. Nullable texts are simply left out of the prompt.
 *
 * @param stage         "pre-phase" while scoping, "phase" otherwise
 * @param maxAttempts   max_retries + 1
 * @param projectMemory the boot context (DESIGN §4), rendered under {@code ## Project Memory}
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
    String projectMemory) {

  public PromptInput {
    Objects.requireNonNull(item, "item");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(stage, "stage");
    Objects.requireNonNull(resultFile, "resultFile");
  }

  /** Without project memory. */
  public PromptInput(BacklogItem item, PhaseDef phase, String stage, int attempt, int maxAttempts,
      String previousPhaseSummary, String unblockNotes, String previousFailure, Path resultFile) {
    this(item, phase, stage, attempt, maxAttempts, previousPhaseSummary, unblockNotes, previousFailure,
        resultFile, null);
  }
}
