package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run} checks the agent program before it takes the lock; {@code run --dry-run} reports the check. */
class PreflightCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path backlog;

  @BeforeEach
  void project() throws Exception {
    backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - {id: A, title: a}\n");
  }

  private CliRunner.Result run(String agentYaml, Map<String, String> env, String... extra) throws Exception {
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, "agent:\n" + agentYaml);
    List<String> args = new java.util.ArrayList<>(List.of("--state", dir.resolve("state").toString(),
        "--config", config.toString(), "run"));
    args.addAll(List.of(extra));
    args.add(backlog.toString());
    return CliRunner.run(env, args.toArray(String[]::new));
  }

  private void assertRefused(CliRunner.Result r, String message) {
    assertEquals(2, r.exitCode(), r.err());
    assertEquals("", r.out());
    assertEquals(List.of("orchestrate: error: " + message), r.err().lines().toList());
    assertFalse(Files.exists(dir.resolve("state")), "a refused run creates nothing");
  }

  @Test
  void run_exits_2_with_the_install_command_when_a_presets_program_is_not_on_path() throws Exception {
    Path emptyBin = Files.createDirectory(dir.resolve("bin"));
    assertRefused(run("  preset: claude\n", Map.of("PATH", emptyBin.toString())),
        "agent program 'claude' (agent.preset: claude) is not on PATH: install it with "
            + "'npm install -g @anthropic-ai/claude-code', or set agent.command to where it is installed");
    assertRefused(run("  preset: codex\n", Map.of("PATH", emptyBin.toString())),
        "agent program 'codex' (agent.preset: codex) is not on PATH: install it with "
            + "'npm install -g @openai/codex', or set agent.command to where it is installed");
  }

  @Test
  void run_exits_2_with_chmod_or_an_interpreter_when_a_script_is_not_executable() throws Exception {
    Path script = dir.resolve("agent.sh");
    Files.writeString(script, "#!/usr/bin/env bash\necho hi\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
    assertRefused(run("  command: [\"./agent.sh\"]\n", Map.of()),
        "agent program ./agent.sh is not executable: run 'chmod +x ./agent.sh', or start it through its "
            + "interpreter, e.g. agent.command: [\"bash\", \"./agent.sh\"]");
  }

  @Test
  void run_exits_2_when_a_command_path_does_not_exist() throws Exception {
    assertRefused(run("  command: [\"./agents/missing.sh\"]\n", Map.of()),
        "agent program ./agents/missing.sh does not exist (looked for " + dir.resolve("agents/missing.sh")
            + "): install it, or set agent.command to its path (a script: [\"bash\", \"script.sh\"])");
  }

  @Test
  void run_exits_2_when_a_bare_command_is_not_on_path() throws Exception {
    assertRefused(run("  command: [\"no-such-agent-program\", \"--flag\"]\n", Map.of()),
        "agent program 'no-such-agent-program' is not on PATH: install it, or set agent.command to its path "
            + "(a script: [\"bash\", \"script.sh\"])");
  }

  @Test
  void run_exits_2_when_the_script_an_interpreter_runs_does_not_exist() throws Exception {
    assertRefused(run("  command: [\"bash\", \"agents/claud.sh\"]\n", Map.of()),
        "agent script agents/claud.sh (run by bash) does not exist (looked for " + dir.resolve("agents/claud.sh")
            + "): fix the path in agent.command; it is relative to the backlog's directory");
  }

  @Test
  void an_interpreter_with_an_inline_program_is_not_mistaken_for_a_script() throws Exception {
    CliRunner.Result r = run("  command: [\"bash\", \"-c\", \"echo done\"]\n", Map.of(), "--dry-run");
    assertEquals(0, r.exitCode(), r.err());
  }

  @Test
  void a_preset_program_overridden_by_agent_command_is_checked_at_that_path() throws Exception {
    Path fake = dir.resolve("tools/claude");
    Files.createDirectories(fake.getParent());
    Files.writeString(fake, "#!/usr/bin/env bash\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
    CliRunner.Result r = run("  preset: claude\n  command: [\"./tools/claude\"]\n", Map.of(), "--dry-run", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode agent = JSON.readTree(r.out()).path("agent");
    assertEquals("claude", agent.path("preset").asText());
    assertEquals("./tools/claude", agent.path("program").asText());
    assertEquals(fake.toString(), agent.path("resolved").asText());
  }

  @Test
  void dry_run_reports_the_same_failed_check_and_exits_2() throws Exception {
    Path emptyBin = Files.createDirectory(dir.resolve("bin"));
    CliRunner.Result r = run("  preset: gemini\n", Map.of("PATH", emptyBin.toString()), "--dry-run");
    assertRefused(r, "agent program 'gemini' (agent.preset: gemini) is not on PATH: install it with "
        + "'npm install -g @google/gemini-cli', or set agent.command to where it is installed");
  }

  @Test
  void dry_run_shows_where_the_agent_program_resolves() throws Exception {
    Path bin = Files.createDirectory(dir.resolve("bin"));
    Path opencode = bin.resolve("opencode");
    Files.writeString(opencode, "#!/usr/bin/env bash\n");
    Files.setPosixFilePermissions(opencode, PosixFilePermissions.fromString("rwxr-xr-x"));
    CliRunner.Result r = run("  preset: opencode\n", Map.of("PATH", bin.toString()), "--dry-run");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("  agent: opencode (opencode) resolves to " + opencode), r.out());
  }

  private CliRunner.Result runWithGates(String pipelineYaml, Map<String, String> env) throws Exception {
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, "agent:\n  command: [\"true\"]\npipelines:\n  p:\n" + pipelineYaml
        + "default_pipeline: p\n");
    return CliRunner.run(env, "--state", dir.resolve("state").toString(), "--config", config.toString(), "run",
        backlog.toString());
  }

  @Test
  void a_verify_gate_whose_program_is_not_on_path_fails_the_run_not_every_item() throws Exception {
    assertRefused(runWithGates("""
            verify:
              - {name: tests, run: "no-such-test-runner --all && echo ok"}
            phases:
              - {name: build, instructions: Build it.}
        """, Map.of()),
        "verify gate 'tests' of phase 'build' (pipeline 'p'): program 'no-such-test-runner' is not on PATH: "
            + "install it, or fix run");
  }

  @Test
  void a_gates_script_that_does_not_exist_or_cannot_run_fails_the_run_with_its_path() throws Exception {
    assertRefused(runWithGates("""
            phases:
              - name: build
                instructions: Build it.
                verify: [{name: unit, run: ["./test.sh"]}]
        """, Map.of()),
        "verify gate 'unit' of phase 'build' (pipeline 'p'): program ./test.sh does not exist (looked for "
            + dir.resolve("test.sh") + "; it is relative to the backlog's directory): fix run");
    assertRefused(runWithGates("""
            phases:
              - name: build
                instructions: Build it.
                verify: [{name: unit, run: "bash checks/all.sh"}]
        """, Map.of()),
        "verify gate 'unit' of phase 'build' (pipeline 'p'): script checks/all.sh (run by bash) does not exist "
            + "(looked for " + dir.resolve("checks/all.sh") + "): fix run; it is relative to the backlog's directory");
  }

  @Test
  void shell_builtins_assignments_and_syntax_are_left_to_the_shell() throws Exception {
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, """
        agent:
          command: ["true"]
        default_pipeline: p
        pipelines:
          p:
            verify:
              - {name: a, run: "cd sub && make"}
              - {name: b, run: "CI=1 npm test"}
              - {name: c, run: "[ -f x ] || exit 1"}
              - {name: d, run: "sh -c 'exit 0'"}
            phases:
              - {name: build, instructions: Build it.}
        """);
    CliRunner.Result r = CliRunner.run(Map.of(), "--state", dir.resolve("state").toString(), "--config",
        config.toString(), "run", "--dry-run", backlog.toString());
    assertEquals(0, r.exitCode(), r.err());
  }
}
