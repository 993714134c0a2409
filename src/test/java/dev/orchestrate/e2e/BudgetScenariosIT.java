package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 44's budget scenarios with the real Claude Code CLI (pinned, from the npm registry) against
 * {@link FakeAnthropic}: a cost budget of five attempts with four concurrent jobs, and one smaller
 * than a single turn. Before the fix they overshot by 1.20x and 24.2x. The bound docs/agents.md
 * ("Budgets") promises is one turn of one agent past the budget, and a job Claude Code's own
 * {@code --max-budget-usd} cut ({@code budget_exhausted}) counts no attempt and blocks nothing.
 *
 * <p>What a turn costs is measured, not assumed: {@link #measure} runs the CLI itself twice on one
 * phase (two model turns each) at two sizes of the fresh input, and reads the {@code total_cost_usd}
 * it reports; the price of an input token and the rest of a turn follow, and from them the input
 * that makes a turn cost about $0.303 (an attempt $0.606, as in the issue). The figures of each
 * scenario are printed on one {@code budget-e2e:} line for docs/benchmarks.md.
 */
class BudgetScenariosIT {
  /** A turn of about the cost: its attempts of two turns cost $0.606. */
  private static final double TARGET_TURN_USD = 0.303;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A turn's cost as Claude Code prices it: {@code fixedUsd + inputTokens * inputUsd}. */
  record Price(double inputUsd, double fixedUsd) {
    double turn(long inputTokens) {
      return fixedUsd + inputTokens * inputUsd;
    }

    /** The fresh input that makes a turn cost {@code usd}. */
    long inputFor(double usd) {
      return Math.round((usd - fixedUsd) / inputUsd);
    }
  }

  private static Path claude;
  private static Price price;
  /** The fresh input tokens of each answer, and what one agent turn then costs. */
  private static long inputTokens;
  private static double turnUsd;

  @TempDir
  Path dir;

  @BeforeAll
  static void measureATurn(@TempDir Path scratch) throws Exception {
    claude = AgentClis.install(AgentClis.CLAUDE_CODE, "claude");
    long small = FakeAnthropic.INPUT_TOKENS;
    long large = small + 100_000;
    double smallTurn = measure(scratch.resolve("small"), small);
    double largeTurn = measure(scratch.resolve("large"), large);
    double perInput = (largeTurn - smallTurn) / (large - small);
    price = new Price(perInput, smallTurn - small * perInput);
    inputTokens = price.inputFor(TARGET_TURN_USD);
    turnUsd = price.turn(inputTokens);
    System.out.printf("budget-e2e: a turn of %d fresh input tokens (and %d output, %d cache-read, %d cache-write) "
        + "costs $%.6f: $%.6f + $%.2f per million input tokens (measured at %d and %d: $%.6f and $%.6f a turn)%n",
        inputTokens, FakeAnthropic.OUTPUT_TOKENS, FakeAnthropic.CACHE_READ_TOKENS, FakeAnthropic.CACHE_WRITE_TOKENS,
        turnUsd, price.fixedUsd(), price.inputUsd() * 1e6, small, large, smallTurn, largeTurn);
    assertTrue(perInput > 0 && price.fixedUsd() > 0, price.toString());
  }

  /**
   * What one agent turn costs with {@code tokens} of fresh input: the real CLI run once on a phase
   * (a Bash call writing the result file, then a final text), its {@code total_cost_usd} over its
   * two turns. Claude Code could also send requests of its own, offering no tools (a title, a
   * summary); there must be none here, or a turn's cost would not be the job's half.
   */
  private static double measure(Path work, long tokens) throws Exception {
    Files.createDirectories(work.resolve("home"));
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.inputTokens = tokens;
      ProcessBuilder pb = new ProcessBuilder(claude.toString(), "-p", "--output-format", "stream-json", "--verbose",
          "--allowedTools", "Bash").directory(work.toFile());
      environment(pb.environment(), model, work.resolve("home"));
      pb.environment().put("ORCHESTRATE_RESULT_FILE", work.resolve("result.json").toString());
      pb.environment().put("ORCHESTRATE_PHASE", "build");
      pb.environment().put("ORCHESTRATE_ITEM_ID", "M");
      Path out = work.resolve("out.jsonl");
      Process p = pb.redirectOutput(out.toFile()).redirectError(work.resolve("err.txt").toFile()).start();
      p.getOutputStream().write("Write the result file.".getBytes(StandardCharsets.UTF_8));
      p.getOutputStream().close();
      assertTrue(p.waitFor(2, TimeUnit.MINUTES), "claude answers");
      JsonNode result = null;
      for (String line : Files.readAllLines(out)) {
        if (line.startsWith("{") && JSON.readTree(line).path("type").asText().equals("result")) {
          result = JSON.readTree(line);
        }
      }
      assertTrue(result != null, Files.readString(out) + Files.readString(work.resolve("err.txt")));
      assertEquals(2, result.path("num_turns").asInt(), result.toString());
      assertEquals(2, model.requests.size(), "only the agent's two turns reached the model: " + model.requests.size());
      assertEquals(2, model.agentTurns());
      return result.path("total_cost_usd").asDouble() / 2;
    }
  }

  private static void environment(Map<String, String> env, FakeAnthropic model, Path home) {
    env.put("HOME", home.toString());
    env.put("CLAUDE_CONFIG_DIR", home.resolve(".claude").toString());
    env.put("ANTHROPIC_BASE_URL", model.baseUrl());
    env.put("ANTHROPIC_API_KEY", "sk-ant-test-dummy");
    env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    env.put("PATH", AgentClis.nodeDir() + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
  }

  /** {@code usd} in dollars, rounded down to a millionth, as a flag's value. */
  private static String dollars(double usd) {
    return BigDecimal.valueOf(usd).setScale(6, RoundingMode.DOWN).toPlainString();
  }

  private void project(int items) throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent:
          preset: claude
          command: ["%s"]
          args: ["--allowedTools", "Bash"]
          timeout: 3m
        execution: {max_concurrent: 4, max_wip: 4}
        default_pipeline: one
        pipelines:
          one:
            phases:
              - name: build
                instructions: "Build it."
        """.formatted(claude));
    StringBuilder backlog = new StringBuilder("items:\n");
    for (int i = 1; i <= items; i++) {
      backlog.append("  - {id: I").append(i).append(", title: item ").append(i).append("}\n");
    }
    Files.writeString(dir.resolve("backlog.yaml"), backlog);
    Files.createDirectories(dir.resolve("home"));
  }

  /** What {@code run --json --max-cost USD} reported, with its exit code and wall time. */
  record Run(JsonNode report, int exit, String err, double seconds) {
    double spent() {
      return report.path("usage").path("cost_usd").asDouble(0);
    }
  }

  private Run run(FakeAnthropic model, String maxCost) throws Exception {
    ProcessBuilder pb = Launcher.builder(dir, "--state", dir.resolve("state").toString(), "run", "--json",
        "--no-live", "--max-cost", maxCost, "backlog.yaml");
    environment(pb.environment(), model, dir.resolve("home"));
    Path out = dir.resolve("run.out");
    Path err = dir.resolve("run.err");
    long start = System.nanoTime();
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the run finishes");
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Run(JSON.readTree(Files.readString(out)), p.exitValue(), Files.readString(err), seconds);
  }

  /** {@code jobs --json}'s jobs, oldest first. */
  private List<JsonNode> jobsJson() throws Exception {
    Launcher.Result jobs = Launcher.run(dir, "--state", dir.resolve("state").toString(), "jobs", "--json");
    assertEquals(0, jobs.exitCode(), jobs.err());
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode job : JSON.readTree(jobs.out()).path("jobs")) {
      out.add(0, job);
    }
    return out;
  }

  /** The most jobs that ran at once, from their start and end times. */
  private static int peakConcurrency(List<JobRecord> jobs) {
    TreeMap<Instant, Integer> edges = new TreeMap<>();
    for (JobRecord j : jobs) {
      edges.merge(j.startedAt(), 1, Integer::sum);
      edges.merge(j.endedAt(), -1, Integer::sum);
    }
    int now = 0;
    int peak = 0;
    for (int delta : edges.values()) {
      now += delta;
      peak = Math.max(peak, now);
    }
    return peak;
  }

  /**
   * Checks what every job of the state says against the items: a job Claude Code's budget cut
   * ({@code budget_exhausted}) counted no attempt and blocked nothing; a completed one cost its
   * two turns. Returns the outcomes in job order.
   */
  private List<String> checkJobs(List<JsonNode> jobs) {
    Map<String, ItemState> items = new TreeMap<>();
    Stored.items(dir.resolve("state")).forEach(i -> items.put(i.id(), i));
    List<String> outcomes = new ArrayList<>();
    Map<String, Integer> counted = new TreeMap<>();
    for (JsonNode job : jobs) {
      String outcome = job.path("outcome").asText();
      outcomes.add(outcome);
      String item = job.path("item_id").asText();
      double cost = job.path("usage").path("cost_usd").asDouble(-1);
      assertTrue(cost > 0, "every job of Claude Code says its cost: " + job);
      switch (outcome) {
        case "succeeded" -> assertEquals(2 * turnUsd, cost, 1e-6, "a phase is two turns of a known cost: " + job);
        case "budget_exhausted" -> assertTrue(cost >= turnUsd - 1e-6, "a cut job ran a turn at least: " + job);
        default -> counted.merge(item, 1, Integer::sum);
      }
    }
    for (ItemState item : items.values()) {
      assertTrue(!item.status().key().equals("blocked"), "no item is blocked: " + item);
      if (!item.status().key().equals("done")) {
        assertEquals(counted.getOrDefault(item.id(), 0), item.progress().attempts(),
            "only the attempts that were not cut count, on " + item.id() + ": " + outcomes);
      }
    }
    return outcomes;
  }

  /**
   * Issue 44: $3.03, five attempts of $0.606, with 3 or 4 concurrent jobs spent $3.636 (1.20x).
   * Now each job holds a share of at least two turns and is told its share less the largest turn
   * seen: the run halts on its budget with at most one turn more spent.
   */
  @Test
  void five_attempts_with_four_concurrent_jobs_spend_at_most_one_turn_past_the_budget() throws Exception {
    project(8);
    double attempt = 2 * turnUsd;
    String budget = dollars(5 * attempt);
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.inputTokens = inputTokens;
      Run run = run(model, budget);
      assertEquals(0, run.exit(), run.err());
      JsonNode report = run.report();
      assertEquals("budget", report.path("halt_reason").asText(), report.toString());
      double max = Double.parseDouble(budget);
      List<JobRecord> jobs = Stored.jobs(dir.resolve("state"));
      List<String> outcomes = checkJobs(jobsJson());
      figures("five attempts", max, run, jobs, outcomes, model);
      assertTrue(run.spent() <= max + turnUsd + 1e-6, "spent $" + run.spent() + " of a $" + budget
          + " budget, more than one turn ($" + dollars(turnUsd) + ") past it: " + report);
      assertEquals(jobs.size(), report.path("phases_run").asInt(), report.toString());
      assertEquals(0, report.path("items").path("blocked").asInt(), report.toString());
      assertTrue(jobs.size() >= 1 && jobs.size() < 8, "the budget halted the run before the backlog was done: "
          + outcomes);
    }
  }

  /**
   * Issue 44: a $0.05 budget, less than one turn, with 4 concurrent jobs spent $1.212 (24.2x). Now
   * the first job runs alone, told the whole budget; Claude Code ends it once its first turn
   * passed that (budget_exhausted: no attempt counted, nothing blocked) and nothing starts after
   * it. A second run on the same state knows a turn's cost and starts nothing.
   */
  @Test
  void a_budget_below_one_turn_runs_one_job_alone_and_then_nothing() throws Exception {
    project(8);
    String budget = "0.05";
    assertTrue(turnUsd > 0.05, "a turn costs more than the budget: " + turnUsd);
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.inputTokens = inputTokens;
      Run run = run(model, budget);
      assertEquals(0, run.exit(), run.err());
      JsonNode report = run.report();
      assertEquals("budget", report.path("halt_reason").asText(), report.toString());
      List<JobRecord> jobs = Stored.jobs(dir.resolve("state"));
      List<String> outcomes = checkJobs(jobsJson());
      figures("below one turn", 0.05, run, jobs, outcomes, model);
      assertTrue(run.spent() <= 0.05 + turnUsd + 1e-6, "spent $" + run.spent() + " of a $0.05 budget, more than "
          + "one turn ($" + dollars(turnUsd) + ") past it: " + report);
      assertEquals(List.of("budget_exhausted"), outcomes, "one job, cut by its own --max-budget-usd");
      assertEquals(0, report.path("items").path("blocked").asInt(), report.toString());

      Run again = run(model, budget);
      assertEquals(0, again.exit(), again.err());
      assertEquals("budget", again.report().path("halt_reason").asText(), again.report().toString());
      assertEquals(0, again.report().path("phases_run").asInt(), "a $0.05 budget once a $" + dollars(turnUsd)
          + " turn is known: nothing starts: " + again.report());
      assertEquals(1, Stored.jobs(dir.resolve("state")).size());
      figures("below one turn, second run", 0.05, again, List.of(), List.of(), model);
    }
  }

  private static void figures(String scenario, double budget, Run run, List<JobRecord> jobs, List<String> outcomes,
      FakeAnthropic model) {
    System.out.printf("budget-e2e: %s: budget $%s, spent $%.6f (%.2fx), budget + one turn $%.6f; %d jobs %s, "
        + "peak concurrency %d; %d model requests (%d agent turns); halt %s; wall %.1f s%n", scenario,
        dollars(budget), run.spent(), run.spent() / budget, budget + turnUsd, jobs.size(), outcomes,
        peakConcurrency(jobs), model.requests.size(), model.agentTurns(), run.report().path("halt_reason").asText(),
        run.seconds());
  }
}
