package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every numeric setting and flag at the largest value it accepts, in one real run: the run
 * finishes normally in the tests' 512 MB heap (at output_tail_chars 2147483647 it used to allocate
 * gigabytes up front and die with a stack trace).
 */
class KnobsAtTheirMaximumCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void a_run_with_every_knob_and_flag_at_its_maximum_finishes_and_keeps_the_agents_long_output() throws Exception {
    Path agent = dir.resolve("agent.sh");
    // 600,000 characters on stdout and 300,000 on stderr: more than the largest tail keeps.
    Files.writeString(agent, """
        #!/usr/bin/env bash
        head -c 600000 /dev/zero | tr '\\0' 'o'
        head -c 300000 /dev/zero | tr '\\0' 'e' >&2
        exit 0
        """);
    Path config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, """
        agent:
          command: ["bash", "%s"]
          timeout: 7d
          kill_grace: 1h
          log_max_bytes: 1GiB
          output_tail_chars: 100000
        execution:
          max_wip: 10000
          max_concurrent: 64
          max_retries: 100
          circuit_breaker: 1000
          phase_cap: 1000000
        default_pipeline: two
        pipelines:
          two:
            phases:
              - {name: first, instructions: "Do the first thing."}
              - {name: second, instructions: "Do the second thing."}
        context:
          window_size: 50
          turn_max_chars: 100000
          summary_max_chars: 100000
          summarizer: {kind: builtin}
        memory:
          keep_recent: 1000000
          boot_context_chars: 1000000
        retention:
          maintenance_interval: 7d
          budget: 10000
          jobs: {max_rows: 1000000000, max_age: 3650d}
          turns: {max_rows: 1000000000, max_age: 3650d}
          events: {max_rows: 1000000000, max_age: 3650d}
          stats_samples: {max_rows: 1000000000, max_age: 3650d}
        """.formatted(agent));
    Path backlog = dir.resolve("backlog.yaml");
    Files.writeString(backlog, "items:\n  - {id: " + "A".repeat(100) + ", title: a}\n  - {id: B, title: b}\n"
        + "  - {id: C, title: c}\n");
    String state = dir.resolve("state").toString();

    CliRunner.Result run = assertTimeoutPreemptively(Duration.ofMinutes(3), () -> CliRunner.run(java.util.Map.of(),
        "--state", state, "--config", config.toString(), "run", "--json", "--cap", "1000000",
        "--max-wip", "10000", "--max-concurrent", "64", backlog.toString()));

    assertEquals(0, run.exitCode(), run.err());
    JsonNode report = JSON.readTree(run.out());
    assertEquals("all_done", report.get("halt_reason").asText(), run.out().substring(0, 300));
    JsonNode status = JSON.readTree(CliRunner.run("--state", state, "status", "--json").out());
    for (JsonNode item : status.get("items")) {
      assertEquals("done", item.get("status").asText(), item.toString());
    }
    CliRunner.Result compact = CliRunner.run("--state", state, "--config", config.toString(), "compact",
        "--keep-recent", "1000000");
    assertEquals(0, compact.exitCode(), compact.err());
    CliRunner.Result jobs = CliRunner.run("--state", state, "jobs", "--json", "--limit", "100000");
    assertEquals(0, jobs.exitCode(), jobs.err());
    assertEquals(6, JSON.readTree(jobs.out()).get("jobs").size());
    try (var dirs = Files.list(dir.resolve("state/jobs"))) {
      List<Path> jobDirs = dirs.toList();
      assertEquals(6, jobDirs.size());
      assertTrue(jobDirs.stream().anyMatch(p -> p.getFileName().toString().contains("A".repeat(100))));
    }
  }
}
