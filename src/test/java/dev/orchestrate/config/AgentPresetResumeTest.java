package dev.orchestrate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.ConfigWithers;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The argv that continues an agent CLI's session (issue 29), from the argv of a fresh attempt:
 * launcher, headless flags, the user's args and a cost cap all kept, checked against each CLI's
 * recorded {@code --help} (src/test/resources/agent-outputs).
 */
class AgentPresetResumeTest {
  private static final String ID = "321ba6cb-fef3-4df2-aaa3-0076608a0b5b";

  @Test
  void claude_appends_resume_after_the_users_args_and_the_cost_cap() {
    List<String> fresh = AgentPreset.CLAUDE.argv(List.of(), List.of("--model", "opus", "--permission-mode",
        "acceptEdits"));
    List<String> capped = new java.util.ArrayList<>(fresh);
    capped.addAll(List.of("--max-budget-usd", "2.50"));
    assertEquals(List.of("claude", "-p", "--output-format", "stream-json", "--verbose", "--model", "opus",
        "--permission-mode", "acceptEdits", "--max-budget-usd", "2.50", "--resume", ID),
        AgentPreset.CLAUDE.resumeArgv(capped, ID));
  }

  @Test
  void the_cost_cap_of_a_job_stays_on_a_resumed_claude_argv() {
    AgentConfig agent = new AgentConfig(AgentPreset.CLAUDE.argv(List.of("npx", "claude"), List.of()),
        AgentConfig.DEFAULT_TIMEOUT, AgentConfig.DEFAULT_KILL_GRACE, java.util.Map.of(), ResultFallback.EXIT_CODE,
        AgentConfig.DEFAULT_LOG_MAX_BYTES, AgentConfig.DEFAULT_OUTPUT_TAIL_CHARS, AgentPreset.CLAUDE, List.of(), null)
        .withCostCap(new BigDecimal("0.75"));
    assertEquals(List.of("npx", "claude", "-p", "--output-format", "stream-json", "--verbose", "--max-budget-usd",
        "0.75", "--resume", "s-1"), agent.preset().resumeArgv(agent.command(), "s-1"));
  }

  @Test
  void gemini_appends_resume() {
    assertEquals(List.of("gemini", "--output-format", "stream-json", "--skip-trust", "-p", "", "--approval-mode",
        "auto_edit", "--resume", ID),
        AgentPreset.GEMINI.resumeArgv(
            AgentPreset.GEMINI.argv(List.of(), List.of("--approval-mode", "auto_edit")), ID));
  }

  @Test
  void opencode_appends_session() {
    assertEquals(List.of("opencode", "run", "--format", "json", "--model", "local/m", "--session",
        "ses_de96a72fcffeFNRJRQ1ox0BZxj"),
        AgentPreset.OPENCODE.resumeArgv(
            AgentPreset.OPENCODE.argv(List.of(), List.of("--model", "local/m")), "ses_de96a72fcffeFNRJRQ1ox0BZxj"));
  }

  /**
   * {@code codex exec [OPTIONS] <COMMAND> [ARGS]}: exec's options (the user's {@code --sandbox}, which
   * {@code codex exec resume} does not take, docs/agents.md) stay before the subcommand.
   */
  @Test
  void codex_puts_resume_the_id_and_stdin_after_execs_options() {
    List<String> fresh = AgentPreset.CODEX.argv(List.of(), List.of("--sandbox", "workspace-write", "-m", "o3"));
    assertEquals(List.of("codex", "exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", "-m",
        "o3", "resume", ID, "-"), AgentPreset.CODEX.resumeArgv(fresh, ID));
  }

  @Test
  void a_codex_launcher_that_says_exec_itself_is_left_alone() {
    List<String> fresh = AgentPreset.CODEX.argv(List.of("docker", "exec", "box", "codex"), List.of());
    assertEquals(List.of("docker", "exec", "box", "codex", "exec", "--json", "--skip-git-repo-check", "resume", ID,
        "-"), AgentPreset.CODEX.resumeArgv(fresh, ID));
  }

  @Test
  void a_plain_command_cannot_resume() {
    assertFalse(AgentPreset.COMMAND.resumes());
    assertTrue(AgentPreset.CLAUDE.resumes() && AgentPreset.CODEX.resumes() && AgentPreset.GEMINI.resumes()
        && AgentPreset.OPENCODE.resumes());
    assertThrows(IllegalStateException.class, () -> AgentPreset.COMMAND.resumeArgv(List.of("bash", "a.sh"), "x"));
  }

  @Test
  void resumes_needs_both_the_setting_and_a_preset_that_can() {
    AgentConfig claude = new AgentConfig(List.of("claude"), AgentConfig.DEFAULT_TIMEOUT,
        AgentConfig.DEFAULT_KILL_GRACE, java.util.Map.of(), ResultFallback.EXIT_CODE,
        AgentConfig.DEFAULT_LOG_MAX_BYTES, AgentConfig.DEFAULT_OUTPUT_TAIL_CHARS, AgentPreset.CLAUDE, List.of(), null);
    assertFalse(claude.resumes());
    assertTrue(claude.withResume(true).resumes());
    assertTrue(claude.withResume(true).withCostCap(BigDecimal.ONE).resumes(), "a cost cap keeps the setting");
    assertTrue(claude.withResume(true).asProfile("fast", 2).resumes(), "a profile keeps the setting");
    assertTrue(ConfigWithers.withStallTimeout(claude.withResume(true), java.time.Duration.ofMinutes(5)).resume());
    assertFalse(new AgentConfig(List.of("bash", "a.sh"), AgentConfig.DEFAULT_TIMEOUT, AgentConfig.DEFAULT_KILL_GRACE,
        java.util.Map.of(), ResultFallback.EXIT_CODE, AgentConfig.DEFAULT_LOG_MAX_BYTES,
        AgentConfig.DEFAULT_OUTPUT_TAIL_CHARS).withResume(true).resumes());
  }
}
