package dev.orchestrate.context;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PromptBuilderTest {
  private static Turn turn(long seq, Turn.Role role, String text) {
    return new Turn("A", seq, "design", 1, role, text, Tokens.estimate(text), Instant.EPOCH);
  }

  private static PromptInput input() {
    return new PromptInput(item("A"), phase("build"), "phase", 2, 3, "designed it", "use the staging DB",
        "error: tests failed", Path.of("/tmp/result.json"));
  }

  @Test
  void the_prior_context_comes_after_the_item_summary_first_then_the_turns_in_order_then_the_rest() {
    String prompt = PromptBuilder.build(input().withPriorContext(new PriorContext("- decided: Postgres 16",
        List.of(turn(7, Turn.Role.USER, "Design the change."), turn(8, Turn.Role.ASSISTANT, "result: failed")))));

    List<String> order = List.of("## Item", "<SUMMARY_OF_PRIOR_CONTEXT>\n- decided: Postgres 16\n"
        + "</SUMMARY_OF_PRIOR_CONTEXT>", "## Recent Turns",
        "### Turn 7 · user · design attempt 1\n\nDesign the change.",
        "### Turn 8 · assistant · design attempt 1\n\nresult: failed", "## Previous Phase Summary",
        "## Unblock Context", "## Previous Failure", "## Task: build", "## Reporting the result");
    int at = -1;
    for (String part : order) {
      int next = prompt.indexOf(part);
      assertTrue(next > at, "'" + part + "' out of order in:\n" + prompt);
      at = next;
    }
  }

  @Test
  void without_prior_context_there_is_no_summary_block_and_no_turns_section() {
    String prompt = PromptBuilder.build(input());
    assertFalse(prompt.contains("SUMMARY_OF_PRIOR_CONTEXT"), prompt);
    assertFalse(prompt.contains("## Recent Turns"), prompt);
    assertEquals(prompt, PromptBuilder.build(input().withPriorContext(PriorContext.EMPTY)));
  }

  @Test
  void turns_without_a_summary_are_shown_without_the_block() {
    String prompt = PromptBuilder.build(input().withPriorContext(new PriorContext(null,
        List.of(turn(1, Turn.Role.USER, "Design the change.")))));
    assertFalse(prompt.contains("SUMMARY_OF_PRIOR_CONTEXT"), prompt);
    assertTrue(prompt.contains("## Recent Turns\n\n### Turn 1 · user · design attempt 1"), prompt);
  }

  @Test
  void an_item_with_its_own_worktree_is_told_where_it_works_and_that_orchestrate_commits() {
    String prompt = PromptBuilder.build(input().withWorkspace(
        new PromptInput.Workspace(java.nio.file.Path.of("/repo/.orchestrate/worktrees/A"), "orchestrate/A")));
    assertTrue(prompt.contains("\n## Workspace\n\nYou work in your own git worktree `/repo/.orchestrate/worktrees/A`"
        + " (also in $ORCHESTRATE_WORKSPACE) on branch `orchestrate/A`"), prompt);
    assertTrue(prompt.contains("Do not commit"), prompt);
    assertTrue(prompt.indexOf("## Workspace") < prompt.indexOf("## Task: build"), prompt);
    assertFalse(PromptBuilder.build(input()).contains("## Workspace"));
  }

  /**
   * Issue 43: reject notes and a red checks report reached the prompt with raw ESC, BEL, 8-bit CSI
   * and CR, while a gate's output beside them was escaped. Every text a prompt quotes is escaped
   * the same way now; line breaks and tabs stay.
   */
  @Test
  void notes_a_checks_report_and_turns_reach_the_prompt_with_every_control_escaped() {
    String hostile = "line one\u001b]0;pwned\u0007\rforged\u009b31m\tcol\u202eend\nline two";
    PromptInput in = new PromptInput(item("A"), phase("build"), "phase", 2, 3, "summary " + hostile,
        "notes " + hostile, "checks red: " + hostile, Path.of("/tmp/result.json"))
        .withPriorContext(new PriorContext("sum " + hostile, List.of(turn(1, Turn.Role.ASSISTANT, hostile))));

    String prompt = PromptBuilder.build(in);
    String resumed = PromptBuilder.resume(in);

    String escaped = "line one\\x1b]0;pwned\\x07\\rforged\\u009b31m\tcol\\u202eend\nline two";
    for (String part : List.of("notes " + escaped, "checks red: " + escaped, "summary " + escaped, "sum " + escaped,
        "\n\n" + escaped + "\n")) {
      assertTrue(prompt.contains(part), part + " in:\n" + prompt);
    }
    assertTrue(resumed.contains("notes " + escaped) && resumed.contains("checks red: " + escaped), resumed);
    for (String text : List.of(prompt, resumed)) {
      assertTrue(text.chars().noneMatch(c -> c < 0x20 && c != '\n' && c != '\t' || c >= 0x7f && c <= 0x9f),
          "no raw control character");
    }
  }
}
