package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.JobRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44's provider-limit scenarios with the real Claude Code CLI (pinned, from the npm registry)
 * through the real launcher, against {@link FakeAnthropic}, which answers as the API does: a usage
 * limit that opens after some turns and lifts a set time later (with an API key Claude Code says no
 * reset; with a subscription token it says when), and a 529 the CLI is told not to retry.
 *
 * <ul>
 *   <li>an API-key limit of 60 s met by 4 concurrent jobs: every item ends done, nothing counted,
 *   the jobs refused together are one strike, and the first answer after the limit lifts comes
 *   within the documented backoff of that strike;</li>
 *   <li>the same with a subscription login, whose stated reset the run waits for;</li>
 *   <li>a 529 result is {@code rate_limited}, not a usage limit;</li>
 *   <li>a run started after a pause's end starts at once (none ever refuses for a pause that is
 *   over), and {@code agents --json} shows the pause while it lasts.</li>
 * </ul>
 */
class ProviderLimitScenariosIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private void project(Path claude, String onUsageLimit, int items) throws Exception {
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

  /** The launcher with the real CLI's environment: the fake model, a dummy key or subscription token. */
  private ProcessBuilder orchestrate(FakeAnthropic model, boolean subscription, String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("--state", dir.resolve("state").toString()));
    all.addAll(List.of(args));
    ProcessBuilder pb = Launcher.builder(dir, all.toArray(String[]::new));
    Path home = Files.createDirectories(dir.resolve("home"));
    model.claudeEnvironment(pb.environment(), home, subscription);
    return pb;
  }

  private record Ran(int exit, JsonNode report, String err) {
  }

  private Ran run(FakeAnthropic model, boolean subscription) throws Exception {
    Path out = dir.resolve("run.out");
    Path err = dir.resolve("run.err");
    Process p = orchestrate(model, subscription, "run", "--json", "--no-live", "backlog.yaml")
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the run finishes");
    return new Ran(p.exitValue(), JSON.readTree(Files.readString(out)), Files.readString(err));
  }

  private JsonNode json(FakeAnthropic model, String... args) throws Exception {
    Process p = orchestrate(model, false, args).redirectErrorStream(false).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(p.waitFor(1, TimeUnit.MINUTES));
    assertEquals(0, p.exitValue(), out);
    return JSON.readTree(out);
  }

  /** The refusals, grouped into waves: refusals less than 10 s apart are one wave. */
  private static List<List<Long>> waves(List<Long> refusedAt) {
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
  private void everyItemDoneNothingCounted(Ran ran, int items) {
    assertEquals(0, ran.exit(), ran.err());
    assertEquals("all_done", ran.report().path("halt_reason").asText(), ran.report().toString());
    assertEquals(items, ran.report().path("items").path("done").asInt());
    assertEquals(0, ran.report().path("items").path("blocked").asInt());
    assertEquals(items, ran.report().path("phases_run").asInt(), "limited attempts are no phase of the cap");
    for (JobRecord job : Stored.jobs(dir.resolve("state"))) {
      assertEquals(1, job.attempt(), "no limited attempt counted: " + job);
    }
  }

  @Test
  void an_api_key_limit_of_60_s_met_by_four_jobs_ends_with_every_item_done_within_the_backoff() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    project(claude, "wait", 6);
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.USAGE_LIMIT;
      model.retryAfterSeconds = 5 * 3600; // as a real five-hour limit says: Claude Code gives up at once
      model.answerFirst = 4; // two phases (a Bash call and a final text each), then the limit
      // 60 s: the first wave's probe (30 s ±20 % after it) always meets the limit, the second's
      // (60 s ±20 % later) never does, so the scenario always ends in two waves. At 90 s the
      // jitter put the second probe either side of the lift, and a third wave made this one
      // scenario 100 or 240 s by chance: the suite's widest spread.
      model.limitSeconds = 60;
      Ran ran = run(model, false);

      everyItemDoneNothingCounted(ran, 6);
      List<List<Long>> waves = waves(model.refusedAt);
      assertTrue(waves.size() >= 1 && waves.size() <= 3, "refusals in " + waves.size() + " waves: " + waves);
      // Claude Code with an API key says no reset: the pause ends by the backoff, 30 s then 60 s
      // (±20 %) a strike, and a strike is a wave, not a job (issue 44: four jobs refused together
      // were four strikes, and the pause grew to the fourth backoff).
      long lifted = model.limitOpenedAt + model.limitSeconds * 1000L;
      long firstAfter = model.answeredAt.stream().filter(t -> t >= lifted).min(Long::compare).orElseThrow();
      long backoff = 30_000L << (waves.size() - 1);
      assertTrue(firstAfter - lifted <= backoff * 12 / 10 + 20_000, "the first answer came " + (firstAfter - lifted)
          + " ms after the limit lifted, after " + waves.size() + " waves (backoff " + backoff + " ms)");
      System.out.printf("api-key limit of 60 s, 4 jobs: %d refusals in %d waves, first answer %d ms after the lift, "
          + "run %d ms%n", model.refusedAt.size(), waves.size(), firstAfter - lifted,
          ran.report().path("duration_ms").asLong()); // the figures of docs/benchmarks.md
      assertEquals(waves.size(), ran.err().lines().filter(l -> l.contains("claude paused until")).count(),
          "one line a pause: " + ran.err());
    }
  }

  @Test
  void a_subscription_limit_met_by_four_jobs_waits_for_its_stated_reset_and_every_item_ends_done()
      throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    project(claude, "wait", 5);
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.USAGE_LIMIT;
      model.retryAfterSeconds = 5 * 3600; // as a real five-hour limit says: Claude Code gives up at once
      model.answerFirst = 2;
      model.limitSeconds = 15;
      Ran ran = run(model, true);

      everyItemDoneNothingCounted(ran, 5);
      assertEquals(1, waves(model.refusedAt).size(), "the stated reset is waited for: nothing asked before it");
      long reset = model.resetsAt * 1000;
      long firstAfter = model.answeredAt.stream().filter(t -> t >= model.limitOpenedAt).min(Long::compare)
          .orElseThrow();
      assertTrue(firstAfter >= reset, "nothing answered before the reset");
      assertTrue(firstAfter - reset <= 30_000 + 20_000, "work went on " + (firstAfter - reset)
          + " ms after the reset (its 30 s margin, and a CLI's start)");
      System.out.printf("subscription limit of 15 s, 4 jobs: %d refusals, first answer %d ms after the reset%n",
          model.refusedAt.size(), firstAfter - reset);
    }
  }

  @Test
  void a_529_result_is_rate_limited_not_counted_and_the_item_is_done() throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    project(claude, "halt", 1);
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.OVERLOADED;
      model.noRetry = true; // x-should-retry: false: Claude Code gives up at once, "API Error: 529 …"
      model.failFirst = 1;
      Ran ran = run(model, false);

      assertEquals(0, ran.exit(), ran.err());
      assertEquals("all_done", ran.report().path("halt_reason").asText(), "a 529 is no usage limit: " + ran.report());
      List<String> classes = new ArrayList<>();
      for (JsonNode job : json(model, "jobs", "--json").path("jobs")) {
        classes.add(job.path("outcome").asText());
      }
      assertTrue(classes.contains("rate_limited") && classes.contains("succeeded"), classes.toString());
      assertEquals(1, ran.report().path("phases_run").asInt());
    }
  }

  @Test
  void a_run_started_after_a_pause_ended_starts_at_once_and_agents_shows_the_pause_while_it_lasts()
      throws Exception {
    Path claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    project(claude, "halt", 1);
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.USAGE_LIMIT;
      model.retryAfterSeconds = 5 * 3600; // as a real five-hour limit says: Claude Code gives up at once
      model.limitSeconds = 20;
      Ran first = run(model, false);
      assertEquals(0, first.exit(), first.err());
      assertEquals("usage_limit", first.report().path("halt_reason").asText(), first.report().toString());
      assertTrue(first.report().path("halt_detail").asText().contains("run again after "), first.report().toString());

      JsonNode agents = json(model, "agents", "--json");
      JsonNode pause = agents.path("agents").get(0).path("pause");
      assertEquals("usage_limit", pause.path("kind").asText(), agents.toString());
      Instant until = Instant.parse(pause.path("until").asText());
      assertTrue(until.isBefore(Instant.now().plusSeconds(40)), "the first backoff (30 s ±20 %): " + until);

      Thread.sleep(Math.max(0, Duration.between(Instant.now(), until).toMillis()) + 1000);
      Ran second = run(model, false);
      everyItemDoneNothingCounted(second, 1);
      assertTrue(json(model, "agents", "--json").path("agents").get(0).path("pause").isNull(),
          "the pause is over once the profile worked");
    }
  }
}
