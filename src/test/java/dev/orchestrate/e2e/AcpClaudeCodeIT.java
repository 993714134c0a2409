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
 * Issue 47 item 1: {@code agent.preset: acp} with the real Claude Code ACP adapter
 * ({@code @zed-industries/claude-code-acp}, pinned, from the npm registry; it runs the Claude Code
 * its SDK bundles), orchestrate its ACP client, against the scripted Anthropic model on 127.0.0.1
 * ({@link FakeAnthropic}): each phase's first model turn is a Bash call that writes the result file,
 * which the adapter asks permission for and {@code agent.acp.permissions: worktree} allows (a command
 * names no path), the second a final text. No other network: HOME is the temp dir.
 */
class AcpClaudeCodeIT {
  static final String ADAPTER = "@zed-industries/claude-code-acp@0.16.2";

  @TempDir
  Path dir;

  private int exit;
  private String stderr;

  /** {@code orchestrate run --json} of item A (phases design, build) with preset acp and the adapter; its report. */
  private JsonNode run(FakeAnthropic model, Path adapter, String agentExtra, String yamlExtra) throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          preset: acp
          command: ["%s"]
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
        """.formatted(adapter, agentExtra, yamlExtra));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n");
    Path home = Files.createDirectories(dir.resolve("home"));
    ProcessBuilder pb = Launcher.builder(dir, "--state", dir.resolve("state").toString(), "run", "--json",
        "--no-live", "backlog.yaml");
    model.claudeEnvironment(pb.environment(), home, false);
    // The adapter asks the Claude Code SDK for --dangerously-skip-permissions whenever IS_SANDBOX is
    // set (or it is not root), which Claude Code refuses as root unless IS_SANDBOX is exactly 1
    // ("cannot be used with root/sudo privileges", and session/new fails): a host's own value
    // (IS_SANDBOX=yes, say) must not decide this test. Unset, as root it asks the client.
    pb.environment().remove("IS_SANDBOX");
    Path out = dir.resolve("run.out");
    Path err = dir.resolve("run.err");
    Process run = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(run.waitFor(10, TimeUnit.MINUTES), "the run finishes");
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
  void an_item_runs_through_two_phases_with_the_claude_code_acp_adapter() throws Exception {
    Path adapter = AgentClis.install(ADAPTER, "claude-code-acp");
    try (FakeAnthropic model = new FakeAnthropic()) {
      long started = System.nanoTime();
      JsonNode report = run(model, adapter, "  timeout: 3m\n  kill_grace: 5s\n  acp:\n    permissions: worktree", "");
      assertEquals(0, exit, stderr);
      assertEquals("all_done", report.path("halt_reason").asText(), report.toString());
      assertEquals(1, report.path("items").path("done").asInt(), report.toString());
      Path state = dir.resolve("state");
      List<JobRecord> jobs = Stored.jobs(state);
      assertEquals(List.of("A|design|completed", "A|build|completed"),
          jobs.stream().map(j -> j.itemId() + "|" + j.phase() + "|" + j.state().key()).toList());
      // The result files the Bash calls wrote (allowed by the policy) are the phase summaries.
      assertEquals(2, Stored.assistantTurnsSaying(state, t -> "fake model did " + t.phase() + " of " + t.itemId()));
      assertEquals(4, model.agentTurns(), "two model turns per phase");
      assertTrue(java.time.Duration.ofNanos(System.nanoTime() - started).toMinutes() < 3,
          "each agent was ended when its turn was over, not left to its timeout");
      List<String> logs = logs();
      assertEquals(2, logs.size());
      for (String text : logs) {
        assertTrue(text.contains("→ `printf"), text);
        assertTrue(text.contains("[execute]"), text);
        assertTrue(text.contains("[permission allowed: `printf"), text);
        assertTrue(text.contains("(it names no path)]"), text);
        assertTrue(text.contains(": completed\n"), text);
        assertTrue(text.contains("Done: the result file is written.\n[turn ended: end_turn]\n"), text);
        assertFalse(text.contains("\"jsonrpc\""), "readable lines, not the protocol: " + text);
      }
      assertEquals(List.of(), leftovers(), "the adapter and its Claude Code are stopped after each turn");
    }
  }

  @Test
  void a_provider_that_hangs_times_the_attempt_out_with_session_cancel_and_nothing_left_running() throws Exception {
    Path adapter = AgentClis.install(ADAPTER, "claude-code-acp");
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.HANG_AFTER_TOOL; // the turn after the Bash call is never answered
      JsonNode report = run(model, adapter, "  timeout: 25s\n  kill_grace: 3s",
          "execution: {max_retries: 0, circuit_breaker: 5}");
      assertEquals(1, exit, "nothing done, something blocked: " + stderr);
      assertEquals(1, report.path("items").path("blocked").asInt(), report.toString());
      List<JobRecord> jobs = Stored.jobs(dir.resolve("state"));
      assertEquals(1, jobs.size());
      assertTrue(jobs.get(0).reason().contains("timed out after 25s"), jobs.get(0).reason());
      String log = logs().get(0);
      assertTrue(log.contains("[permission allowed: `printf"), log);
      assertTrue(log.contains("[orchestrate sent session/cancel]"), log);
      assertEquals(List.of(), leftovers(), "the adapter's process tree was stopped after the grace");
    }
  }
}
