package dev.orchestrate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.yaml.Problem;
import dev.orchestrate.yaml.ValidationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** agent.preset: acp and agent.acp as the config loads them; each mistake an error where it is. */
class AcpConfigTest {
  @TempDir
  Path dir;

  private Path file(String agent) throws Exception {
    return Files.writeString(dir.resolve("orchestrate.yaml"), "agent:\n" + agent);
  }

  private AgentConfig load(String agent) throws Exception {
    return ConfigLoader.load(file(agent)).agent();
  }

  private List<String> problems(String agent) throws Exception {
    Path file = file(agent);
    ValidationException e = assertThrows(ValidationException.class, () -> ConfigLoader.load(file));
    return e.problems().stream().map(Problem::toString).toList();
  }

  @Test
  void the_preset_runs_the_command_as_given_and_the_permissions_default_to_the_worktree() throws Exception {
    AgentConfig agent = load("  preset: acp\n  command: [npx, \"@zed-industries/claude-code-acp\"]\n  args: [--x]\n");
    assertEquals(AgentPreset.ACP, agent.preset());
    assertEquals(List.of("npx", "@zed-industries/claude-code-acp", "--x"), agent.command());
    assertEquals(AcpConfig.DEFAULT, agent.acp());
    assertEquals("acp", agent.profileName());
    assertTrue(agent.withResume(true).resumes(), "by session/load, where the agent can");
    assertEquals(agent.command(), AgentPreset.ACP.resumeArgv(agent.command(), "s-1"), "the argv is unchanged");
  }

  @Test
  void each_policy_loads() throws Exception {
    String head = "  preset: acp\n  command: [gemini, --experimental-acp]\n";
    assertEquals(new AcpConfig(AcpConfig.Permissions.DENY, Set.of()),
        load(head + "  acp: {permissions: deny}\n").acp());
    assertEquals(new AcpConfig(AcpConfig.Permissions.ALLOW, Set.of()),
        load(head + "  acp:\n    permissions: allow\n").acp());
    assertEquals(AcpConfig.kinds(Set.of("read", "search")),
        load(head + "  acp:\n    permissions: [read, search]\n").acp());
    assertEquals(AcpConfig.DEFAULT, load(head + "  acp: {}\n").acp());
  }

  @Test
  void every_mistake_is_a_load_error_at_its_line_and_column() throws Exception {
    String head = "  preset: acp\n  command: [my-agent]\n";
    Path file = dir.resolve("orchestrate.yaml");
    assertEquals(
        List.of(file + ":4:22: agent.acp.permissions must be worktree, deny, allow, or a list of tool kinds like "
            + "[read, edit], got 'maybe'"),
        problems(head + "  acp: {permissions: maybe}\n"));
    assertEquals(List.of(file + ":4:29: agent.acp.permissions: 'write' is not a tool kind of ACP; use read, edit, "
        + "delete, move, search, execute, think, fetch, switch_mode, other"),
        problems(head + "  acp: {permissions: [read, write]}\n"));
    assertEquals(List.of(file + ":4:9: unknown key 'permission' in agent.acp; did you mean 'permissions'?"),
        problems(head + "  acp: {permission: deny}\n"));
    assertEquals(List.of(file + ":2:11: agent.preset: acp needs agent.command (the ACP agent's program and its "
        + "arguments, e.g. [\"npx\", \"@zed-industries/claude-code-acp\"] or [\"gemini\", \"--experimental-acp\"])"),
        problems("  preset: acp\n"));
    assertEquals(List.of(file + ":3:8: agent.acp is for agent.preset: acp (an Agent Client Protocol agent); this "
        + "agent's preset is claude"), problems("  preset: claude\n  acp: {permissions: deny}\n"));
  }
}
