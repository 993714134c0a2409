package dev.orchestrate.e2e;

import static dev.orchestrate.e2e.ResumeProject.GATE_SAYS;
import static dev.orchestrate.e2e.ResumeProject.RESUMED;
import static dev.orchestrate.e2e.ResumeProject.describe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.orchestrate.e2e.ResumeProject.Job;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29's proof with the real Claude Code CLI (pinned, from the npm registry): a red
 * {@code verify:} gate goes back to the agent's own session. A scripted Messages server on 127.0.0.1
 * plays the model: on a fresh conversation it breaks {@code state.txt} and reports the phase
 * complete; the gate fails; on the continued conversation it records what the worktree held and
 * fixes the file. The server sees, in the second attempt's request, the first attempt's messages
 * (Claude Code sent the earlier conversation, it was not re-prompted). A session the CLI does not
 * know falls back, in the same job, to a fresh start with the full prompt.
 */
class RealClaudeCodeResumeIT {
  @TempDir
  Path dir;

  /** The shared project (ResumeProject) with preset claude. */
  private ResumeProject project(Path claude) throws Exception {
    return new ResumeProject(dir, """
          preset: claude
          command: ["%s"]
          args: ["--allowedTools", "Bash"]
          timeout: 3m
        """.formatted(claude));
  }

  /** The model: fresh conversations break the file (or fix it when the prompt quotes the gate), continued ones fix it. */
  private static void script(FakeAnthropic model, Path seen) {
    String result = "printf '%s' '{\"result\":\"phase_complete\",\"summary\":\"worked on state.txt\"}' > "
        + "\"$ORCHESTRATE_RESULT_FILE\"";
    model.commands = request -> {
      String last = lastUserText(request);
      if (last.contains(RESUMED)) {
        return "cat state.txt > '" + seen + "' && echo fixed > state.txt && " + result;
      }
      if (last.contains("## Previous Failure") && last.contains(GATE_SAYS)) { // a fresh start told of the red gate
        return "echo fixed > state.txt && " + result;
      }
      return "echo broken > state.txt && " + result;
    };
  }

  private static String lastUserText(JsonNode request) {
    JsonNode messages = request.path("messages");
    for (int i = messages.size() - 1; i >= 0; i--) {
      JsonNode m = messages.get(i);
      if ("user".equals(m.path("role").asText()) && !m.toString().contains("tool_result")) {
        return m.toString();
      }
    }
    return "";
  }

  private int run(ResumeProject project, FakeAnthropic model, String... flags) throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    return project.run(Map.of("HOME", home.toString(), "CLAUDE_CONFIG_DIR", home.resolve(".claude").toString(),
        "ANTHROPIC_BASE_URL", model.baseUrl(), "ANTHROPIC_API_KEY", "sk-ant-test-dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"), flags);
  }

  @Test
  void a_red_gate_goes_back_to_the_same_claude_session_which_fixes_it_in_the_worktree_it_left() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    ResumeProject project = project(claude);
    Path seen = dir.resolve("seen-by-attempt-2.txt");
    try (FakeAnthropic model = new FakeAnthropic()) {
      script(model, seen);
      assertEquals(0, run(project, model), project.lastErr());

      List<Job> jobs = project.jobs();
      assertEquals(2, jobs.size(), () -> "exactly two attempts: " + project.runOut() + describe(jobs));
      assertEquals("verify_failed", jobs.get(0).outcome());
      assertEquals("fresh", jobs.get(0).sessionStart());
      assertNotNull(jobs.get(0).sessionId(), "the first attempt's session id is recorded");
      assertEquals("succeeded", jobs.get(1).outcome());
      assertEquals("resumed", jobs.get(1).sessionStart());
      assertEquals(jobs.get(0).sessionId(), jobs.get(1).sessionId(),
          "the second attempt continued the first one's session");
      assertTrue(Files.readString(jobs.get(0).dir().resolve("gate-check.log")).contains(GATE_SAYS));
      // Claude Code's total_cost_usd after a resume is the session's so far: the job keeps its own share.
      double first = jobs.get(0).costUsd();
      double second = jobs.get(1).costUsd();
      assertTrue(second > 0 && second < first * 1.5, "the resumed job's own cost, not the session's: " + first
          + " then " + second);

      // The second attempt's first model request carries the first attempt's conversation.
      JsonNode resumed = model.requests.stream().filter(r -> r.path("tools").size() > 0)
          .filter(r -> lastUserText(r).contains(RESUMED)).findFirst().orElseThrow();
      String conversation = resumed.path("messages").toString();
      assertTrue(conversation.contains("# orchestrate: A / build"), "the first prompt is in the conversation");
      assertTrue(conversation.contains("echo broken > state.txt"), "the first attempt's tool call is in it");
      assertTrue(lastUserText(resumed).contains(GATE_SAYS), "the new prompt carries the gate's output");
      assertFalse(lastUserText(resumed).contains("## Task"), "and only that: not the whole task again");
      // The worktree was kept as the first attempt left it.
      assertEquals("broken", Files.readString(seen).strip());
      // The base branch got the fixed work, and never the red one.
      assertEquals("fixed", project.git("show", "main:state.txt").strip());
      assertFalse(project.git("log", "-p", "main").contains("+broken"), "no red commit on main");
    }
  }

  @Test
  void a_session_claude_code_does_not_know_falls_back_to_a_fresh_start_with_the_full_prompt() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    ResumeProject project = project(claude);
    try (FakeAnthropic model = new FakeAnthropic()) {
      script(model, dir.resolve("seen.txt"));
      assertEquals(0, run(project, model, "--cap", "1"), project.lastErr()); // the first attempt only: verify_failed
      List<Job> first = project.jobs();
      assertEquals(1, first.size(), () -> project.runOut() + describe(first));
      assertEquals("verify_failed", first.get(0).outcome());
      // The CLI's session store no longer has it (another machine, a cleared ~/.claude): an unknown id.
      String unknown = "5f0c1e8a-3b7d-4c2e-9a61-7d2b8e4f1c90";
      project.resumeWith(unknown);

      assertEquals(0, run(project, model), project.lastErr());
      List<Job> jobs = project.jobs();
      assertEquals(2, jobs.size());
      assertEquals("succeeded", jobs.get(1).outcome());
      assertEquals("fresh_after_failed_resume", jobs.get(1).sessionStart());
      Path jobDir = jobs.get(1).dir();
      assertTrue(
          Files.readString(jobDir.resolve("output-resume.log")).contains("No conversation found with session ID: "
              + unknown),
          "the refused resume's output is kept");
      assertTrue(Files.readString(jobDir.resolve("prompt-resume.md")).contains(RESUMED));
      String fresh = Files.readString(jobDir.resolve("prompt.md"), StandardCharsets.UTF_8);
      assertTrue(fresh.contains("## Task: build") && fresh.contains(GATE_SAYS), "the full prompt, failure included");
      assertEquals("fixed", project.git("show", "main:state.txt").strip());
    }
  }

}
