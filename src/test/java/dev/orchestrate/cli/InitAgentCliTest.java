package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code init --agent PRESET} writes a config that runs that CLI. */
class InitAgentCliTest {
  @TempDir
  Path dir;

  @Test
  void init_agent_claude_writes_a_config_using_the_preset_with_its_suggested_flags() {
    CliRunner.Result r = CliRunner.run("init", "--agent", "claude", dir.toString());
    assertEquals(0, r.exitCode(), r.err());
    Config config = ConfigLoader.load(dir.resolve("orchestrate.yaml"));
    assertEquals(AgentPreset.CLAUDE, config.agent().preset());
    assertEquals(
        List.of("claude", "-p", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash", "Edit",
            "Write", "Read"),
        config.agent().command());
    assertTrue(r.out().contains("agent.args"), r.out());
  }

  @Test
  void init_with_a_preset_writes_no_example_agent_it_would_not_run() throws Exception {
    CliRunner.Result r = CliRunner.run("init", "--agent", "claude", dir.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertFalse(Files.exists(dir.resolve("agents")), "the preset runs claude: agents/example-agent.sh is unused");
    assertFalse(r.out().contains("example-agent"), r.out());
    assertFalse(Files.readString(dir.resolve("orchestrate.yaml")).contains("example-agent"));
  }

  @Test
  void init_with_a_preset_does_not_refuse_over_an_example_agent_it_would_not_write() throws Exception {
    Files.createDirectories(dir.resolve("agents"));
    Files.writeString(dir.resolve("agents/example-agent.sh"), "mine\n");
    assertEquals(0, CliRunner.run("init", "--agent", "codex", dir.toString()).exitCode());
    assertEquals("mine\n", Files.readString(dir.resolve("agents/example-agent.sh")));
  }

  @Test
  void init_without_a_preset_says_the_example_runs_as_it_is_and_what_to_change_after() {
    CliRunner.Result r = CliRunner.run("init", dir.toString());
    assertEquals(0, r.exitCode(), r.err());
    List<String> lines = r.out().lines().toList();
    int next = lines.indexOf("Next: try it as it is (the example agent only pretends to work):");
    assertTrue(next > 0, r.out());
    assertEquals("  orchestrate run " + dir.resolve("backlog.yaml"), lines.get(next + 1));
    assertTrue(lines.get(next + 2).startsWith("then set agent.command in orchestrate.yaml to your agent"), r.out());
  }

  @Test
  void every_preset_writes_a_config_that_loads() throws Exception {
    for (String preset : List.of("codex", "gemini", "opencode")) {
      Path project = Files.createDirectory(dir.resolve(preset));
      assertEquals(0, CliRunner.run("init", "--agent", preset, project.toString()).exitCode());
      assertEquals(preset, ConfigLoader.load(project.resolve("orchestrate.yaml")).agent().preset().key());
    }
  }

  @Test
  void an_unknown_agent_is_refused_and_nothing_is_written() {
    CliRunner.Result r = CliRunner.run("init", "--agent", "cursor", dir.toString());
    assertEquals(2, r.exitCode());
    assertEquals("orchestrate: error: --agent must be one of claude, codex, gemini, opencode, got 'cursor' (for any "
        + "other program, run init without --agent and set agent.command)", r.err().strip());
    assertFalse(Files.exists(dir.resolve("orchestrate.yaml")));
  }
}
