package dev.orchestrate.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.ResultFallback;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Preflight#anchored}: the relative paths of an agent's command become the checkout's, so an
 * agent in an item's worktree runs what preflight checked (issue 30, item 1).
 */
class PreflightAnchoredTest {
  private static final Path PROJECT = Path.of("/home/u/project/sub");

  private static List<String> anchored(String... argv) {
    return Preflight.anchored(agent(List.of(argv)), PROJECT).command();
  }

  private static AgentConfig agent(List<String> argv) {
    return new AgentConfig(argv, Duration.ofMinutes(1), Duration.ofSeconds(1), Map.of(), ResultFallback.EXIT_CODE,
        1024, 100);
  }

  @Test
  void an_interpreters_relative_script_becomes_the_checkouts() {
    assertEquals(List.of("bash", "/home/u/project/sub/agents/claude-wrap.sh", "--flag"),
        anchored("bash", "agents/claude-wrap.sh", "--flag"));
    assertEquals(List.of("/usr/bin/python3", "/home/u/project/tools/agent.py"),
        anchored("/usr/bin/python3", "../tools/agent.py"));
  }

  @Test
  void a_relative_program_path_becomes_the_checkouts() {
    assertEquals(List.of("/home/u/project/sub/agents/example-agent.sh", "x/y"),
        anchored("./agents/example-agent.sh", "x/y"));
  }

  @Test
  void names_on_path_absolute_paths_and_options_stay_as_they_are() {
    AgentConfig plain = agent(List.of("claude", "-p", "--output-format", "stream-json"));
    assertSame(plain, Preflight.anchored(plain, PROJECT));
    assertEquals(List.of("bash", "-c", "echo hi"), anchored("bash", "-c", "echo hi"));
    assertEquals(List.of("bash", "/opt/agent.sh"), anchored("bash", "/opt/agent.sh"));
    assertEquals(List.of("node", "/home/u/project/sub/agent.js"), anchored("node", "agent.js"));
    assertEquals(List.of("env", "agents/x.sh"), anchored("env", "agents/x.sh"), "not an interpreter it knows");
  }
}
