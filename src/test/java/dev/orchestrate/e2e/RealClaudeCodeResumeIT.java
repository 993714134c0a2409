package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

  private static final String RESUMED = "This continues your last attempt";
  private static final String GATE_SAYS = "state.txt is not fixed";

  /** A git project with state.txt = start, and the config: worktrees, resume, one gated phase. */
  private Path project(Path claude) throws Exception {
    Path project = Files.createDirectories(dir.resolve("project"));
    git(project, "init", "-q", "-b", "main");
    Files.writeString(project.resolve("state.txt"), "start\n");
    Files.writeString(project.resolve(".gitignore"), ".orchestrate/\n");
    git(project, "add", "-A");
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start");
    Files.writeString(project.resolve("orchestrate.yaml"), """
        agent:
          preset: claude
          command: ["%s"]
          args: ["--allowedTools", "Bash"]
          timeout: 3m
          resume: true
        execution:
          workspace: worktree
          max_retries: 2
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: build
                instructions: "Make state.txt say fixed."
                verify:
                  - name: check
                    run: "grep -qx fixed state.txt || { echo '%s'; exit 1; }"
        """.formatted(claude, GATE_SAYS));
    Files.writeString(project.resolve("backlog.yaml"), "items:\n  - {id: A, title: fix the state}\n");
    return project;
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

  private int run(Path project, FakeAnthropic model, String... flags) throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    List<String> args = new ArrayList<>(List.of("run", "--json", "--no-live"));
    args.addAll(List.of(flags));
    args.add("backlog.yaml");
    ProcessBuilder pb = Launcher.builder(project, args.toArray(String[]::new));
    Map<String, String> env = pb.environment();
    env.put("HOME", home.toString());
    env.put("CLAUDE_CONFIG_DIR", home.resolve(".claude").toString());
    env.put("ANTHROPIC_BASE_URL", model.baseUrl());
    env.put("ANTHROPIC_API_KEY", "sk-ant-test-dummy");
    env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    env.put("PATH", AgentClis.nodeDir() + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
    Path out = dir.resolve("run.out");
    Path err = dir.resolve("run.err");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the run finishes");
    lastErr = Files.readString(err);
    return p.exitValue();
  }

  private String lastErr;

  private String runOut() {
    try {
      return Files.readString(dir.resolve("run.out")) + "\n" + lastErr;
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }

  private static String describe(List<String[]> jobs) {
    StringBuilder b = new StringBuilder();
    for (String[] job : jobs) {
      b.append("\n").append(String.join(" | ", java.util.Arrays.asList(job).subList(0, 4)));
      try {
        b.append("\n").append(Files.readString(Path.of(job[3], "output.log")));
      } catch (java.io.IOException e) {
        b.append(e);
      }
    }
    return b.toString();
  }

  /** outcome, session_id, session_start and the job directory of item A's jobs, oldest first. */
  private static List<String[]> jobs(Path project) throws Exception {
    List<String[]> rows = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + project.resolve(".orchestrate/state.db"));
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT outcome, session_id, session_start, log_path, cost_usd FROM jobs "
            + "WHERE item_id = 'A' ORDER BY id")) {
      while (rs.next()) {
        rows.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3),
            project.resolve(".orchestrate").resolve(rs.getString(4)).getParent().toString(), rs.getString(5)});
      }
    }
    return rows;
  }

  @Test
  void a_red_gate_goes_back_to_the_same_claude_session_which_fixes_it_in_the_worktree_it_left() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    Path project = project(claude);
    Path seen = dir.resolve("seen-by-attempt-2.txt");
    try (FakeAnthropic model = new FakeAnthropic()) {
      script(model, seen);
      assertEquals(0, run(project, model), lastErr);

      List<String[]> jobs = jobs(project);
      assertEquals(2, jobs.size(), () -> "exactly two attempts: " + runOut() + describe(jobs));
      assertEquals("verify_failed", jobs.get(0)[0]);
      assertEquals("fresh", jobs.get(0)[2]);
      assertNotNull(jobs.get(0)[1], "the first attempt's session id is recorded");
      assertEquals("succeeded", jobs.get(1)[0]);
      assertEquals("resumed", jobs.get(1)[2]);
      assertEquals(jobs.get(0)[1], jobs.get(1)[1], "the second attempt continued the first one's session");
      assertTrue(Files.readString(Path.of(jobs.get(0)[3], "gate-check.log")).contains(GATE_SAYS));
      // Claude Code's total_cost_usd after a resume is the session's so far: the job keeps its own share.
      double first = Double.parseDouble(jobs.get(0)[4]);
      double second = Double.parseDouble(jobs.get(1)[4]);
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
      assertEquals("fixed", git(project, "show", "main:state.txt").strip());
      assertFalse(git(project, "log", "-p", "main").contains("+broken"), "no red commit on main");
    }
  }

  @Test
  void a_session_claude_code_does_not_know_falls_back_to_a_fresh_start_with_the_full_prompt() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    Path project = project(claude);
    try (FakeAnthropic model = new FakeAnthropic()) {
      script(model, dir.resolve("seen.txt"));
      assertEquals(0, run(project, model, "--cap", "1"), lastErr); // the first attempt only: verify_failed
      List<String[]> first = jobs(project);
      assertEquals(1, first.size(), () -> runOut() + describe(first));
      assertEquals("verify_failed", first.get(0)[0]);
      // The CLI's session store no longer has it (another machine, a cleared ~/.claude): an unknown id.
      String unknown = "5f0c1e8a-3b7d-4c2e-9a61-7d2b8e4f1c90";
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + project.resolve(".orchestrate/state.db"));
          Statement st = c.createStatement()) {
        assertEquals(1, st.executeUpdate("UPDATE items SET resume_session = '" + unknown + "' WHERE id = 'A'"));
      }

      assertEquals(0, run(project, model), lastErr);
      List<String[]> jobs = jobs(project);
      assertEquals(2, jobs.size());
      assertEquals("succeeded", jobs.get(1)[0]);
      assertEquals("fresh_after_failed_resume", jobs.get(1)[2]);
      Path jobDir = Path.of(jobs.get(1)[3]);
      assertTrue(
          Files.readString(jobDir.resolve("output-resume.log")).contains("No conversation found with session ID: "
              + unknown),
          "the refused resume's output is kept");
      assertTrue(Files.readString(jobDir.resolve("prompt-resume.md")).contains(RESUMED));
      String fresh = Files.readString(jobDir.resolve("prompt.md"), StandardCharsets.UTF_8);
      assertTrue(fresh.contains("## Task: build") && fresh.contains(GATE_SAYS), "the full prompt, failure included");
      assertEquals("fixed", git(project, "show", "main:state.txt").strip());
    }
  }

  private static String git(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    return out;
  }
}
