package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Usage and cost through the commands: a preset agent (a script standing in for Claude Code that
 * prints output recorded from the real CLI) reports tokens and cost; jobs, status, run and stats
 * show them; --max-cost halts the run.
 */
class UsageCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path config;
  private Path backlog;

  @BeforeEach
  void project() throws Exception {
    Path recording = Path.of(UsageCliTest.class.getResource("/agents/presets/claude-success.jsonl").toURI());
    Path claude = dir.resolve("bin/claude");
    Files.createDirectories(claude.getParent());
    Files.writeString(claude, "#!/usr/bin/env bash\ncat > /dev/null\ncat '" + recording + "'\n"
        + "printf '{\"result\":\"phase_complete\",\"summary\":\"did %s\"}' \"$ORCHESTRATE_PHASE\" > \"$ORCHESTRATE_RESULT_FILE\"\n");
    Files.setPosixFilePermissions(claude, PosixFilePermissions.fromString("rwxr-xr-x"));
    config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, """
        agent:
          preset: claude
          command: ["./bin/claude"]
          timeout: 20s
        default_pipeline: two
        pipelines:
          two:
            phases:
              - name: first
                instructions: "Do the first thing."
              - name: second
                instructions: "Do the second thing."
        """);
    backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString(), "--config",
        config.toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /** The recorded session: 2,400 in, 70 out, 600 cache read, 100 cache write tokens, $0.01162. */
  private static void assertRecordedUsage(JsonNode usage, int jobs) {
    assertEquals(2400L * jobs, usage.path("input_tokens").asLong(), usage.toString());
    assertEquals(70L * jobs, usage.path("output_tokens").asLong());
    assertEquals(600L * jobs, usage.path("cache_read_tokens").asLong());
    assertEquals(100L * jobs, usage.path("cache_write_tokens").asLong());
    assertEquals(3170L * jobs, usage.path("total_tokens").asLong());
    assertEquals(0.01162 * jobs, usage.path("cost_usd").asDouble(), 1e-9);
  }

  @Test
  void jobs_status_run_and_stats_show_the_tokens_and_cost_the_agent_reported() throws Exception {
    CliRunner.Result run = cli("run", "--json", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    JsonNode report = JSON.readTree(run.out());
    assertRecordedUsage(report.path("usage"), 4);
    assertTrue(report.path("budget").path("max_cost_usd").isNull());

    JsonNode jobs = JSON.readTree(cli("jobs", "--json").out()).path("jobs");
    assertEquals(4, jobs.size());
    for (JsonNode job : jobs) {
      assertRecordedUsage(job.path("usage"), 1);
    }
    CliRunner.Result text = cli("jobs");
    assertTrue(text.out().contains("TOKENS") && text.out().contains("3,170") && text.out().contains("$0.0116"),
        text.out());

    JsonNode items = JSON.readTree(cli("status", "--json").out()).path("items");
    assertRecordedUsage(items.get(0).path("usage"), 2);
    assertRecordedUsage(items.get(1).path("usage"), 2);

    JsonNode stats = JSON.readTree(cli("stats", "--json").out()).path("usage");
    assertRecordedUsage(stats.path("lifetime"), 4);
    assertEquals(4, stats.path("lifetime").path("jobs_reported").asInt());
    assertRecordedUsage(stats.path("last_run").path("spend"), 4);
    assertTrue(cli("stats").out().contains("usage, lifetime: 12,680 tokens (9,600 in, 280 out, 2,400 cache read, "
        + "400 cache write), $0.0465 over 4 jobs that reported it"));
  }

  @Test
  void money_in_json_is_rounded_to_a_millionth_of_a_dollar_wherever_it_is_printed() throws Exception {
    CliRunner.Result run = cli("run", "--max-cost", "0.024800000000000003", "--json", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(run.out().contains("\"max_cost_usd\" : 0.0248,"), run.out());
    assertFalse(run.out().contains("00000000"), run.out());
    String stats = cli("stats", "--json").out();
    assertTrue(stats.contains("\"max_cost_usd\" : 0.0248,"), stats);
    assertFalse(stats.contains("00000000"), stats);
  }

  @Test
  void max_cost_halts_the_run_with_reason_budget_exit_0_and_stats_shows_spend_against_it() throws Exception {
    // One job costs $0.01162 and Claude Code is told its cap: the first runs alone, then what is left
    // ($0.00038) cannot pay for a turn of it, so nothing more starts (issue 44: no overshoot).
    CliRunner.Result run = cli("run", "--max-cost", "0.012", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    assertTrue(run.out().contains("stopped: the budget was reached"), run.out());
    assertTrue(run.out().contains("the run's budget of $0.012 (--max-cost) has no room for another job ($0.01162 "
        + "spent)"), run.out());
    assertTrue(run.out().contains("  usage: 3,170 tokens (2,400 in, 70 out, 600 cache read, 100 cache write), "
        + "$0.0116; budget $0.012 (97% spent, past the 95% warning)"), run.out());
    JsonNode items = JSON.readTree(cli("status", "--json").out()).path("items");
    assertEquals("in_progress", items.get(0).path("status").asText(), "its first phase ran");
    assertEquals("new", items.get(1).path("status").asText(), "items the budget stopped stay where they were");
    JsonNode budget = JSON.readTree(cli("stats", "--json").out()).path("usage").path("last_run").path("budget");
    assertEquals(0.012, budget.path("max_cost_usd").asDouble());
    assertEquals(0.01162 / 0.012, budget.path("cost_pressure").asDouble(), 1e-9);
    assertEquals(95, budget.path("warning_percent").asInt(), budget.toString());
    assertTrue(cli("stats").out().contains("; budget $0.012 (97% spent, past the 95% warning)"), cli("stats").out());
  }

  @Test
  void max_cost_and_max_tokens_are_validated() {
    CliRunner.Result cost = cli("run", "--max-cost", "0", backlog.toString());
    assertEquals(2, cost.exitCode());
    assertEquals("orchestrate: error: --max-cost must be more than 0 and at most 1000000 (US dollars), got 0.0",
        cost.err().strip());
    CliRunner.Result tokens = cli("run", "--max-tokens", "0", backlog.toString());
    assertEquals(2, tokens.exitCode());
    assertEquals("orchestrate: error: --max-tokens must be at least 1 and at most 1000000000000, got 0",
        tokens.err().strip());
  }

  @Test
  void a_cost_budget_with_an_agent_that_reports_no_cost_exits_2_before_the_state_is_touched() throws Exception {
    Files.writeString(config, Files.readString(config).replace("preset: claude", "preset: codex"));
    CliRunner.Result flag = cli("run", "--max-cost", "1", backlog.toString());
    assertEquals(2, flag.exitCode(), flag.err());
    assertEquals("orchestrate: error: --max-cost is a cost budget, but agent.preset codex reports tokens, not cost, "
        + "so it could not be kept: use a token budget instead (--max-tokens or execution.max_tokens)",
        flag.err().strip());
    Files.writeString(config, Files.readString(config) + "execution:\n  max_cost_usd: 5\n");
    CliRunner.Result key = cli("run", backlog.toString());
    assertEquals(2, key.exitCode(), key.err());
    assertTrue(key.err().startsWith("orchestrate: error: execution.max_cost_usd is a cost budget"), key.err());
    assertTrue(Files.notExists(dir.resolve("state")), "nothing opened, nothing locked");
    Files.writeString(config, Files.readString(config).replace("  max_cost_usd: 5\n", "  max_tokens: 5\n")
        + "budget:\n  per_day: 20\n");
    CliRunner.Result window = cli("run", backlog.toString());
    assertEquals(2, window.exitCode(), window.err());
    assertEquals("orchestrate: error: budget.per_day is a cost budget, but agent.preset codex reports tokens, not "
        + "cost, so it could not be kept: use a token budget instead (budget.tokens_per_day or "
        + "budget.tokens_per_week)", window.err().strip());
  }

  /** Issue 44: a token budget with an agent that reports no tokens was accepted and never enforced. */
  @Test
  void a_token_budget_with_an_agent_that_reports_no_tokens_exits_2_before_the_state_is_touched() throws Exception {
    Files.writeString(config, Files.readString(config).replace("  preset: claude\n", ""));
    CliRunner.Result flag = cli("run", "--max-tokens", "1000", backlog.toString());
    assertEquals(2, flag.exitCode(), flag.err());
    assertEquals("orchestrate: error: --max-tokens is a token budget, but a plain agent.command reports no tokens, "
        + "so it could not be kept: use an agent.preset (claude, codex, gemini, opencode), which report their "
        + "tokens, or remove --max-tokens", flag.err().strip());
    Files.writeString(config, Files.readString(config) + "budget:\n  tokens_per_week: 5000\n");
    CliRunner.Result window = cli("run", backlog.toString());
    assertEquals(2, window.exitCode(), window.err());
    assertTrue(window.err().startsWith("orchestrate: error: budget.tokens_per_week is a token budget"), window.err());
    assertTrue(Files.notExists(dir.resolve("state")), "nothing opened, nothing locked");
  }

  /** An ACP agent need not report usage (it is optional in the protocol): no budget relies on it. */
  @Test
  void a_budget_with_an_acp_agent_exits_2_before_the_state_is_touched() throws Exception {
    Files.writeString(config, Files.readString(config).replace("preset: claude", "preset: acp"));
    CliRunner.Result tokens = cli("run", "--max-tokens", "1000", backlog.toString());
    assertEquals(2, tokens.exitCode(), tokens.err());
    assertEquals("orchestrate: error: --max-tokens is a token budget, but an ACP agent (agent.preset: acp) need not "
        + "report its tokens, so it could not be kept: use agent.preset claude, codex, gemini or opencode, or remove "
        + "--max-tokens", tokens.err().strip());
    CliRunner.Result cost = cli("run", "--max-cost", "1", backlog.toString());
    assertEquals(2, cost.exitCode(), cost.err());
    assertTrue(cost.err().startsWith("orchestrate: error: --max-cost is a cost budget, but an ACP agent"), cost.err());
    assertTrue(Files.notExists(dir.resolve("state")), "nothing opened, nothing locked");
  }

  @Test
  void money_in_json_is_rounded_to_the_millionth_and_unknown_stays_null() {
    assertEquals(0.3, UsageView.json(new dev.orchestrate.outcome.Usage(1L, 1L, null, null, 0.1 + 0.2)).get("cost_usd"),
        "not 0.30000000000000004");
    assertEquals(0.000001, UsageView.money(0.00000051));
    assertEquals(null, UsageView.json(dev.orchestrate.outcome.Usage.UNKNOWN).get("cost_usd"));
  }

  @Test
  void a_per_day_budget_halts_the_run_naming_when_it_reopens_and_stats_shows_the_window_with_its_warning()
      throws Exception {
    Files.writeString(config, Files.readString(config) + "budget:\n  per_day: 0.024\n");
    JsonNode run = JSON.readTree(cli("run", "--json", backlog.toString()).out());
    assertEquals("budget", run.path("halt_reason").asText(), run.toString());
    String detail = run.path("halt_detail").asText();
    assertTrue(detail.matches("the per-day budget of \\$0\\.024 \\(budget\\.per_day\\) is spent \\(\\$0\\.02324 since "
        + "\\d{4}-\\d\\d-\\d\\d 00:00 UTC\\); it reopens at \\d{4}-\\d\\d-\\d\\d 00:00 UTC"), detail);

    JsonNode windows = JSON.readTree(cli("stats", "--json").out()).path("usage").path("windows");
    assertEquals(1, windows.size(), windows.toString());
    JsonNode day = windows.get(0);
    assertEquals("per_day", day.path("window").asText());
    assertEquals(0.024, day.path("max_cost_usd").asDouble());
    assertEquals(0.02324, day.path("spend").path("cost_usd").asDouble(), 1e-9);
    assertEquals(95, day.path("warning_percent").asInt());
    assertTrue(day.path("reopens_at").asText().endsWith("T00:00:00.000Z"), day.toString());
    String text = cli("stats").out();
    assertTrue(text.contains("; budget $0.024 (97% spent, past the 95% warning); reopens at "), text);
  }
}
