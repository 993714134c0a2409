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

  /** The class's scratch directory: each scenario's project, run once for the tests that read it. */
  private static Path scratch;
  private static Scenario fiveAttempts;
  private static Scenario belowOneTurn;

  @BeforeAll
  static void measureATurn(@TempDir Path tmp) throws Exception {
    scratch = tmp;
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
      model.claudeEnvironment(pb.environment(), work.resolve("home"), false);
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

  /** {@code usd} in dollars, rounded down to a millionth, as a flag's value. */
  private static String dollars(double usd) {
    return BigDecimal.valueOf(usd).setScale(6, RoundingMode.DOWN).toPlainString();
  }

  /** A project of {@code items} one-phase items in {@code dir}, run by Claude Code, 4 jobs at once. */
  private static Path project(String name, int items) throws Exception {
    Path dir = Files.createDirectories(scratch.resolve(name));
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
    return dir;
  }

  /** What {@code run --json --max-cost USD} reported, with its exit code and wall time. */
  record Run(JsonNode report, int exit, String err, double seconds) {
    double spent() {
      return report.path("usage").path("cost_usd").asDouble(0);
    }

    String halt() {
      return report.path("halt_reason").asText();
    }
  }

  /**
   * A scenario as its run left it: the project, the run, its jobs (the state's and as
   * {@code jobs --json} shows them, oldest first) and the model requests it made.
   */
  record Scenario(Path dir, double budget, Run run, List<JobRecord> jobs, List<JsonNode> shown, int requests,
      long agentTurns) {
    Path state() {
      return dir.resolve("state");
    }

    List<String> outcomes() {
      return shown.stream().map(j -> j.path("outcome").asText()).toList();
    }
  }

  private static Scenario scenario(Path dir, FakeAnthropic model, double budget) throws Exception {
    Run run = run(dir, model, dollars(budget));
    assertEquals(0, run.exit(), run.err());
    Scenario s = new Scenario(dir, budget, run, Stored.jobs(dir.resolve("state")), jobsJson(dir),
        model.requests.size(), model.agentTurns());
    System.out.printf("budget-e2e: %s: budget $%s, spent $%.6f (%.2fx), budget + one turn $%.6f; %d jobs %s, "
        + "peak concurrency %d; %d model requests (%d agent turns); items %s; halt %s; wall %.1f s%n",
        dir.getFileName(), dollars(budget), run.spent(), run.spent() / budget, budget + turnUsd, s.jobs().size(),
        s.outcomes(), peakConcurrency(s.jobs()), s.requests(), s.agentTurns(), Stored.progress(s.state()),
        run.halt(), run.seconds());
    return s;
  }

  private static Run run(Path dir, FakeAnthropic model, String maxCost) throws Exception {
    ProcessBuilder pb = Launcher.builder(dir, "--state", dir.resolve("state").toString(), "run", "--json",
        "--no-live", "--max-cost", maxCost, "backlog.yaml");
    model.claudeEnvironment(pb.environment(), dir.resolve("home"), false);
    Path out = dir.resolve("run.out");
    Path err = dir.resolve("run.err");
    long start = System.nanoTime();
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the run finishes");
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Run(JSON.readTree(Files.readString(out)), p.exitValue(), Files.readString(err), seconds);
  }

  /** {@code jobs --json}'s jobs, oldest first. */
  private static List<JsonNode> jobsJson(Path dir) throws Exception {
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
   * Issue 44's first scenario, run once for the tests that read it: 8 one-phase items, 4 jobs at
   * once, a budget of five attempts (two turns each, $3.03 at $0.303 a turn).
   */
  private static synchronized Scenario fiveAttempts() throws Exception {
    if (fiveAttempts == null) {
      Path dir = project("five-attempts", 8);
      try (FakeAnthropic model = new FakeAnthropic()) {
        model.inputTokens = inputTokens;
        fiveAttempts = scenario(dir, model, Double.parseDouble(dollars(5 * 2 * turnUsd)));
      }
    }
    return fiveAttempts;
  }

  /** Issue 44's second scenario, run once: the same project with a $0.05 budget, less than one turn. */
  private static synchronized Scenario belowOneTurn() throws Exception {
    if (belowOneTurn == null) {
      assertTrue(turnUsd > 0.05, "a turn costs more than the budget: " + turnUsd);
      Path dir = project("below-one-turn", 8);
      try (FakeAnthropic model = new FakeAnthropic()) {
        model.inputTokens = inputTokens;
        belowOneTurn = scenario(dir, model, 0.05);
      }
    }
    return belowOneTurn;
  }

  /**
   * What every job says against the items: a job Claude Code's budget cut ({@code budget_exhausted})
   * counted no attempt and blocked nothing; a completed one cost its two turns of a known cost.
   */
  private static void checkJobs(Scenario s) {
    Map<String, Integer> counted = new TreeMap<>();
    for (JsonNode job : s.shown()) {
      String outcome = job.path("outcome").asText();
      double cost = job.path("usage").path("cost_usd").asDouble(-1);
      assertTrue(cost > 0, "every job of Claude Code says its cost: " + job);
      switch (outcome) {
        case "succeeded" -> assertEquals(2 * turnUsd, cost, 1e-6, "a phase is two turns of a known cost: " + job);
        case "budget_exhausted" -> assertTrue(cost >= turnUsd - 1e-6, "a cut job ran a turn at least: " + job);
        default -> counted.merge(job.path("item_id").asText(), 1, Integer::sum);
      }
    }
    for (ItemState item : Stored.items(s.state())) {
      assertTrue(!item.status().key().equals("blocked"), "no item is blocked: " + item);
      if (!item.status().key().equals("done")) {
        assertEquals(counted.getOrDefault(item.id(), 0), item.progress().attempts(),
            "only the attempts that were not cut count, on " + item.id() + ": " + s.outcomes());
      }
    }
    assertEquals(0, s.run().report().path("items").path("blocked").asInt(), s.run().report().toString());
  }

  /** The spend's bound: the budget and one turn of one agent. */
  private static void checkSpend(Scenario s) {
    assertEquals("budget", s.run().halt(), s.run().report().toString());
    assertTrue(s.run().spent() <= s.budget() + turnUsd + 1e-6, "spent $" + s.run().spent() + " of a $"
        + dollars(s.budget()) + " budget, more than one turn ($" + dollars(turnUsd) + ") past it: "
        + s.run().report());
    assertEquals(s.jobs().size(), s.run().report().path("phases_run").asInt(), s.run().report().toString());
  }

  /**
   * Issue 44: $3.03, five attempts of $0.606, with 3 or 4 concurrent jobs spent $3.636 (1.20x).
   * Now each job holds a share of at least two turns and is told its share less the largest turn
   * seen: the run halts on its budget with at most one turn more spent.
   */
  @Test
  void five_attempts_with_four_concurrent_jobs_spend_at_most_one_turn_past_the_budget() throws Exception {
    Scenario s = fiveAttempts();
    checkSpend(s);
    checkJobs(s);
    assertTrue(s.jobs().size() >= 1 && s.jobs().size() < 8, "the budget halted the run before the backlog was "
        + "done: " + s.outcomes());
  }

  /**
   * Issue 44: a $0.05 budget, less than one turn, with 4 concurrent jobs spent $1.212 (24.2x). Now
   * the first job runs alone, told the whole budget; Claude Code ends it once its first turn passed
   * that (budget_exhausted: no attempt counted, nothing blocked) and nothing starts after it. A
   * second run on the same state knows a turn's cost and starts nothing.
   */
  @Test
  void a_budget_below_one_turn_runs_one_job_alone_and_then_nothing() throws Exception {
    Scenario s = belowOneTurn();
    checkSpend(s);
    checkJobs(s);
    assertEquals(List.of("budget_exhausted"), s.outcomes(), "one job, cut by its own --max-budget-usd");
    assertEquals(1, s.agentTurns(), "the cut came after its first turn");

    try (FakeAnthropic model = new FakeAnthropic()) {
      model.inputTokens = inputTokens;
      Run again = run(s.dir(), model, "0.05");
      assertEquals(0, again.exit(), again.err());
      assertEquals("budget", again.halt(), again.report().toString());
      assertEquals(0, again.report().path("phases_run").asInt(), "a $0.05 budget once a $" + dollars(turnUsd)
          + " turn is known: nothing starts: " + again.report());
      assertEquals(0, model.requests.size());
      assertEquals(1, Stored.jobs(s.state()).size());
      System.out.printf("budget-e2e: below-one-turn, run again: spent $%.6f, %d phases, halt %s; wall %.1f s%n",
          again.spent(), again.report().path("phases_run").asInt(), again.halt(), again.seconds());
    }
  }

  /**
   * docs/agents.md ("Budgets"): "An item is promoted to in_progress only when its first job could
   * start now, so a budget halt leaves the next items where they were." After either scenario's
   * budget halt, every item in progress has had a job (a cut one keeps its place).
   */
  @Test
  void a_budget_halt_leaves_no_item_in_progress_that_never_ran() throws Exception {
    Map<String, List<String>> neverRan = new TreeMap<>();
    List<String> seen = new ArrayList<>();
    for (Scenario s : List.of(fiveAttempts(), belowOneTurn())) {
      List<String> ran = s.jobs().stream().map(JobRecord::itemId).distinct().toList();
      neverRan.put(s.dir().getFileName().toString(), Stored.items(s.state()).stream()
          .filter(i -> i.status().key().equals("in_progress") && !ran.contains(i.id())).map(ItemState::id).toList());
      seen.add(s.dir().getFileName() + ": items " + Stored.progress(s.state()) + ", jobs " + s.outcomes());
    }
    assertEquals(Map.of("below-one-turn", List.of(), "five-attempts", List.of()), neverRan,
        "in progress with no job after the budget halt; " + seen);
  }
}
