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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a preset's agent said goes into later prompts as its answer, never as the raw JSON of its
 * event stream: an item of two phases run with the real recorded output of Claude Code and Codex
 * (src/test/resources/agent-outputs), whose agent writes a result file as a real one does.
 */
class PresetTurnsCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  static Path recording(String name) {
    return TwoPhaseProject.resource("/agent-outputs/" + name);
  }

  /** Runs item A through two phases with {@code preset}, its agent replaying {@code stdout}; returns the status. */
  private JsonNode runTwoPhases(String preset, String stdout, String summaryJson) throws Exception {
    Path agent = dir.resolve("agent.sh");
    Files.writeString(agent, """
        #!/usr/bin/env bash
        cat '%s'
        printf '{"result": "phase_complete"%s}' > "$ORCHESTRATE_RESULT_FILE"
        """.formatted(recording(stdout), summaryJson));
    Path config = TwoPhaseProject.config(dir, agent, preset);
    Path backlog = Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: Wire retries}\n");
    CliRunner.Result run = cli("--config", config.toString(), "--quiet", "run", backlog.toString());
    assertEquals(0, run.exitCode(), run.err());
    CliRunner.Result status = cli("status", "A", "--json");
    assertEquals(0, status.exitCode(), status.err());
    return JSON.readTree(status.out());
  }

  private String prompt(JsonNode job) throws Exception {
    return Files.readString(dir.resolve("state").resolve(job.get("log_path").asText()).resolveSibling("prompt.md"));
  }

  @ParameterizedTest
  @CsvSource({"claude, claude-code-2.1.330/success.stdout", "codex, codex-0.169.0/success.stdout"})
  void the_second_phases_prompt_carries_the_agents_answer_not_its_event_stream(String preset, String stdout)
      throws Exception {
    JsonNode status = runTwoPhases(preset, stdout, ", \"summary\": \"wrote the exporter\"");
    JsonNode jobs = status.get("jobs");
    assertEquals(2, jobs.size(), status.toString());
    String first = prompt(jobs.get(0));
    String second = prompt(jobs.get(1));
    assertFalse(second.contains("{\"type\":"), second);
    assertTrue(second.contains("wrote the exporter"), second);
    assertTrue(second.contains("Done: the result file is written."), "the agent's answer: " + second);
    assertTrue(second.length() < first.length() + 400,
        "first phase " + first.length() + " bytes, second " + second.length() + ":\n" + second);
    String summary = status.get("phases").get(0).get("summary").asText();
    assertFalse(summary.contains("{\"type\":"), summary);
    assertTrue(summary.contains("Done: the result file is written."), summary);
  }

  @ParameterizedTest
  @CsvSource({"claude, claude-code-2.1.330/success.stdout", "codex, codex-0.169.0/success.stdout"})
  void a_result_file_without_a_summary_gets_the_agents_answer_as_its_summary(String preset, String stdout)
      throws Exception {
    JsonNode status = runTwoPhases(preset, stdout, "");
    String second = prompt(status.get("jobs").get(1));
    assertTrue(second.contains("## Previous Phase Summary\n\nDone: the result file is written."), second);
    assertFalse(second.contains("{\"type\":"), second);
  }
}
