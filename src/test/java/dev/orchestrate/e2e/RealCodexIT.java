package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
      JsonNode report = run(model, codex, "{}", "design", "build")[0];
      assertEquals(0, exit, Files.readString(dir.resolve("run.err")));
      assertEquals("all_done", report.path("halt_reason").asText(), report.toString());
      assertEquals(2, report.path("items").path("done").asInt());
      Path state = dir.resolve("state");
      assertEquals(List.of("A|design|completed", "A|build|completed", "B|design|completed", "B|build|completed"),
          Stored.jobs(state).stream().map(j -> j.itemId() + "|" + j.phase() + "|" + j.state().key()).toList());
      assertEquals(4, Stored.assistantTurnsSaying(state, t -> "fake model did " + t.phase() + " of " + t.itemId()));
      // Two model turns per phase of 900 input (200 of them cached) and 40 output tokens; Codex
      // reports no cost, which stays NULL.
      assertEquals(Set.of("1400|80|400|0|null"), Stored.usage(state).values().stream().map(u -> u.inputTokens() + "|"
          + u.outputTokens() + "|" + u.cacheReadTokens() + "|" + u.cacheWriteTokens() + "|" + u.costUsd())
          .collect(Collectors.toSet()));
      assertTrue(report.path("usage").path("cost_usd").isNull());
      assertEquals(8, model.requests.size(), "two model turns per phase");
    }
  }

  /** {@code orchestrate run --json} of items A and B (one phase) with preset codex; returns the report and the jobs. */
  private JsonNode[] run(FakeResponses model, Path codex) throws Exception {
    return run(model, codex, "{max_retries: 0, circuit_breaker: 1}", "build");
  }

  /** As above, with this execution section and these phases. */
  private JsonNode[] run(FakeResponses model, Path codex, String execution, String... phases) throws Exception {
    String provider = "model_providers.local={name=\"local\",base_url=\"" + model.baseUrl()
        + "\",env_key=\"OPENAI_API_KEY\",wire_api=\"responses\"}";
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          preset: codex
          command: ["%s"]
          args: ["--sandbox", "%s", "-c", "model_provider=\\"local\\"", "-c", '%s']
          timeout: 3m
        %s
        execution: %s
        default_pipeline: p
        pipelines:
          p:
            phases:
        %s
        """.formatted(codex, codexSandbox, provider, agentExtra, execution, java.util.Arrays.stream(phases)
        .map(p -> "      - {name: " + p + ", instructions: \"" + Character.toUpperCase(p.charAt(0)) + p.substring(1)
            + " it.\"}")
        .collect(Collectors.joining("\n"))));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
    Path home = Files.createDirectories(dir.resolve("home"));
    ProcessBuilder pb = Launcher.builder(dir, "--state", dir.resolve("state").toString(), "run", "--json",
        "--no-live", "backlog.yaml");
    Map<String, String> env = pb.environment();
    env.put("HOME", home.toString());
    env.put("CODEX_HOME", home.toString());
    // With Debian's bubblewrap installed (0.8, no --argv0), Codex 0.169's own sandbox starts its helper
    // by a name it links only when CODEX_HOME is not under the temporary directory, which a @TempDir
    // is; without the link every command it runs fails ("bwrap: execvp codex-linux-sandbox") and it
    // still exits 0. A TMPDIR beside CODEX_HOME is the real layout (~/.codex is not under /tmp).
    env.put("TMPDIR", Files.createDirectories(dir.resolve("tmp")).toString());
    env.put("OPENAI_API_KEY", "sk-test-dummy");
    env.put("PATH", AgentClis.nodeDir() + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
    Process run = pb.redirectOutput(dir.resolve("run.out").toFile()).redirectError(dir.resolve("run.err").toFile())
        .start();
    assertTrue(run.waitFor(10, TimeUnit.MINUTES), "the run finishes");
    exit = run.exitValue();
    Launcher.Result jobs = Launcher.run(dir, "--state", dir.resolve("state").toString(), "jobs", "--json");
    return new JsonNode[] {new ObjectMapper().readTree(Files.readString(dir.resolve("run.out"))),
        new ObjectMapper().readTree(jobs.out())};
  }

  private int exit;
  /** Codex's own --sandbox mode. */
  private String codexSandbox = "workspace-write";
  /** More of the agent: section ("  sandbox: bwrap"). */
  private String agentExtra = "";

  /**
   * Issue 43: Codex inside orchestrate's sandbox, its own off (it cannot start within another, and
   * would fail every command while exiting 0): the work is done, and asking for both is refused.
   */
  @Test
  void codex_works_inside_orchestrates_sandbox_with_its_own_off_and_both_at_once_are_refused() throws Exception {
    Sandboxes.assumeBwrap();
    Path codex = AgentClis.install(AgentClis.CODEX, "codex");
    agentExtra = "  sandbox: bwrap";
    try (FakeResponses model = new FakeResponses()) {
      JsonNode report = run(model, codex, "{}", "build")[0];
      assertEquals(2, exit, "Codex's workspace-write inside ours: " + Files.readString(dir.resolve("run.err")));
      assertTrue(Files.readString(dir.resolve("run.err")).contains("pass --sandbox danger-full-access"),
          Files.readString(dir.resolve("run.err")));
      assertTrue(report == null || report.isMissingNode() || report.isEmpty() || report.isNull(), "no run: " + report);

      codexSandbox = "danger-full-access";
      report = run(model, codex, "{}", "build")[0];
      assertEquals(0, exit, Files.readString(dir.resolve("run.err")));
      assertEquals(2, report.path("items").path("done").asInt(), report.toString());
      assertEquals(2, Stored.assistantTurnsSaying(dir.resolve("state"),
          t -> "fake model did " + t.phase() + " of " + t.itemId()), "its commands wrote the result files");
      try (java.util.stream.Stream<Path> jobs = Files.list(dir.resolve("state/jobs"))) {
        assertTrue(jobs.allMatch(job -> Files.isDirectory(job.resolve("tmp"))), "each job had the sandbox's TMPDIR");
      }
    }
  }

  @Test
  void codexs_usage_limit_halts_the_run_naming_the_reset_and_blocks_nothing() throws Exception {
    Path codex = AgentClis.install(AgentClis.CODEX, "codex");
    try (FakeResponses model = new FakeResponses()) {
      model.mode = FakeResponses.Mode.USAGE_LIMIT;
      JsonNode[] got = run(model, codex);
      assertEquals(0, exit, got[0].toString());
      assertEquals("usage_limit", got[0].path("halt_reason").asText(), got[0].toString());
      assertTrue(got[0].path("halt_detail").asText().contains("(resets "), got[0].toString());
      assertEquals(0, got[0].path("items").path("blocked").asInt());
      assertEquals("usage_limit", got[1].path("jobs").get(0).path("outcome").asText(), got[1].toString());
    }
  }

  @Test
  void a_refused_key_halts_codex_runs_with_agent_auth() throws Exception {
    Path codex = AgentClis.install(AgentClis.CODEX, "codex");
    try (FakeResponses model = new FakeResponses()) {
      model.mode = FakeResponses.Mode.UNAUTHORIZED;
      JsonNode[] got = run(model, codex);
      assertEquals(1, exit, got[0].toString());
      assertEquals("agent_auth", got[0].path("halt_reason").asText(), got[0].toString());
      assertEquals(0, got[0].path("items").path("blocked").asInt());
      assertEquals("auth", got[1].path("jobs").get(0).path("outcome").asText(), got[1].toString());
    }
  }
}
