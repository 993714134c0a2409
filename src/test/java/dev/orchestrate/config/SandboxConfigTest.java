package dev.orchestrate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.yaml.ValidationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** agent.sandbox and its settings as the config loads them, and what the codex preset passes inside it. */
class SandboxConfigTest {
  @TempDir
  Path dir;

  private Config load(String agent) throws Exception {
    return ConfigLoader.load(Files.writeString(dir.resolve("orchestrate.yaml"), "agent:\n" + agent));
  }

  @Test
  void the_settings_load_and_default_to_no_sandbox() throws Exception {
    assertEquals(SandboxConfig.NONE, load("  command: [\"true\"]\n").agent().sandbox());
    SandboxConfig box = load("""
          command: ["true"]
          sandbox: bwrap
          sandbox_writable: ["~/.npm", /opt/cache]
          sandbox_gate_network: false
          sandbox_hidden: ["~/work-secrets"]
        """).agent().sandbox();
    assertEquals(new SandboxConfig(SandboxConfig.Kind.BWRAP, List.of("~/.npm", "/opt/cache"), false,
        List.of("~/work-secrets")), box);
  }

  @Test
  void a_relative_path_or_one_with_dot_dot_is_refused_where_it_is() {
    ValidationException e = assertThrows(ValidationException.class, () -> load("""
          command: ["true"]
          sandbox: bwrap
          sandbox_writable: [cache, "~/../etc"]
        """));
    assertTrue(e.getMessage().contains("agent.sandbox_writable: 'cache' must be an absolute path or one under ~/"),
        e.getMessage());
    assertTrue(e.getMessage().contains("'~/../etc'"), e.getMessage());
  }

  @Test
  void codex_inside_the_sandbox_runs_without_its_own_unless_its_args_say_otherwise() throws Exception {
    AgentConfig quiet = load("  preset: codex\n  sandbox: bwrap\n").agent();
    assertEquals(List.of("codex", "exec", "--json", "--skip-git-repo-check", "--sandbox", "danger-full-access"),
        quiet.command());
    AgentConfig asked = load("  preset: codex\n  sandbox: bwrap\n  args: [\"--sandbox\", \"workspace-write\"]\n")
        .agent();
    assertEquals(List.of("--sandbox", "workspace-write"), asked.args(), "left as given: preflight refuses it");
    assertEquals(List.of("codex", "exec", "--json", "--skip-git-repo-check"),
        load("  preset: codex\n").agent().command(), "without the sandbox, nothing is added");
  }
}
