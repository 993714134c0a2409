package dev.orchestrate.context;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ProjectCommand;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The prompts of verified work (issue 29): the gates listed, the short prompt of a resumed session. */
class PromptBuilderVerifyTest {
  private static final List<ProjectCommand> GATES = List.of(
      ProjectCommand.shell("tests", "pytest -q `echo tests`", Duration.ofMinutes(5)),
      new ProjectCommand("lint", List.of("ruff", "check", "."), "ruff check .", Duration.ofMinutes(1)));

  private static PromptInput input() {
    return new PromptInput(item("A"), phase("build"), "phase", 2, 3, "designed it", null,
        "gate 'tests' failed (exit 1)\n\nFAILED test_add", Path.of("/tmp/result.json"))
        .withPriorContext(new PriorContext("- decided: Postgres 16", List.of()))
        .withProjectMemory("- the build uses make");
  }

  private static final String REPORTING = "\n## Reporting the result\n\n"
      + "When you finish, write JSON to the file named by $ORCHESTRATE_RESULT_FILE (/tmp/result.json):\n\n"
      + "```json\n"
      + "{\"result\": \"phase_complete\", \"summary\": \"what was done\", "
      + "\"context\": \"why it failed / what is needed\"}\n"
      + "```\n\n"
      + "`result` is one of: `phase_complete` (this phase is done), `subphase_complete` "
      + "(progress made; run this phase again), `failed` (it may be retried; say why in "
      + "`context`), `blocked` (a person must act; say what is needed in `context`). "
      + "Without the file, exit code 0 means phase_complete and any other exit code failed.\n";

  private static final String CHECKS = "\n## Checks\n\nAfter you report `phase_complete`, orchestrate runs these in "
      + "the worktree; the phase counts only if every one exits 0:\n\n"
      + "- tests: `pytest -q 'echo tests'`\n"
      + "- lint: `ruff check .`\n";

  @Test
  void the_full_prompt_lists_the_gates_between_the_task_and_the_reporting() {
    String prompt = PromptBuilder.build(input().withVerify(GATES));
    assertTrue(prompt.contains("\n## Task: build\n\nDo build.\n" + CHECKS + REPORTING), prompt);
  }

  @Test
  void without_gates_there_is_no_checks_section() {
    String prompt = PromptBuilder.build(input());
    assertFalse(prompt.contains("## Checks"), prompt);
    assertEquals(prompt, PromptBuilder.build(input().withVerify(List.of())));
  }

  @Test
  void the_resume_prompt_carries_only_the_failure_the_checks_and_the_result_file() {
    String prompt = PromptBuilder.resume(input().withVerify(GATES));
    assertEquals("# orchestrate: A / build, attempt 2 of 3\n\n"
        + "This continues your last attempt at this phase. It did not count as done; the reason is below. Your "
        + "files are as you left them: fix what is described, and do not start over.\n"
        + "\n## Previous Failure\n\ngate 'tests' failed (exit 1)\n\nFAILED test_add\n"
        + CHECKS + REPORTING, prompt);
    assertFalse(prompt.contains("Postgres 16"));
    assertFalse(prompt.contains("the build uses make"));
    assertFalse(prompt.contains("Do build."));
    assertTrue(prompt.length() < PromptBuilder.build(input().withVerify(GATES)).length());
  }

  @Test
  void a_resume_prompt_without_a_recorded_failure_says_the_attempt_ended_without_a_result() {
    PromptInput in = new PromptInput(item("A"), phase("build"), "phase", 2, 3, null, "use the staging DB", null,
        Path.of("/tmp/result.json"));
    assertEquals("# orchestrate: A / build, attempt 2 of 3\n\n"
        + "This continues your last attempt at this phase. It did not count as done; the reason is below. Your "
        + "files are as you left them: fix what is described, and do not start over.\n"
        + "\n## Previous Failure\n\nThe attempt ended without a result.\n"
        + "\n## Unblock Context\n\nuse the staging DB\n" + REPORTING, PromptBuilder.resume(in));
  }

  @Test
  void the_workspace_section_says_whether_a_failed_attempts_edits_are_kept() {
    String discarded = PromptBuilder.build(input().withWorkspace(
        new PromptInput.Workspace(Path.of("/w/A"), "orchestrate/A", false)));
    assertTrue(discarded.contains("orchestrate commits everything in the worktree (but files git ignores), and an "
        + "attempt that fails is discarded before the next one starts.\n"), discarded);
    String kept = PromptBuilder.build(input().withWorkspace(
        new PromptInput.Workspace(Path.of("/w/A"), "orchestrate/A", true)));
    assertTrue(kept.contains("orchestrate commits everything in the worktree (but files git ignores), and an "
        + "attempt that fails is continued by the next one with your edits kept, unless it timed out or crashed: "
        + "then the worktree is reset before the next one starts.\n"), kept);
  }
}
