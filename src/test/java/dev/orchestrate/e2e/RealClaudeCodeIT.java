package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.Usage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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

  /** Runs {@code orchestrate run --json} on items A and B (phases design, build) with preset claude. */
  private Path run(FakeAnthropic model, Path claude, String executionYaml, String... flags) throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          preset: claude
          command: ["%s"]
          args: ["--allowedTools", "Bash"]
          timeout: 3m
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
        """.formatted(claude, agentExtra, executionYaml));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
    Path home = Files.createDirectories(dir.resolve("home"));
    List<String> args = new java.util.ArrayList<>(List.of("--state", dir.resolve("state").toString(), "run", "--json",
        "--no-live"));
    args.addAll(List.of(flags));
    args.add("backlog.yaml");
    ProcessBuilder pb = Launcher.builder(dir, args.toArray(String[]::new));
    model.claudeEnvironment(pb.environment(), home, false);
    Path out = dir.resolve("run.out");
    Path err = dir.resolve("run.err");
    Process run = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(run.waitFor(10, TimeUnit.MINUTES), "the run finishes");
    lastExit = run.exitValue();
    lastErr = Files.readString(err);
    return out;
  }

  private int lastExit;
  private String lastErr;
  /** More of the agent: section, indented as its keys ("  sandbox: bwrap"). */
  private String agentExtra = "";

  /**
   * Issue 43: the real Claude Code does its work inside {@code agent.sandbox: bwrap}: its config
   * directory and the job's directory writable, everything else read-only, the state hidden.
   */
  @Test
  void claude_code_does_every_phase_inside_the_sandbox() throws Exception {
    Sandboxes.assumeBwrap();
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    agentExtra = "  sandbox: bwrap";
    try (FakeAnthropic model = new FakeAnthropic()) {
      Path out = run(model, claude, "");
      assertEquals(0, lastExit, lastErr);
      JsonNode report = new ObjectMapper().readTree(Files.readString(out));
      assertEquals("all_done", report.path("halt_reason").asText(), report.toString());
      assertEquals(2, report.path("items").path("done").asInt());
      assertEquals(4, Stored.assistantTurnsSaying(dir.resolve("state"),
          t -> "fake model did " + t.phase() + " of " + t.itemId()), "each result file the Bash tool wrote was read");
      try (java.util.stream.Stream<Path> jobs = Files.list(dir.resolve("state/jobs"))) {
        assertTrue(jobs.allMatch(job -> Files.isDirectory(job.resolve("tmp"))), "each job had the sandbox's TMPDIR");
      }
    }
  }

  @Test
  void a_cost_budget_halts_the_run_on_the_cost_claude_code_reported_and_is_never_passed() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    try (FakeAnthropic model = new FakeAnthropic()) {
      // a Bash call on every turn: only the cap ends the session
      model.mode = FakeAnthropic.Mode.ENDLESS_TOOLS;
      JsonNode report = new ObjectMapper().readTree(Files.readString(run(model, claude, "", "--max-cost", "0.02")));
      assertEquals(0, lastExit, lastErr);
      assertEquals("budget", report.path("halt_reason").asText(), report.toString());
      // The first job runs with --max-budget-usd 0.02 (all that is left, one slot). Claude Code
      // checks its cap between model turns, so a job can pass it by one turn ($0.00581 here): the
      // worst case docs/agents.md states. Nothing else starts once the budget is spent; before,
      // a budget was checked only between rounds, so every slot could overspend.
      assertEquals(1, report.path("phases_run").asInt(), report.toString());
      assertTrue(report.path("usage").path("cost_usd").asDouble() <= 0.02 + 0.00581 + 1e-9, report.toString());
      assertTrue(report.path("halt_detail").asText().contains("--max-cost"), report.toString());
    }
  }

  @Test
  void an_api_error_fails_the_attempt_with_claude_codes_own_message() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.API_ERROR;
      JsonNode report = new ObjectMapper().readTree(Files.readString(
          run(model, claude, "execution: {max_retries: 0, circuit_breaker: 5}")));
      assertEquals(1, lastExit, "nothing done, something blocked: " + lastErr);
      assertEquals(2, report.path("items").path("blocked").asInt(), report.toString());
      assertEquals(List.of("the agent reported an error (exit code 1): API Error: 400 scripted failure: the fake model "
          + "refuses this request"), Stored.jobs(dir.resolve("state")).stream().map(JobRecord::reason).distinct()
              .toList());
    }
  }

  @Test
  void claude_code_runs_every_phase_of_several_items_to_done_and_the_jobs_carry_its_tokens_and_cost()
      throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    try (FakeAnthropic model = new FakeAnthropic()) {
      Path out = run(model, claude, "");
      assertEquals(0, lastExit, lastErr);
      JsonNode report = new ObjectMapper().readTree(Files.readString(out));
      assertEquals("all_done", report.path("halt_reason").asText(), report.toString());
      assertEquals(2, report.path("items").path("done").asInt());
      Path state = dir.resolve("state");
      List<JobRecord> jobs = Stored.jobs(state);
      assertEquals(List.of("A|design|completed", "A|build|completed", "B|design|completed", "B|build|completed"),
          jobs.stream().map(j -> j.itemId() + "|" + j.phase() + "|" + j.state().key()).toList());
      // The result files the model's Bash calls wrote are the phase summaries.
      assertEquals(4, Stored.assistantTurnsSaying(state, t -> "fake model did " + t.phase() + " of " + t.itemId()));
      // Each phase: two model turns of 1,200 input, 35 output, 300 cache-read and 50 cache-write tokens,
      // priced by Claude Code itself.
      Collection<Usage> usage = Stored.usage(state).values();
      assertEquals(Set.of("2400|70|600|100"), usage.stream().map(u -> u.inputTokens() + "|" + u.outputTokens() + "|"
          + u.cacheReadTokens() + "|" + u.cacheWriteTokens()).collect(Collectors.toSet()));
      usage.forEach(u -> assertEquals(0.01162, u.costUsd(), 1e-15, "the cost of every job"));
      assertEquals(0.01162 * 4, report.path("usage").path("cost_usd").asDouble(), 1e-9);
      assertEquals(8, model.agentTurns(), "two model turns per phase");
    }
  }

  private String jobsJson() throws Exception {
    return Launcher.run(dir, "--state", dir.resolve("state").toString(), "jobs", "--json").out();
  }

  /** Each job's outcome class, oldest first, as {@code jobs --json} shows it. */
  private List<String> outcomes() throws Exception {
    Launcher.Result jobs = Launcher.run(dir, "--state", dir.resolve("state").toString(), "jobs", "--json");
    List<String> out = new java.util.ArrayList<>();
    for (JsonNode job : new ObjectMapper().readTree(jobs.out()).path("jobs")) {
      out.add(0, job.path("outcome").asText());
    }
    return out;
  }

  @Test
  void an_accounts_usage_limit_halts_the_run_blocks_nothing_and_counts_no_attempt() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.USAGE_LIMIT;
      JsonNode report = new ObjectMapper().readTree(Files.readString(
          run(model, claude, "execution: {max_retries: 0, circuit_breaker: 1}")));
      assertEquals(0, lastExit, lastErr);
      assertEquals("usage_limit", report.path("halt_reason").asText(), report.toString());
      assertTrue(report.path("halt_detail").asText().startsWith("claude hit its usage limit"), report.toString());
      assertEquals(0, report.path("items").path("blocked").asInt());
      assertEquals(0, report.path("phases_run").asInt(), "no phase of the cap");
      assertEquals(List.of("usage_limit"), outcomes());
      assertEquals(0, Stored.items(dir.resolve("state")).get(0).progress().attempts(), "no attempt counted");
    }
  }

  @Test
  void a_refused_key_halts_the_run_in_seconds_instead_of_waiting_out_claude_codes_ten_retries() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.UNAUTHORIZED;
      long start = System.nanoTime();
      JsonNode report = new ObjectMapper().readTree(Files.readString(run(model, claude, "")));
      long seconds = java.time.Duration.ofNanos(System.nanoTime() - start).toSeconds();
      assertEquals(1, lastExit, "agent_auth exits 1: " + lastErr);
      assertEquals("agent_auth", report.path("halt_reason").asText(), report + "\n" + jobsJson());
      assertTrue(seconds < 60, "stopped at the first 401 retry, not after Claude Code's ~3 minutes: " + seconds + " s");
      assertEquals(0, report.path("items").path("blocked").asInt());
      assertEquals(List.of("auth"), outcomes());
    }
  }

  @Test
  void a_credit_balance_too_low_halts_with_agent_auth() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.CREDIT_BALANCE;
      JsonNode report = new ObjectMapper().readTree(Files.readString(run(model, claude, "")));
      assertEquals("agent_auth", report.path("halt_reason").asText(), report.toString());
      assertTrue(report.path("halt_detail").asText().contains("Credit balance is too low"), report.toString());
      assertEquals(0, report.path("items").path("blocked").asInt());
    }
  }

  @Test
  void a_transient_rate_limit_that_claude_code_retries_itself_is_a_plain_success() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.OVERLOADED;
      model.failFirst = 1;
      JsonNode report = new ObjectMapper().readTree(Files.readString(run(model, claude, "")));
      assertEquals(0, lastExit, lastErr);
      assertEquals("all_done", report.path("halt_reason").asText(), report.toString());
      assertEquals(2, report.path("items").path("done").asInt());
      assertEquals(List.of("succeeded", "succeeded", "succeeded", "succeeded"), outcomes());
    }
  }
}
