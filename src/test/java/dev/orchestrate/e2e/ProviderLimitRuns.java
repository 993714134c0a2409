package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.JobRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the provider-limit scenarios share, as their base class ({@link ProviderLimitScenariosIT}, {@link ProviderLimitPausesIT}):
 * a project of one-phase items for the real Claude Code CLI, the run through the launcher with the
 * CLI's environment pointed at a {@link FakeAnthropic}, and what every scenario checks of its end.
 */
abstract class ProviderLimitRuns {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  /** A project of {@code items} one-phase items for the real Claude Code CLI (installed first, pinned). */
  void project(String onUsageLimit, int items) throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          preset: claude
          command: ["%s"]
          args: ["--allowedTools", "Bash"]
          timeout: 3m
          on_usage_limit: %s
          max_wait: 10m
        execution: {max_concurrent: 4, max_wip: 4, max_retries: 0, circuit_breaker: 1}
        default_pipeline: one
        pipelines:
          one:
            phases:
              - {name: build, instructions: "Build it."}
        """.formatted(claude, onUsageLimit));
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= items; i++) {
      backlog.append("  - {id: I").append(i).append(", title: item ").append(i).append("}\n");
    }
    Files.writeString(dir.resolve("backlog.yaml"), backlog);
  }

  /**
   * The fake model with a usage limit of {@code limitSeconds} whose refusals state a five-hour
   * retry-after, as a real limit says: Claude Code gives up at once instead of waiting by itself.
   */
  static FakeAnthropic usageLimit(int limitSeconds) throws IOException {
    FakeAnthropic model = new FakeAnthropic();
    model.mode = FakeAnthropic.Mode.USAGE_LIMIT;
    model.retryAfterSeconds = 5 * 3600;
    model.limitSeconds = limitSeconds;
    return model;
  }

  /** The launcher with the real CLI's environment: the fake model, a dummy key or subscription token. */
  private ProcessBuilder orchestrate(FakeAnthropic model, boolean subscription, String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    ProcessBuilder pb = Launcher.builder(dir, all.toArray(String[]::new));
    Path home = Files.createDirectories(dir.resolve("home"));
    model.claudeEnvironment(pb.environment(), home, subscription);
    return pb;
  }

  record Ran(int exit, JsonNode report, String err) {
  }

  Ran run(FakeAnthropic model, boolean subscription) throws Exception {
    Path out = dir.resolve("run.out");
    Path err = dir.resolve("run.err");
    Process p = orchestrate(model, subscription, "run", "--json", "--no-live", "backlog.yaml")
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the run finishes");
    return new Ran(p.exitValue(), JSON.readTree(Files.readString(out)), Files.readString(err));
  }

  JsonNode json(FakeAnthropic model, String... args) throws Exception {
    Process p = orchestrate(model, false, args).redirectErrorStream(false).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(p.waitFor(1, TimeUnit.MINUTES));
    assertEquals(0, p.exitValue(), out);
    return JSON.readTree(out);
  }

  /** The refusals, grouped into waves: refusals less than 10 s apart are one wave. */
  static List<List<Long>> waves(List<Long> refusedAt) {
    List<List<Long>> waves = new ArrayList<>();
    for (long at : refusedAt.stream().sorted().toList()) {
      if (waves.isEmpty() || at - waves.get(waves.size() - 1).get(waves.get(waves.size() - 1).size() - 1) > 10_000) {
        waves.add(new ArrayList<>());
      }
      waves.get(waves.size() - 1).add(at);
    }
    return waves;
  }

  /** Every item done, none blocked, no limited attempt counted (each phase done in its first attempt). */
  void everyItemDoneNothingCounted(Ran ran, int items) {
    assertEquals(0, ran.exit(), ran.err());
    assertEquals("all_done", ran.report().path("halt_reason").asText(), ran.report().toString());
    assertEquals(items, ran.report().path("items").path("done").asInt());
    assertEquals(0, ran.report().path("items").path("blocked").asInt());
    assertEquals(items, ran.report().path("phases_run").asInt(), "limited attempts are no phase of the cap");
    for (JobRecord job : Stored.jobs(dir.resolve("state"))) {
      assertEquals(1, job.attempt(), "no limited attempt counted: " + job);
    }
  }
}
