package dev.orchestrate.context;

import java.util.List;

/**
 * The text sent to a summarizer: fixed instructions (which a configured prompt may extend, never
 * replace), the previous summary, and only the turns that aged out since it was written.
 */
final class SummaryPrompt {
  /** Always in the prompt (issue 5, docs/agents.md). */
  public static final String PRESERVE = "Preserve all technical decisions, file paths, error messages, "
      + "and architectural constraints. Omit conversational filler.";
  static final String PREVIOUS_OPEN = "<PREVIOUS_SUMMARY>";
  static final String PREVIOUS_CLOSE = "</PREVIOUS_SUMMARY>";
  static final String TURNS_OPEN = "<TURNS>";
  static final String TURNS_CLOSE = "</TURNS>";

  private SummaryPrompt() {
  }

  /**
   * @param customPrompt     extra instructions from the config, or null
   * @param previousSummary  the item's current summary, or null
   * @param turns            the newly aged-out turns, oldest first
   */
  static String build(String customPrompt, String previousSummary, List<Turn> turns) {
    StringBuilder out = new StringBuilder(1024);
    out.append("You condense the earlier history of one backlog item so that an agent can continue ")
        .append("the work without reading it.\n")
        .append(PRESERVE).append('\n');
    if (customPrompt != null && !customPrompt.isBlank()) {
      out.append(customPrompt.strip()).append('\n');
    }
    out.append("Fold the previous summary (if any) and the turns below into one new summary. ")
        .append("Answer with the summary only, as short markdown bullet points.\n\n");
    if (previousSummary != null && !previousSummary.isBlank()) {
      out.append(PREVIOUS_OPEN).append('\n').append(previousSummary.strip()).append('\n')
          .append(PREVIOUS_CLOSE).append("\n\n");
    }
    out.append(TURNS_OPEN).append('\n');
    for (Turn turn : turns) {
      out.append("### ").append(turn.heading()).append('\n').append(turn.text().strip()).append("\n\n");
    }
    out.append(TURNS_CLOSE).append('\n');
    return out.toString();
  }
}
