package dev.orchestrate.config;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.yaml.TestFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code execution.checks} and its keys (issue 32, item 2). */
class ChecksConfigTest {
  @TempDir
  Path dir;
  private TestFiles files;

  @BeforeEach
  void setUp() {
    files = new TestFiles(dir);
  }

  private static final String PIPELINES = """
      default_pipeline: p
      pipelines:
        p:
          phases: [{name: build, instructions: Build it.}, {name: test, instructions: Test it.}]
      """;

  private ChecksConfig checks(String execution) {
    return ConfigLoader.load(files.write("orchestrate.yaml", "execution:\n" + execution + PIPELINES)).execution()
        .workspace().checks();
  }

  private List<String> refused(String execution) {
    Path file = files.write("orchestrate.yaml", "execution:\n" + execution + PIPELINES);
    return problems(() -> ConfigLoader.load(file));
  }

  @Test
  void a_string_runs_by_the_shell_a_list_is_the_argv_and_the_keys_have_their_defaults() {
    String push = "  workspace: worktree\n  merge: push\n";
    ChecksConfig shell = checks(push + "  checks: \"gh pr checks {branch}\"\n");
    assertEquals(List.of("/bin/sh", "-c", "gh pr checks {branch}"), shell.command().argv());
    assertEquals(Duration.ofMinutes(1), shell.interval());
    assertEquals(Duration.ofHours(2), shell.timeout());
    assertEquals(3, shell.maxRounds());
    assertNull(shell.phase());
    assertEquals(Duration.ofMinutes(1), shell.command().timeout(), "one poll runs at most an interval");

    ChecksConfig argv = checks(push + "  checks: [ci, status, \"{item}\"]\n  checks_interval: 30m\n"
        + "  checks_timeout: 1h\n  checks_max_rounds: 5\n  checks_phase: build\n");
    assertEquals(List.of("ci", "status", "{item}"), argv.command().argv());
    assertEquals(Duration.ofMinutes(30), argv.interval());
    assertEquals(Duration.ofMinutes(10), argv.command().timeout(), "and at most 10 minutes");
    assertEquals(Duration.ofHours(1), argv.timeout());
    assertEquals(5, argv.maxRounds());
    assertEquals("build", argv.phase());
    assertNull(checks(push));
  }

  @Test
  void checks_need_merge_push_an_interval_of_a_second_and_a_phase_of_the_pipelines() {
    List<String> noPush = refused("  checks: \"ci\"\n");
    assertEquals(1, noPush.size(), noPush.toString());
    assertTrue(noPush.get(0).contains("execution.checks needs execution.merge: push"), noPush.toString());
    String push = "  workspace: worktree\n  merge: push\n  checks: ci\n";
    assertTrue(refused(push + "  checks_interval: 500ms\n").toString()
        .contains("execution.checks_interval must be at least 1s"));
    List<String> phase = refused(push + "  checks_phase: deploy\n");
    assertTrue(phase.toString().contains("execution.checks_phase 'deploy' is not a phase of pipeline p"),
        phase.toString());
    assertTrue(refused(push + "  checks_max_rounds: 0\n").toString().contains("checks_max_rounds"));
  }

  @Test
  void review_feedback_and_land_have_their_defaults_and_land_auto_needs_a_command_and_the_reviews() {
    String base = "  workspace: worktree\n  merge: push\n  checks: ci\n";
    assertNull(checks(base).feedback());
    ReviewFeedbackConfig feedback = checks(base + "  review_feedback: \"gh pr view {pull_request} --json reviews\"\n")
        .feedback();
    assertEquals(List.of("/bin/sh", "-c", "gh pr view {pull_request} --json reviews"), feedback.command().argv());
    assertEquals(3, feedback.maxRounds());
    assertEquals(Duration.ofDays(3), feedback.timeout());
    assertNull(feedback.phase());
    assertTrue(!feedback.lands(), "land: none by default");

    ChecksConfig landing = checks(
        base + "  checks_phase: build\n  review_feedback: [gh, pr, view, \"{pull_request}\"]\n"
            + "  review_feedback_max_rounds: 2\n  review_feedback_timeout: 12h\n  land: auto\n"
            + "  land_command: \"gh pr merge {pull_request} --squash\"\n");
    assertEquals(List.of("gh", "pr", "view", "{pull_request}"), landing.feedback().command().argv());
    assertEquals(2, landing.feedback().maxRounds());
    assertEquals(Duration.ofHours(12), landing.feedback().timeout());
    assertEquals("build", landing.feedbackPhase(), "checks_phase, without review_feedback_phase");
    assertEquals(List.of("/bin/sh", "-c", "gh pr merge {pull_request} --squash"),
        landing.feedback().landCommand().argv());

    assertTrue(refused(base + "  land: auto\n  review_feedback: x\n").toString()
        .contains("execution.land: auto needs execution.land_command"));
    assertTrue(refused(base + "  land: auto\n  land_command: merge\n").toString()
        .contains("execution.land: auto needs execution.review_feedback"));
    assertTrue(refused(base + "  review_feedback: x\n  land_command: merge\n").toString()
        .contains("execution.land_command is set but execution.land is none"));
    assertTrue(refused(base + "  land: sometimes\n").toString().contains("execution.land"));
    assertTrue(refused("  workspace: worktree\n  merge: push\n  review_feedback: x\n").toString()
        .contains("execution.review_feedback needs execution.checks"));
    assertTrue(refused(base + "  review_feedback: x\n  review_feedback_phase: deploy\n").toString()
        .contains("execution.review_feedback_phase 'deploy' is not a phase of pipeline p"));
  }
}
