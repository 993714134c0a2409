package dev.orchestrate.config;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.orchestrate.yaml.TestFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** agent.preset, agent.args, agent.stall_timeout, execution.max_cost_usd and execution.max_tokens. */
class AgentPresetConfigTest {
  @TempDir
  Path dir;
  private TestFiles files;

  @BeforeEach
  void setUp() {
    files = new TestFiles(dir);
  }

  private Config load(String yaml) {
    return ConfigLoader.load(files.write("orchestrate.yaml", yaml));
  }

  private List<String> problemsOf(String yaml) {
    Path file = files.write("orchestrate.yaml", yaml);
    return problems(() -> ConfigLoader.load(file));
  }

  @Test
  void a_preset_spawns_its_program_with_its_headless_flags_then_the_users_args() {
    Config config = load("agent:\n  preset: claude\n  args: [\"--model\", \"sonnet\", \"--allowedTools\", \"Bash\"]\n");
    assertEquals(AgentPreset.CLAUDE, config.agent().preset());
    assertEquals(List.of("claude", "-p", "--output-format", "stream-json", "--verbose", "--model", "sonnet",
        "--allowedTools", "Bash"), config.agent().command());
    assertEquals(List.of("codex", "exec", "--json", "--skip-git-repo-check"),
        load("agent: {preset: codex}\n").agent().command());
    assertEquals(List.of("gemini", "--output-format", "stream-json", "--skip-trust", "-p", ""),
        load("agent: {preset: gemini}\n").agent().command());
    assertEquals(List.of("opencode", "run", "--format", "json"),
        load("agent: {preset: opencode}\n").agent().command());
  }

  @Test
  void agent_command_overrides_a_presets_program_path() {
    Config config = load("agent:\n  preset: codex\n  command: [\"/opt/codex/bin/codex\"]\n  args: [\"-m\", \"o4\"]\n");
    assertEquals(List.of("/opt/codex/bin/codex", "exec", "--json", "--skip-git-repo-check", "-m", "o4"),
        config.agent().command());
  }

  @Test
  void a_command_without_a_preset_is_the_command_preset_and_args_append_to_it() {
    Config config = load("agent:\n  command: [\"bash\", \"agent.sh\"]\n  args: [\"--fast\"]\n");
    assertEquals(AgentPreset.COMMAND, config.agent().preset());
    assertEquals(List.of("bash", "agent.sh", "--fast"), config.agent().command());
  }

  @Test
  void the_command_preset_needs_a_command_and_unknown_presets_are_named() {
    assertEquals(List.of("2:11: agent.preset: command needs agent.command (the program and its arguments, e.g. "
        + "[\"bash\", \"agent.sh\"]), or name a preset: claude, codex, gemini or opencode"),
        problemsOf("agent:\n  preset: command\n"));
    List<String> problems = problemsOf("agent:\n  preset: cursor\n");
    assertEquals(1, problems.size());
    assertEquals(true, problems.get(0).startsWith("2:11: agent.preset"), problems.toString());
    assertEquals(true, problems.get(0).contains("claude"), problems.toString());
  }

  @Test
  void stall_timeout_is_off_by_default_and_at_least_a_second() {
    assertNull(load("agent: {command: [\"true\"]}\n").agent().stallTimeout());
    assertNull(load("agent: {command: [\"true\"], stall_timeout: off}\n").agent().stallTimeout());
    assertEquals(Duration.ofMinutes(5),
        load("agent: {command: [\"true\"], stall_timeout: 5m}\n").agent().stallTimeout());
    assertEquals(List.of("2:18: agent.stall_timeout must be at least 1s (or off), got 500ms"),
        problemsOf("agent:\n  stall_timeout: 500ms\n"));
  }

  @Test
  void budgets_are_unlimited_by_default_and_validated() {
    ExecutionConfig defaults = load("execution: {}\n").execution();
    assertNull(defaults.maxCostUsd());
    assertNull(defaults.maxTokens());
    ExecutionConfig set = load("execution:\n  max_cost_usd: 2.50\n  max_tokens: 2000000\n").execution();
    assertEquals(2.5, set.maxCostUsd());
    assertEquals(2_000_000L, set.maxTokens());
    assertEquals(5.0, load("execution: {max_cost_usd: 5}\n").execution().maxCostUsd());
    assertEquals(List.of(
        "2:17: execution.max_cost_usd must be more than 0 and at most 1000000 (US dollars), got 0",
        "3:15: execution.max_tokens must be at least 1 and at most 1000000000000, got -5"),
        problemsOf("execution:\n  max_cost_usd: 0\n  max_tokens: -5\n"));
    List<String> words = problemsOf("execution:\n  max_cost_usd: lots\n");
    assertEquals(1, words.size());
    assertEquals(true, words.get(0).contains("an amount in US dollars such as 5 or 0.50"), words.toString());
  }

  @Test
  void a_project_budget_takes_dollars_and_tokens_per_day_and_week_and_is_validated_at_its_line() {
    assertEquals(BudgetConfig.NONE, load("execution: {}\n").budget());
    assertEquals(new BudgetConfig(20.0, 100.0, null, 5_000_000L),
        load("budget:\n  per_day: 20\n  per_week: 100\n  tokens_per_week: 5000000\n").budget());
    assertEquals(List.of(
        "2:12: budget.per_day must be more than 0 and at most 1000000 (US dollars), got 0",
        "3:3: unknown key 'per_month' in budget; expected one of: per_day, per_week, tokens_per_day, tokens_per_week",
        "4:19: budget.tokens_per_day must be at least 1 and at most 1000000000000, got -1"),
        problemsOf("budget:\n  per_day: 0\n  per_month: 5\n  tokens_per_day: -1\n"));
  }

  @Test
  void codex_resumes_after_execs_own_options_with_the_prompt_on_stdin() {
    // `codex exec resume` refuses --sandbox as its own option ("unexpected argument '--sandbox'"):
    // exec's options, the user's included, stay before the subcommand (RealCodexResumeIT).
    List<String> fresh = AgentPreset.CODEX.argv(List.of(), List.of("--sandbox", "workspace-write"));
    assertEquals(List.of("codex", "exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write",
        "resume", "01a21748-622d-77d0-a547-14f942207613", "-"),
        AgentPreset.CODEX.resumeArgv(fresh, "01a21748-622d-77d0-a547-14f942207613"));
    assertEquals(List.of("claude", "-p", "--output-format", "stream-json", "--verbose", "--resume", "s1"),
        AgentPreset.CLAUDE.resumeArgv(AgentPreset.CLAUDE.argv(List.of(), List.of()), "s1"));
  }
}
