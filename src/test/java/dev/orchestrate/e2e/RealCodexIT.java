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
 * The real Codex CLI (pinned, from the npm registry) through {@code orchestrate run} with
 * {@code preset: codex}, against a scripted model on 127.0.0.1 behind the Responses API (streamed),
 * reached through a custom provider: Codex 0.169 ignores OPENAI_BASE_URL.
 */
class RealCodexIT {
  @TempDir
  Path dir;

  @Test
  void codex_runs_every_phase_of_several_items_to_done_and_the_jobs_carry_its_tokens() throws Exception {
    Path codex = AgentClis.install(AgentClis.CODEX, "codex");
    try (FakeResponses model = new FakeResponses()) {
      String provider = "model_providers.local={name=\"local\",base_url=\"" + model.baseUrl()
          + "\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\"}";
      Files.writeString(dir.resolve("orchestrate.yaml"), """
          agent:
            preset: codex
            command: ["%s"]
            args: ["--sandbox", "workspace-write", "-c", "model_provider=\\"local\\"", "-c", '%s']
            timeout: 3m
          default_pipeline: two
          pipelines:
            two:
              phases:
                - name: design
                  instructions: "Design it."
                - name: build
                  instructions: "Build it."
          """.formatted(codex, provider));
      Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
      Path home = Files.createDirectories(dir.resolve("home"));
      ProcessBuilder pb = Launcher.builder(dir, "--state", dir.resolve("state").toString(), "run", "--json",
          "--no-live", "backlog.yaml");
      Map<String, String> env = pb.environment();
      env.put("HOME", home.toString());
      env.put("CODEX_HOME", home.toString());
      env.put("OPENAI_API_KEY", "sk-test-dummy");
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
      assertEquals(List.of("4"), column(db, "SELECT count(*) FROM turns WHERE role = 'assistant' "
          + "AND text LIKE '%fake model did ' || phase || ' of ' || item_id || '%'"));
      // Two model turns per phase of 900 input (200 of them cached) and 40 output tokens; Codex
      // reports no cost, which stays NULL.
      assertEquals(List.of("1400|80|400|0|1"), column(db, "SELECT DISTINCT input_tokens || '|' || output_tokens "
          + "|| '|' || cache_read_tokens || '|' || cache_write_tokens || '|' || (cost_usd IS NULL) FROM jobs"));
      assertTrue(report.path("usage").path("cost_usd").isNull());
      assertEquals(8, model.requests.size(), "two model turns per phase");
    }
  }
}
