package dev.orchestrate.context;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.limits.Quote;

/**
 * Assembles the markdown prompt of one attempt, in the order of docs/agents.md: preamble, item, project
 * memory, the summary of prior context, the recent turns verbatim, previous phase summary, unblock
 * context, previous failure, the phase task, and how to report the result.
 */
public final class PromptBuilder {
  private PromptBuilder() {
  }

  public static String build(PromptInput in) {
    StringBuilder out = new StringBuilder(1024);
    BacklogItem item = in.item();
    out.append("# orchestrate: ").append(item.id()).append(" / ").append(in.phase().name()).append("\n\n");
    out.append("You are working on one item of a backlog, one phase at a time. This is the ")
        .append(in.stage()).append(" `").append(in.phase().name()).append("`, attempt ")
        .append(in.attempt()).append(" of ").append(in.maxAttempts()).append(".\n\n");

    out.append("## Item\n\n");
    out.append("- id: ").append(item.id()).append('\n');
    out.append("- title: ").append(Quote.escapedLine(item.title())).append('\n');
    out.append("- priority: ").append(item.priority().key()).append('\n');
    if (!item.tags().isEmpty()) {
      out.append("- tags: ").append(String.join(", ", item.tags())).append('\n');
    }
    if (!item.dependsOn().isEmpty()) {
      out.append("- depends on (done): ").append(String.join(", ", item.dependsOn())).append('\n');
    }
    if (!item.description().isBlank()) {
      out.append('\n').append(Quote.escapedLines(item.description().strip())).append('\n');
    }

    workspace(out, in.workspace());
    section(out, "Project Memory", in.projectMemory());
    priorContext(out, in);
    section(out, "Previous Phase Summary", in.previousPhaseSummary());
    section(out, "Unblock Context", in.unblockNotes());
    section(out, "Previous Failure", in.previousFailure());

    out.append("\n## Task: ").append(in.phase().name()).append("\n\n").append(task(in.phase()));
    checks(out, in.verify());
    reporting(out, in.resultFile());
    return out.toString();
  }

  /**
   * The prompt of an attempt that continues the agent's last session (docs/verification.md): the
   * conversation already holds the item, the task and the protocol, so it carries only what is new:
   * why the last attempt did not count, and where this attempt's result goes.
   */
  public static String resume(PromptInput in) {
    StringBuilder out = new StringBuilder(512);
    out.append("# orchestrate: ").append(in.item().id()).append(" / ").append(in.phase().name())
        .append(", attempt ").append(in.attempt()).append(" of ").append(in.maxAttempts()).append("\n\n")
        .append("This continues your last attempt at this ").append(in.stage()).append(". It did not count as done; ")
        .append(
            "the reason is below. Your files are as you left them: fix what is described, and do not start over.\n");
    section(out, "Previous Failure", in.previousFailure() == null || in.previousFailure().isBlank()
        ? "The attempt ended without a result." : in.previousFailure());
    section(out, "Unblock Context", in.unblockNotes());
    checks(out, in.verify());
    reporting(out, in.resultFile());
    return out.toString();
  }

  /** The gates that will judge the attempt: the agent can run them itself first. */
  private static void checks(StringBuilder out, java.util.List<ProjectCommand> gates) {
    if (gates.isEmpty()) {
      return;
    }
    out.append("\n## Checks\n\nAfter you report `phase_complete`, orchestrate runs these in the worktree; the ")
        .append("phase counts only if every one exits 0:\n\n");
    for (ProjectCommand gate : gates) {
      out.append("- ").append(gate.name()).append(": `").append(gate.text().replace('`', '\'')).append("`\n");
    }
  }

  private static void reporting(StringBuilder out, java.nio.file.Path resultFile) {
    out.append("\n## Reporting the result\n\n")
        .append("When you finish, write JSON to the file named by $ORCHESTRATE_RESULT_FILE (")
        .append(resultFile).append("):\n\n")
        .append("```json\n")
        .append("{\"result\": \"phase_complete\", \"summary\": \"what was done\", ")
        .append("\"context\": \"why it failed / what is needed\"}\n")
        .append("```\n\n")
        .append("`result` is one of: `phase_complete` (this phase is done), `subphase_complete` ")
        .append("(progress made; run this phase again), `failed` (it may be retried; say why in ")
        .append("`context`), `blocked` (a person must act; say what is needed in `context`). ")
        .append("Without the file, exit code 0 means phase_complete and any other exit code failed.\n");
  }

  /** The phase task as given to the agent: what a user turn records. */
  public static String task(PhaseDef phase) {
    StringBuilder out = new StringBuilder();
    if (phase.workflow() != null) {
      out.append("Follow the workflow in `").append(phase.workflow()).append("`.\n");
    }
    if (phase.instructions() != null) {
      out.append(phase.instructions().strip()).append('\n');
    }
    return out.toString();
  }

  public static final String SUMMARY_OPEN = "<SUMMARY_OF_PRIOR_CONTEXT>";
  public static final String SUMMARY_CLOSE = "</SUMMARY_OF_PRIOR_CONTEXT>";

  /** The summary of older turns first, then the recent turns verbatim, oldest first. */
  private static void priorContext(StringBuilder out, PromptInput in) {
    if (in.priorContextSummary() != null && !in.priorContextSummary().isBlank()) {
      out.append('\n').append(SUMMARY_OPEN).append('\n').append(Quote.escapedLines(in.priorContextSummary().strip()))
          .append('\n')
          .append(SUMMARY_CLOSE).append('\n');
    }
    if (in.recentTurns().isEmpty()) {
      return;
    }
    out.append("\n## Recent Turns\n");
    for (Turn turn : in.recentTurns()) {
      out.append("\n### ").append(Quote.escapedLine(turn.heading())).append("\n\n")
          .append(Quote.escapedLines(turn.text().strip())).append('\n');
    }
  }

  /** The line that tells an agent it has a tree of its own, and that orchestrate commits. */
  private static void workspace(StringBuilder out, PromptInput.Workspace workspace) {
    if (workspace == null) {
      return;
    }
    out.append("\n## Workspace\n\n")
        .append("You work in your own git worktree `").append(workspace.path()).append("` (also in ")
        .append("$ORCHESTRATE_WORKSPACE) on branch `").append(workspace.branch()).append("`; no other item's ")
        .append("agent works there. Do not commit, switch branches or rewrite history: when this phase succeeds, ")
        .append("orchestrate commits everything in the worktree (but files git ignores), and ")
        .append(workspace.keepsFailedWork()
            ? "an attempt that fails is continued by the next one with your edits kept, unless it timed out or "
                + "crashed: then the worktree is reset before the next one starts.\n"
            : "an attempt that fails is discarded before the next one starts.\n");
  }

  private static void section(StringBuilder out, String title, String text) {
    if (text == null || text.isBlank()) {
      return;
    }
    // What an agent, a command or a reviewer wrote, as every such text: controls escaped (issue 43:
    // a red checks report and reject notes reached the prompt with ESC, BEL, 8-bit CSI and CR).
    out.append("\n## ").append(title).append("\n\n").append(Quote.escapedLines(text.strip())).append('\n');
  }
}
