package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.JobRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 47 item 1: {@code agent.preset: acp} with the real Gemini CLI in its ACP mode
 * ({@code gemini --acp}; {@code --experimental-acp} is its deprecated spelling), pinned, from the
 * npm registry, orchestrate its ACP client, against the scripted Gemini API on 127.0.0.1
 * ({@link FakeGemini} in {@code WRITE_RESULT} mode): each phase's first model turn is a
 * {@code functionCall} that writes the result file, which the CLI asks permission for and
 * orchestrate's policy answers; the second a final text. The API key is a dummy, HOME is the temp
 * dir (its settings.json selects the API key), and nothing but 127.0.0.1 is reached (checked by
 * hand in a network namespace with only the loopback: docs/agents.md).
 */
class AcpGeminiIT {
  @TempDir
  Path dir;

  private int exit;
  private String stderr;

  /** {@code orchestrate run --json} of item A (phases design, build) with preset acp and the CLI; its report. */
  private JsonNode run(FakeGemini model, Path gemini, String agentExtra, String yamlExtra) throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          preset: acp
          command: ["%s", "--acp"]
          timeout: 2m
          kill_grace: 5s
        %s
        %s
        default_pipeline: two
        pipelines:
          two:
            phases:
              - name: design
                instructions: "Design it."
              - name: build
                instructions: "Build it."
        """.formatted(gemini, agentExtra, yamlExtra));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n");
    Path home = Files.createDirectories(dir.resolve("home"));
    ProcessBuilder pb = Launcher.builder(dir, "--state", dir.resolve("state").toString(), "run", "--json",
        "--no-live", "backlog.yaml");
    model.geminiEnvironment(pb.environment(), home);
    Path out = dir.resolve("run.out");
    Path err = dir.resolve("run.err");
    Process run = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(run.waitFor(5, TimeUnit.MINUTES), "the run finishes");
    exit = run.exitValue();
    stderr = Files.readString(err);
    return new ObjectMapper().readTree(Files.readString(out));
  }

  /** The job logs of the run, oldest first. */
  private List<String> logs() throws Exception {
    try (Stream<Path> logs = Files.walk(dir.resolve("state/jobs")).filter(p -> p.endsWith("output.log"))) {
      List<String> texts = new java.util.ArrayList<>();
      for (Path log : logs.sorted().toList()) {
        texts.add(Files.readString(log));
      }
      return texts;
    }
  }

  /** Processes still running with this test's HOME in their environment: what an agent left behind. */
  private List<Long> leftovers() {
    String home = "HOME=" + dir.resolve("home");
    return ProcessHandle.allProcesses().filter(p -> {
      try {
        String env = Files.readString(Path.of("/proc/" + p.pid() + "/environ"),
            java.nio.charset.StandardCharsets.ISO_8859_1);
        return java.util.Arrays.asList(env.split("\0")).contains(home);
      } catch (java.io.IOException | RuntimeException e) {
        return false;
      }
    }).map(ProcessHandle::pid).toList();
  }

  @Test
  void an_item_runs_through_two_phases_with_the_gemini_cli_in_acp_mode() throws Exception {
    Path gemini = AgentClis.install(AgentClis.GEMINI_CLI, "gemini");
    try (FakeGemini model = new FakeGemini()) {
      model.mode = FakeGemini.Mode.WRITE_RESULT;
      // design: a shell command (it names no path); build: write_file of the result file's path
      model.tool = prompt -> prompt.contains("Build it.") ? "write_file" : "run_shell_command";
      long started = System.nanoTime();
      JsonNode report = run(model, gemini, "  acp:\n    permissions: worktree", "");
      assertEquals(0, exit, stderr);
      assertEquals("all_done", report.path("halt_reason").asText(), report.toString());
      assertEquals(1, report.path("items").path("done").asInt(), report.toString());
      Path state = dir.resolve("state");
      List<JobRecord> jobs = Stored.jobs(state);
      assertEquals(List.of("A|design|completed", "A|build|completed"),
          jobs.stream().map(j -> j.itemId() + "|" + j.phase() + "|" + j.state().key()).toList());
      // The result files the tools wrote (allowed by the policy) are the phase summaries.
      assertEquals(1, Stored.assistantTurnsSaying(state, t -> "fake model did design of A"));
      assertEquals(1, Stored.assistantTurnsSaying(state, t -> FakeGemini.WRITE_FILE_SUMMARY));
      assertEquals(4, model.agentTurns(), "two model turns per phase");
      assertTrue(java.time.Duration.ofNanos(System.nanoTime() - started).toSeconds() < 100,
          "each agent was ended when its turn was over, not left to its timeout");
      List<String> logs = logs();
      assertEquals(2, logs.size());
      String design = logs.get(0);
      // The CLI sends no tool_call before it asks: the call is announced from the request.
      assertTrue(design.contains("→ printf '%s'"), design);
      assertTrue(design.contains("[execute] (pending)"), design);
      assertTrue(design.contains("[permission allowed: printf '%s'"), design);
      assertTrue(design.contains("(it names no path)]"), design);
      String build = logs.get(1);
      assertTrue(build.contains("[edit] (pending)"), build);
      assertTrue(build.contains("(every path is inside the working directory)]"), build);
      for (String text : logs) {
        assertTrue(text.contains(": completed\n"), text);
        assertTrue(text.contains(FakeGemini.DONE + "\n[turn ended: end_turn]\n"), text);
        assertFalse(text.contains("\"jsonrpc\""), "readable lines, not the protocol: " + text);
      }
      assertEquals(List.of(), leftovers(), "the CLI is stopped after each turn");
    }
  }

  @Test
  void a_tool_call_of_a_kind_the_policy_does_not_allow_is_rejected_and_the_model_is_told() throws Exception {
    Path gemini = AgentClis.install(AgentClis.GEMINI_CLI, "gemini");
    try (FakeGemini model = new FakeGemini()) {
      model.mode = FakeGemini.Mode.WRITE_RESULT;
      JsonNode report = run(model, gemini, "  result_fallback: strict\n  acp:\n    permissions: [read, edit]",
          "execution: {max_retries: 0, circuit_breaker: 5}");
      assertEquals(1, exit, "nothing done, something blocked: " + stderr);
      assertEquals(1, report.path("items").path("blocked").asInt(), report.toString());
      List<JobRecord> jobs = Stored.jobs(dir.resolve("state"));
      assertEquals(1, jobs.size());
      String log = logs().get(0);
      assertTrue(log.contains("[permission rejected: printf '%s'"), log);
      assertTrue(log.contains("(kind execute is not in agent.acp.permissions)]"), log);
      assertFalse(log.contains(": completed\n"), "the command never ran: " + log);
      // The CLI answered the model's call with its refusal, and the model ended the turn.
      JsonNode last = model.requests.get(model.requests.size() - 1).path("contents");
      assertTrue(last.toString().contains("was canceled by the user"), last.toString());
      assertEquals(List.of(), leftovers(), "the CLI is stopped after its turn");
    }
  }
}
