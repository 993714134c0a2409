package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agents that report absurd usage (issue 27), through the commands: a script standing in for
 * Claude Code prints a result event with 2^63-1 tokens, a cost of 1e308 or NaN. Each such figure is
 * recorded as unknown with the reason on the job, the token budget still counts the figures that
 * are sane, a NaN cost does not hide the agent's error, and every --json document stays valid JSON
 * without Infinity, NaN or absurd numbers.
 */
class HostileUsageCliTest {
  /** Strict, as any consumer of --json would parse it: NaN or Infinity as bare tokens fail here. */
  private static final ObjectMapper JSON = JsonMapper.builder().disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
      .build();
  private static final String HUGE = Long.toString(Long.MAX_VALUE);

  @TempDir
  Path dir;

  private Path config;

  /** A claude-preset agent printing {@code event} and writing a result file when {@code result} is not null. */
  private void project(String event, boolean resultFile, String execution) throws Exception {
    Path claude = dir.resolve("bin/claude");
    Files.createDirectories(claude.getParent());
    Files.writeString(dir.resolve("event.json"), event + "\n");
    Files.writeString(claude, "#!/usr/bin/env bash\ncat > /dev/null\ncat '" + dir.resolve("event.json") + "'\n"
        + (resultFile ? "printf '{\"result\":\"phase_complete\",\"summary\":\"did %s\"}' \"$ORCHESTRATE_PHASE\" "
            + "> \"$ORCHESTRATE_RESULT_FILE\"\n" : ""));
    Files.setPosixFilePermissions(claude, PosixFilePermissions.fromString("rwxr-xr-x"));
    config = dir.resolve("orchestrate.yaml");
    Files.writeString(config, """
        agent:
          preset: claude
          command: ["./bin/claude"]
          timeout: 20s
        execution: %s
        default_pipeline: two
        pipelines:
          two:
            phases:
              - name: first
                instructions: "Do the first thing."
              - name: second
                instructions: "Do the second thing."
        """.formatted(execution));
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: A, title: a}\n  - {id: B, title: b}\n");
  }

  private CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString(), "--config",
        config.toString()));
    all.addAll(List.of(args));
    return CliRunner.run(all.toArray(String[]::new));
  }

  /** The document, parsed strictly, after checking it has no NaN, Infinity or absurd figure as a value anywhere. */
  private static JsonNode sane(CliRunner.Result result) throws Exception {
    return sane(result, ExitCode.OK);
  }

  private static JsonNode sane(CliRunner.Result result, int exitCode) throws Exception {
    assertEquals(exitCode, result.exitCode(), result.err());
    JsonNode doc = JSON.readTree(result.out()); // bare NaN or Infinity fail here
    assertNoAbsurdNumber(doc, "", result.out());
    return doc;
  }

  private static void assertNoAbsurdNumber(JsonNode node, String path, String doc) {
    // Jackson writes a NaN or infinite double as a string
    assertFalse(node.isTextual() && List.of("NaN", "Infinity", "-Infinity").contains(node.asText()),
        path + " = " + node + "\n" + doc);
    if (node.isNumber()) {
      assertTrue(Double.isFinite(node.asDouble()) && Math.abs(node.asDouble()) <= 1e13, path + " = " + node + "\n"
          + doc);
    }
    node.fields().forEachRemaining(e -> assertNoAbsurdNumber(e.getValue(), path + "." + e.getKey(), doc));
    for (int i = 0; node.isArray() && i < node.size(); i++) {
      assertNoAbsurdNumber(node.get(i), path + "[" + i + "]", doc);
    }
  }

  @Test
  void tokens_of_2_to_the_63_are_unknown_with_the_reason_and_the_token_budget_still_halts_on_the_sane_ones()
      throws Exception {
    project(
        "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\",\"total_cost_usd\":1e308,"
            + "\"usage\":{\"input_tokens\":" + HUGE + ",\"output_tokens\":" + HUGE + ",\"cache_read_input_tokens\":600,"
            + "\"cache_creation_input_tokens\":" + HUGE + "}}",
        true, "{max_tokens: 1000}");

    JsonNode run = sane(cli("run", "--json", dir.resolve("backlog.yaml").toString()));
    assertEquals("budget", run.path("halt_reason").asText(), run.toString());
    assertEquals(1, run.path("phases_run").asInt(), "after 600 sane tokens, a 2nd job of 600 could pass 1000");
    JsonNode usage = run.path("usage");
    assertTrue(usage.path("input_tokens").isNull() && usage.path("output_tokens").isNull()
        && usage.path("cache_write_tokens").isNull() && usage.path("cost_usd").isNull(), usage.toString());
    assertEquals(600, usage.path("cache_read_tokens").asLong());
    assertEquals(600, usage.path("total_tokens").asLong());

    JsonNode jobs = sane(cli("jobs", "--json")).path("jobs");
    assertEquals(1, jobs.size());
    for (JsonNode job : jobs) {
      assertEquals("completed", job.path("state").asText());
      assertTrue(job.path("usage").path("input_tokens").isNull(), job.toString());
      assertEquals(600, job.path("usage").path("total_tokens").asLong());
      String reason = job.path("reason").asText();
      assertTrue(reason.startsWith("usage recorded as unknown: usage.input_tokens 9223372036854775807 (above the "
          + "ceiling of 10^12 tokens per job)"), reason);
      assertTrue(reason.contains("total_cost_usd 1.0E308 (above the ceiling of $1,000,000 per job)"), reason);
    }
    CliRunner.Result text = cli("jobs");
    assertFalse(text.out().contains("9,223") || text.out().contains("00000000000000000000"), text.out());

    JsonNode stats = sane(cli("stats", "--json")).path("usage");
    assertTrue(stats.path("lifetime").path("input_tokens").isNull(), stats.toString());
    assertTrue(stats.path("lifetime").path("cost_usd").isNull(), stats.toString());
    assertEquals(600, stats.path("lifetime").path("total_tokens").asLong());
    assertEquals(0.6, stats.path("last_run").path("budget").path("token_pressure").asDouble(), 1e-9);
    JsonNode status = sane(cli("status", "--json"));
    assertEquals(600, status.path("items").get(0).path("usage").path("total_tokens").asLong(), "A had the job");
  }

  @Test
  void a_nan_cost_does_not_hide_the_agents_error_so_the_failed_attempt_is_not_a_success() throws Exception {
    // an error of the agent's own (a provider's 529 would be a rate limit, which is not counted)
    project(
        "{\"type\":\"result\",\"subtype\":\"error_during_execution\",\"is_error\":true,\"result\":\"the build failed\","
            + "\"total_cost_usd\":NaN,\"usage\":{\"input_tokens\":100,\"output_tokens\":7}}",
        false,
        "{max_retries: 0}");

    JsonNode run = sane(cli("run", "--json", dir.resolve("backlog.yaml").toString()), ExitCode.WORK_FAILED);
    assertEquals(2, run.path("items").path("blocked").asInt(), run.toString());
    assertEquals(0, run.path("items").path("done").asInt(), run.toString());
    assertEquals(214, run.path("usage").path("total_tokens").asLong());
    assertTrue(run.path("usage").path("cost_usd").isNull());

    for (JsonNode job : sane(cli("jobs", "--json")).path("jobs")) {
      assertEquals("failed", job.path("state").asText(), job.toString());
      String reason = job.path("reason").asText();
      assertTrue(reason.startsWith("the agent reported an error: error_during_execution: the build failed"), reason);
      assertTrue(reason.endsWith("usage recorded as unknown: total_cost_usd NaN (not a finite number)"), reason);
    }
    sane(cli("stats", "--json"));
  }
}
