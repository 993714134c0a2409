package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code logs ID} renders a preset's JSON event stream as text (what the agent said, the tools it
 * ran, errors) from the recorded outputs of the real CLIs; {@code --raw} prints the log as written.
 */
class LogsRenderCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  private static Path recording(String name) {
    return TwoPhaseProject.resource(name);
  }

  /** Runs item A once with {@code preset}, its agent printing {@code before} (shell), then {@code stdout}. */
  private Path run(String preset, Path stdout, String before) throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        %s
        cat '%s'
        printf '{"result": "phase_complete"}' > "$ORCHESTRATE_RESULT_FILE"
        """.formatted(before, stdout));
    Path config = Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          preset: %s
          command: ["bash", "%s"]
          timeout: 30s
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: build
                instructions: "Build it."
        """.formatted(preset, agent));
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n");
    CliRunner.Result run = cli("--config", config.toString(), "--quiet", "run", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    JsonNode job = JSON.readTree(cli("status", "A", "--json").out()).get("jobs").get(0);
    return dir.resolve("state").resolve(job.get("log_path").asText());
  }

  @Test
  void claude_codes_stream_reads_as_what_the_agent_said_and_ran_and_raw_is_the_log_as_written() throws Exception {
    Path log = run("claude", recording("/agents/presets/claude-success.jsonl"), "");
    CliRunner.Result shown = cli("logs", "A");
    assertEquals(0, shown.exitCode(), shown.err());
    List<String> lines = shown.out().lines().toList();
    assertFalse(shown.out().contains("{\"type\":"), shown.out());
    assertTrue(lines.get(0).startsWith("── session 64233dca-da6c-423d-8b8e-646872e701d3 (model "), shown.out());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("→ Bash printf ")), shown.out());
    assertTrue(lines.contains("← (Bash completed with no output)"), shown.out());
    assertTrue(lines.contains("Done: the result file is written."), shown.out());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("── done, ") && l.contains("$0.0116")), shown.out());
    assertTrue(shown.err().matches("job \\d+: A build attempt 1, completed, outcome succeeded\\R"), shown.err());

    CliRunner.Result raw = cli("logs", "A", "--raw");
    assertEquals(0, raw.exitCode(), raw.err());
    assertEquals(Files.readString(log), raw.out(), "--raw is the log as written");
    assertEquals(shown.err(), raw.err());
  }

  @Test
  void codexs_stream_reads_as_text_too() throws Exception {
    run("codex", recording("/agents/presets/codex-success.jsonl"), "");
    CliRunner.Result shown = cli("logs", "A");
    assertFalse(shown.out().contains("{\"type\":"), shown.out());
    List<String> lines = shown.out().lines().toList();
    assertTrue(lines.get(0).startsWith("── thread 01a20984-2e3c-71c0-a0d4-72daebf37eab"), shown.out());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("→ /bin/bash -c ") && l.endsWith("(exit 0)")), shown.out());
    assertTrue(lines.contains("Done: the result file is written."), shown.out());
    assertTrue(lines.stream().anyMatch(l -> l.startsWith("── turn completed, 1,800 tokens in, 80 out")), shown.out());
  }

  @Test
  void an_error_the_real_claude_code_reported_is_shown_as_an_error() throws Exception {
    run("claude", recording("/agent-outputs/claude-code-2.1.330/usage-limit-oauth.stdout"), "");
    CliRunner.Result shown = cli("logs", "A");
    assertFalse(shown.out().contains("{\"type\":"), shown.out());
    assertTrue(shown.out().lines().anyMatch(l -> l.startsWith("error: You've hit your 5-hour limit")), shown.out());
  }

  @Test
  void escapes_in_the_agents_text_stay_visible_and_an_overlong_line_is_skipped_with_a_note() throws Exception {
    Path events = Files.writeString(dir.resolve("events.jsonl"),
        "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"red \\u001b[31mtext\\u001b]0;owned\\u0007\"}]}}\n"
            + "plain \u001b[2J line\n");
    run("claude", events, "head -c 3000000 /dev/zero | tr '\\0' a; echo");
    CliRunner.Result shown = cli("logs", "A");
    assertEquals(0, shown.exitCode(), shown.err());
    assertFalse(shown.out().contains("\u001b"), "no escape reaches the terminal");
    List<String> lines = shown.out().lines().toList();
    assertEquals("[a line longer than 2 MiB is not shown: orchestrate logs --raw prints the log as written]",
        lines.get(0));
    assertTrue(lines.contains("red \\x1b[31mtext\\x1b]0;owned\\x07"), shown.out());
    assertTrue(lines.contains("plain \\x1b[2J line"), shown.out());
    assertTrue(shown.out().length() < 10_000, "the long line is not printed");
  }
}
