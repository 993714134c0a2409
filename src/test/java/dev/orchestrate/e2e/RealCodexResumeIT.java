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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 29's proof with the real Codex CLI (pinned, from the npm registry), as
 * {@link RealClaudeCodeResumeIT} is for Claude Code: a red {@code verify:} gate goes back to the
 * agent's own thread ({@code codex exec ... resume ID -}). A scripted Responses server on 127.0.0.1,
 * reached through a custom provider, plays the model: on a fresh conversation it breaks
 * {@code state.txt} and reports the phase complete; the gate fails; on the continued conversation it
 * shows what the worktree held and fixes the file. The server sees, in the second attempt's first
 * request, the first attempt's prompt and tool call (Codex sent the earlier conversation). A thread
 * the CLI does not know falls back, in the same job, to a fresh start with the full prompt.
 */
class RealCodexResumeIT {
  @TempDir
  Path dir;

  private static final String SEEN = "worktree-held:";

  /** The shared project (ResumeProject) with preset codex pointed at the scripted server. */
  private ResumeProject project(Path codex, FakeResponses model) throws Exception {
    String provider = "model_providers.local={name=\"local\",base_url=\"" + model.baseUrl()
        + "\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\"}";
    return new ResumeProject(dir, """
          preset: codex
          command: ["%s"]
          args: ["--sandbox", "workspace-write", "-c", "model_provider=\\"local\\"", "-c", '%s']
          timeout: 3m
        """.formatted(codex, provider));
  }

  /**
   * The model: fresh conversations break the file (or fix it when the prompt quotes the gate),
   * continued ones print what the worktree holds (the output comes back in the next request) and
   * fix it.
   */
  private static void script(FakeResponses model) {
    String result = "printf '%s' '{\"result\":\"phase_complete\",\"summary\":\"worked on state.txt\"}' > "
        + "\"$ORCHESTRATE_RESULT_FILE\"";
    model.commands = request -> {
      String last = lastUserText(request);
      if (last.contains(RESUMED)) {
        return "echo " + SEEN + "$(cat state.txt) && echo fixed > state.txt && " + result;
      }
      if (last.contains("## Previous Failure") && last.contains(GATE_SAYS)) { // a fresh start told of the red gate
        return "echo fixed > state.txt && " + result;
      }
      return "echo broken > state.txt && " + result;
    };
  }

  /** The user messages of the request's input, as JSON text, in order. */
  private static List<String> userMessages(JsonNode request) {
    List<String> texts = new ArrayList<>();
    for (JsonNode item : request.path("input")) {
      if ("message".equals(item.path("type").asText("message")) && "user".equals(item.path("role").asText())) {
        texts.add(item.toString());
      }
    }
    return texts;
  }

  private static String lastUserText(JsonNode request) {
    List<String> texts = userMessages(request);
    return texts.isEmpty() ? "" : texts.get(texts.size() - 1);
  }

  private int run(ResumeProject project, String... flags) throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    // Its own TMPDIR, beside (not around) CODEX_HOME: see RealCodexIT.
    return project.run(Map.of("HOME", home.toString(), "CODEX_HOME", home.toString(), "OPENAI_API_KEY",
        "sk-test-dummy", "TMPDIR", Files.createDirectories(dir.resolve("tmp")).toString()), flags);
  }

  private static String readResume(Path d) {
    try {
      return Files.readString(d.resolve("output-resume.log"));
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  @Test
  void a_red_gate_goes_back_to_the_same_codex_thread_which_fixes_it_in_the_worktree_it_left() throws Exception {
    Path codex = AgentClis.install(AgentClis.CODEX, "codex");
    try (FakeResponses model = new FakeResponses()) {
      ResumeProject project = project(codex, model);
      script(model);
      assertEquals(0, run(project), project.lastErr());

      List<Job> jobs = project.jobs();
      assertEquals(2, jobs.size(), () -> "exactly two attempts: " + project.runOut() + describe(jobs));
      Job first = jobs.get(0);
      Job second = jobs.get(1);
      assertEquals("verify_failed", first.outcome(), () -> describe(jobs));
      assertEquals("fresh", first.sessionStart());
      assertNotNull(first.sessionId(), "the first attempt's thread id is recorded");
      assertEquals("succeeded", second.outcome(), () -> describe(jobs));
      assertEquals("resumed", second.sessionStart(), () -> describe(jobs) + readResume(second.dir()));
      assertEquals(first.sessionId(), second.sessionId(), "the second attempt continued the first one's thread");
      assertTrue(Files.readString(first.dir().resolve("gate-check.log")).contains(GATE_SAYS));
      // Codex's turn.completed usage after a resume is the thread's so far: the job keeps its own share.
      assertTrue(first.inputTokens() > 0 && first.outputTokens() > 0, () -> describe(jobs));
      assertTrue(second.inputTokens() > 0 && second.inputTokens() < first.inputTokens() * 1.5,
          "the resumed job's own input tokens, not the thread's: " + first.inputTokens() + " then "
              + second.inputTokens());
      assertTrue(second.outputTokens() > 0 && second.outputTokens() < first.outputTokens() * 1.5,
          "the resumed job's own output tokens, not the thread's: " + first.outputTokens() + " then "
              + second.outputTokens());

      // The second attempt's first model request carries the first attempt's conversation.
      List<JsonNode> resumedRequests = model.requests.stream().filter(r -> lastUserText(r).contains(RESUMED))
          .toList();
      assertFalse(resumedRequests.isEmpty(), "the server saw the resumed prompt");
      JsonNode resumed = resumedRequests.get(0);
      List<String> users = userMessages(resumed);
      String earlier = String.join("\n", users.subList(0, users.size() - 1));
      assertTrue(earlier.contains("# orchestrate: A / build") && earlier.contains("## Task"),
          "the first prompt is in the conversation: " + resumed.path("input"));
      String input = resumed.path("input").toString();
      assertTrue(input.contains("echo broken > state.txt"), "the first attempt's tool call is in it: " + input);
      assertTrue(lastUserText(resumed).contains(GATE_SAYS), "the new prompt carries the gate's output");
      assertFalse(lastUserText(resumed).contains("## Task"), "and only that: not the whole task again");
      // The worktree was kept as the first attempt left it: the continued thread's command saw "broken".
      JsonNode answered = resumedRequests.get(resumedRequests.size() - 1);
      JsonNode output = answered.path("input").get(answered.path("input").size() - 1);
      assertTrue(output.toString().contains(SEEN + "broken"), "the worktree still held broken: " + output);
      // The base branch got the fixed work, and never the red one.
      assertEquals("fixed", project.git("show", "main:state.txt").strip());
      assertFalse(project.git("log", "-p", "main").contains("+broken"), "no red commit on main");
    }
  }

  @Test
  void a_thread_codex_does_not_know_falls_back_to_a_fresh_start_with_the_full_prompt() throws Exception {
    Path codex = AgentClis.install(AgentClis.CODEX, "codex");
    try (FakeResponses model = new FakeResponses()) {
      ResumeProject project = project(codex, model);
      script(model);
      assertEquals(0, run(project, "--cap", "1"), project.lastErr()); // the first attempt only: verify_failed
      List<Job> first = project.jobs();
      assertEquals(1, first.size(), () -> project.runOut() + describe(first));
      assertEquals("verify_failed", first.get(0).outcome(), () -> describe(first));
      // Codex's store no longer has it (another machine, a cleared CODEX_HOME): an unknown thread id.
      String unknown = java.util.UUID.randomUUID().toString();
      project.resumeWith(unknown);

      assertEquals(0, run(project), project.lastErr());
      List<Job> jobs = project.jobs();
      assertEquals(2, jobs.size(), () -> project.runOut() + describe(jobs));
      assertEquals("succeeded", jobs.get(1).outcome(), () -> describe(jobs));
      assertEquals("fresh_after_failed_resume", jobs.get(1).sessionStart(), () -> describe(jobs));
      Path jobDir = jobs.get(1).dir();
      String refused = Files.readString(jobDir.resolve("output-resume.log"));
      assertTrue(refused.contains("no rollout found for thread id " + unknown), "the refused resume's output is "
          + "kept: " + refused);
      assertTrue(Files.readString(jobDir.resolve("prompt-resume.md")).contains(RESUMED));
      String fresh = Files.readString(jobDir.resolve("prompt.md"), StandardCharsets.UTF_8);
      assertTrue(fresh.contains("## Task: build") && fresh.contains(GATE_SAYS), "the full prompt, failure included");
      assertFalse(fresh.contains(RESUMED));
      assertEquals("fixed", project.git("show", "main:state.txt").strip());
    }
  }

}
