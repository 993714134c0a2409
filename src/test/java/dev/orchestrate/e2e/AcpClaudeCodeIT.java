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

  @Test
  void an_item_runs_through_two_phases_with_the_claude_code_acp_adapter() throws Exception {
    Path adapter = AgentClis.install(ADAPTER, "claude-code-acp");
    try (FakeAnthropic model = new FakeAnthropic()) {
      Files.writeString(dir.resolve("orchestrate.yaml"), """
          agent:
            preset: acp
            command: ["%s"]
            timeout: 3m
            kill_grace: 5s
            acp:
              permissions: worktree
          default_pipeline: two
          pipelines:
            two:
              phases:
                - name: design
                  instructions: "Design it."
                - name: build
                  instructions: "Build it."
          """.formatted(adapter));
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
      long started = System.nanoTime();
      Process run = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      assertTrue(run.waitFor(10, TimeUnit.MINUTES), "the run finishes");
      assertEquals(0, run.exitValue(), Files.readString(err));
      JsonNode report = new ObjectMapper().readTree(Files.readString(out));
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
      try (Stream<Path> logs = Files.walk(state.resolve("jobs")).filter(p -> p.endsWith("output.log"))) {
        List<Path> all = logs.toList();
        assertEquals(2, all.size());
        for (Path log : all) {
          String text = Files.readString(log);
          assertTrue(text.contains("→ `printf"), text);
          assertTrue(text.contains("[execute]"), text);
          assertTrue(text.contains("[permission allowed: `printf"), text);
          assertTrue(text.contains("(it names no path)]"), text);
          assertTrue(text.contains(": completed\n"), text);
          assertTrue(text.contains("Done: the result file is written.\n[turn ended: end_turn]\n"), text);
          assertFalse(text.contains("\"jsonrpc\""), "readable lines, not the protocol: " + text);
        }
      }
    }
  }
}
