package dev.orchestrate.e2e;

import static dev.orchestrate.e2e.AgentClis.column;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Claude Code CLI (pinned, from the npm registry) through {@code orchestrate run} with
 * {@code preset: claude}, against a scripted model on 127.0.0.1 that speaks the Anthropic Messages
 * API with streaming: each phase's first model turn is a Bash call that writes the result file,
 * the second a final text. No other network: non-essential traffic is off and HOME is the temp dir.
 */
class RealClaudeCodeIT {
  @TempDir
  Path dir;

  @Test
  void claude_code_runs_every_phase_of_several_items_to_done_and_the_jobs_carry_its_tokens_and_cost()
      throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    try (FakeAnthropic model = new FakeAnthropic()) {
      Files.writeString(dir.resolve("orchestrate.yaml"), """
          agent:
            preset: claude
            command: ["%s"]
            args: ["--allowedTools", "Bash"]
            timeout: 3m
          default_pipeline: two
          pipelines:
            two:
              phases:
                - name: design
                  instructions: "Design it."
                - name: build
                  instructions: "Build it."
          """.formatted(claude));
      Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
      Path home = Files.createDirectories(dir.resolve("home"));
      ProcessBuilder pb = Launcher.builder(dir, "--state", dir.resolve("state").toString(), "run", "--json",
          "--no-live", "backlog.yaml");
      Map<String, String> env = pb.environment();
      env.put("HOME", home.toString());
      env.put("CLAUDE_CONFIG_DIR", home.resolve(".claude").toString());
      env.put("ANTHROPIC_BASE_URL", model.baseUrl());
      env.put("ANTHROPIC_API_KEY", "sk-ant-test-dummy");
      env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
      env.put("PATH", AgentClis.nodeDir() + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
      Path out = dir.resolve("run.out");
      Path err = dir.resolve("run.err");
      Process run = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      assertTrue(run.waitFor(10, TimeUnit.MINUTES), "the run finishes");
      assertEquals(0, run.exitValue(), Files.readString(err));

      JsonNode report = new ObjectMapper().readTree(Files.readString(out));
      assertEquals("all_done", report.path("halt_reason").asText(), report.toString());
      assertEquals(2, report.path("items").path("done").asInt());
      Path db = dir.resolve("state/state.db");
      assertEquals(List.of("A|design|completed", "A|build|completed", "B|design|completed", "B|build|completed"),
          column(db, "SELECT item_id || '|' || phase || '|' || state FROM jobs ORDER BY id"));
      // The result files the model's Bash calls wrote are the phase summaries.
      assertEquals(List.of("4"), column(db, "SELECT count(*) FROM turns WHERE role = 'assistant' "
          + "AND text LIKE '%fake model did ' || phase || ' of ' || item_id || '%'"));
      // Each phase: two model turns of 1,200 input, 35 output, 300 cache-read and 50 cache-write tokens,
      // priced by Claude Code itself.
      assertEquals(List.of("2400|70|600|100|0.01162"), column(db, "SELECT DISTINCT input_tokens || '|' || "
          + "output_tokens || '|' || cache_read_tokens || '|' || cache_write_tokens || '|' || cost_usd FROM jobs"));
      assertEquals(0.01162 * 4, report.path("usage").path("cost_usd").asDouble(), 1e-9);
      assertEquals(8, model.agentTurns(), "two model turns per phase");
    }
  }
}
