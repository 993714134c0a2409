package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.OnUsageLimit;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.CapturedLogs;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.InProcessLauncher;
import dev.orchestrate.testing.TestAgents;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Provider limits cost nothing (issue 28): a usage or rate limit never counts as an attempt, a
 * phase of the cap or a step of the circuit breaker, never blocks an item, and pauses or halts
 * as agent.on_usage_limit says; a refused key halts at once. Real SQLite state, an in-process
 * agent, a clock the test controls.
 */
class ProviderLimitsTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(Scheduler.class, ProviderPauses.class);

  private static final Instant T0 = Instant.parse("2026-11-26T10:30:00Z");

  @TempDir
  Path dir;

  /** What the run told its listener of the limits, in order. */
  private final List<String> notices = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** A clock that moves on by {@code step} each time it is read, so that waiting takes no real time. */
  static final class Ticking extends Clock {
    private final Duration step;
    private Instant now;

    Ticking(Instant start, Duration step) {
      this.now = start;
      this.step = step;
    }

    @Override
    public synchronized Instant instant() {
      now = now.plus(step);
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  private static AgentOutcome limited(OutcomeClass kind, String message, Duration resetIn) {
    return InProcessLauncher.outcome(AgentResult.FAILED, "")
        .withProvider(new ProviderFailure(kind, message, null, resetIn));
  }

  private Config config(OnUsageLimit on) {
    Config c = TestAgents.config(TestAgents.agent(dir.resolve("unused.sh")).withLimits(on, Duration.ofHours(6)), 0);
    return c.withExecution(ConfigWithers.withCircuitBreaker(c.execution(), 1));
  }

  private RunReport run(Config config, List<BacklogItem> items,
      Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent, Clock clock) {
    return run(config, items, agent, clock, 100);
  }

  private RunReport run(Config config, List<BacklogItem> items,
      Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent, Clock clock, int phaseCap) {
    try (StateStore store = TestStores.open(dir.resolve("state"));
        InProcessLauncher launcher = new InProcessLauncher(agent)) {
      return Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), items),
          dir.resolve("state/jobs"), launcher, clock).pauses(store.pauses()).listener(new RunListener() {
            @Override
            public void providerLimit(String message) {
              notices.add(message);
            }
          }).build().run(phaseCap);
    }
  }

  private Map<Long, OutcomeClass> outcomes() {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      return store.items().outcomes(TestStores.jobs(store).stream().map(JobRecord::id).toList());
    }
  }

  private List<AgentPauses.Pause> pauses() {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      return store.pauses().all();
    }
  }

  @Test
  void a_usage_limit_with_halt_ends_the_run_blocks_nothing_counts_nothing_and_the_next_run_waits_for_the_reset() {
    AtomicInteger calls = new AtomicInteger();
    Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent = r -> calls.incrementAndGet() == 3
        ? limited(OutcomeClass.USAGE_LIMIT, "You've hit your limit · resets 1pm (UTC)", null)
        : InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "ok");
    // the feature pipeline: four phases an item, one item; circuit breaker 1, retries 0
    RunReport first = run(config(OnUsageLimit.HALT), List.of(item("A")), agent, Clock.fixed(T0, ZoneOffset.UTC));

    assertEquals(HaltReason.USAGE_LIMIT, first.haltReason());
    assertTrue(first.haltDetail().contains("agent hit its usage limit (resets 13:00 (UTC))"), first.haltDetail());
    assertEquals(0, first.blocked());
    assertEquals(2, first.phasesRun(), "the limited attempt is no phase of the cap");
    assertTrue(outcomes().containsValue(OutcomeClass.USAGE_LIMIT));
    assertEquals(Instant.parse("2026-11-26T13:00:30Z"), pauses().get(0).until());
    ItemState a = StateRows.items(dir.resolve("state")).get(0);
    assertEquals(0, a.progress().attempts(), "no attempt counted");
    assertNull(a.progress().lastFailure(), "no failure for the agent to read");

    RunReport early = run(config(OnUsageLimit.HALT), List.of(item("A")), agent,
        Clock.fixed(T0.plusSeconds(60), ZoneOffset.UTC));
    assertEquals(HaltReason.USAGE_LIMIT, early.haltReason());
    assertEquals(0, early.phasesRun(), "started nothing before the reset");
    assertTrue(early.haltDetail().contains("is paused by its usage limit (until 13:01 (UTC))"), early.haltDetail());

    RunReport after = run(config(OnUsageLimit.HALT), List.of(item("A")), agent,
        Clock.fixed(Instant.parse("2026-11-26T13:01:00Z"), ZoneOffset.UTC));
    assertEquals(HaltReason.ALL_DONE, after.haltReason());
    assertEquals(1, after.done());
    assertEquals(List.of(), pauses(), "the pause is gone once the profile worked again");
  }

  @Test
  void a_usage_limit_with_wait_pauses_until_the_reset_and_every_item_ends_done() {
    AtomicInteger calls = new AtomicInteger();
    Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent = r -> calls.incrementAndGet() == 5
        ? limited(OutcomeClass.USAGE_LIMIT, "The usage limit has been reached", Duration.ofMinutes(20))
        : InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "ok");
    List<BacklogItem> items = IntStream.range(0, 5).mapToObj(i -> item("I" + i)).toList();
    RunReport report = run(config(OnUsageLimit.WAIT), items, agent, new Ticking(T0, Duration.ofMinutes(5)), 20);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(5, report.done());
    assertEquals(0, report.blocked());
    assertEquals(20, report.phasesRun(), "exactly the cap: the limited attempt did not use one");
    assertEquals(21, calls.get());
    assertEquals(Map.of("usage_limit", 1), report.limited(), "the run report's tally");
    assertEquals(1, outcomes().values().stream().filter(c -> c == OutcomeClass.USAGE_LIMIT).count());
  }

  @Test
  void rate_limits_back_off_without_halting_or_counting_even_with_halt() {
    AtomicInteger calls = new AtomicInteger();
    Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent = r -> calls.incrementAndGet() <= 3
        ? limited(OutcomeClass.RATE_LIMITED, "API Error: 529 Overloaded", null)
        : InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "ok");
    RunReport report = run(config(OnUsageLimit.HALT), List.of(item("A")), agent,
        new Ticking(T0, Duration.ofSeconds(30)), 4);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(1, report.done());
    assertEquals(3, outcomes().values().stream().filter(c -> c == OutcomeClass.RATE_LIMITED).count());
    assertEquals(3, notices.size(), notices.toString());
    assertTrue(notices.get(0).startsWith("agent rate limited: waits until"), notices.toString());
    assertTrue(notices.get(2).contains("(3rd backoff)"), notices.toString());
  }

  @Test
  void a_refused_key_halts_at_once_with_agent_auth_and_blocks_nothing() {
    RunReport report = run(config(OnUsageLimit.WAIT), List.of(item("A"), item("B")),
        r -> limited(OutcomeClass.AUTH, "Invalid API key · Please run /login", null), Clock.fixed(T0, ZoneOffset.UTC));

    assertEquals(HaltReason.AGENT_AUTH, report.haltReason());
    assertEquals("agent: Invalid API key · Please run /login", report.haltDetail());
    assertEquals(0, report.blocked());
    assertEquals(List.of(), pauses());
  }

  @Test
  void an_attempt_already_running_when_the_limit_is_met_does_not_lift_the_pause_by_succeeding() {
    Config c = config(OnUsageLimit.HALT);
    c = c.withExecution(c.execution().withMaxConcurrent(2).withMaxWip(2));
    Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent = r -> {
      if (r.itemId().equals("A")) {
        sleep(400); // started before B's limit, ends after it
        return InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "ok");
      }
      return limited(OutcomeClass.USAGE_LIMIT, "You've hit your limit · resets 11pm (UTC)", null);
    };
    RunReport report = run(c, List.of(item("A"), item("B")), agent, Clock.systemUTC());

    assertEquals(HaltReason.USAGE_LIMIT, report.haltReason());
    assertEquals(1, pauses().size(), "the pause stands for the next run: " + pauses());
  }

  /** The feature pipeline with {@code fallback}, and the profile "backup" beside the default one. */
  private Config withBackup(Config c, int defaultCap) {
    dev.orchestrate.config.Pipeline feature = c.pipelines().values().iterator().next();
    dev.orchestrate.config.Pipeline withFallback = new dev.orchestrate.config.Pipeline(feature.name(),
        feature.prePhases(), feature.phases(), null, List.of("backup"));
    dev.orchestrate.config.AgentConfig main = c.agent().asProfile(null, defaultCap);
    return new Config(c.source(), main, c.execution(), c.defaultPipeline(), Map.of(feature.name(), withFallback),
        c.context(), c.memoryKeepRecent(), c.memoryBootContextChars(), c.retention(), c.state(), c.budget(),
        Map.of("backup", c.agent().asProfile("backup", 0)));
  }

  private Map<Long, String> agents() {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      return store.items().agents(TestStores.jobs(store).stream().map(JobRecord::id).toList());
    }
  }

  @Test
  void a_fallback_profile_does_the_work_while_the_default_one_is_paused_and_the_run_does_not_halt() {
    Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent = r -> r.agent().profileName().equals("agent")
        ? limited(OutcomeClass.USAGE_LIMIT, "You've hit your limit · resets 11pm (UTC)", null)
        : InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "done by " + r.agent().profileName());
    RunReport report = run(withBackup(config(OnUsageLimit.HALT), 0), List.of(item("A"), item("B")), agent,
        Clock.fixed(T0, ZoneOffset.UTC));

    assertEquals(HaltReason.ALL_DONE, report.haltReason(), "halt is for a limit nothing can work around");
    assertEquals(2, report.done());
    Map<Long, String> agents = agents();
    assertEquals(1, agents.values().stream().filter("agent"::equals).count(), agents.toString());
    assertEquals(8, agents.values().stream().filter("backup"::equals).count(), "every phase of both items");
    assertEquals(1, pauses().size(), "the default profile stays paused until its reset");
  }

  @Test
  void a_fallback_takes_over_when_several_jobs_meet_the_limit_in_one_wave() {
    java.util.concurrent.CountDownLatch together = new java.util.concurrent.CountDownLatch(2);
    Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent = r -> {
      if (!r.agent().profileName().equals("agent")) {
        return InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "done by " + r.agent().profileName());
      }
      together.countDown();
      try {
        together.await(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return limited(OutcomeClass.USAGE_LIMIT, "You've hit your limit · resets 11pm (UTC)", null);
    };
    Config c = config(OnUsageLimit.HALT);
    c = withBackup(c.withExecution(c.execution().withMaxConcurrent(2).withMaxWip(2)), 0);
    RunReport report = run(c, List.of(item("A"), item("B")), agent, Clock.fixed(T0, ZoneOffset.UTC));

    assertEquals(HaltReason.ALL_DONE, report.haltReason(), "the second refusal of the wave is the fallback's too: "
        + report.haltDetail());
    assertEquals(2, report.done());
    assertEquals(1, notices.size(), notices.toString());
    assertTrue(notices.get(0).endsWith("its fallback takes its phases meanwhile"), notices.toString());
  }

  @Test
  void a_profiles_max_concurrent_caps_its_agents_below_the_runs() {
    java.util.concurrent.atomic.AtomicInteger now = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger peak = new java.util.concurrent.atomic.AtomicInteger();
    Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> agent = r -> {
      peak.accumulateAndGet(now.incrementAndGet(), Math::max);
      sleep(30);
      now.decrementAndGet();
      return InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "ok");
    };
    Config c = config(OnUsageLimit.HALT);
    c = withBackup(c.withExecution(c.execution().withMaxConcurrent(4).withMaxWip(4)), 1);
    RunReport report = run(c, List.of(item("A"), item("B"), item("C"), item("D")), agent, Clock.systemUTC());

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(1, peak.get(), "agent.max_concurrent is per profile; the fallback is for limits, not for load");
  }

  /** Four concurrent jobs, each let go only once all four have started: they meet the limit together. */
  private Function<dev.orchestrate.jobs.JobRequest, AgentOutcome> wave(OutcomeClass kind, String message,
      AtomicInteger calls) {
    java.util.concurrent.CountDownLatch together = new java.util.concurrent.CountDownLatch(4);
    return r -> {
      if (calls.incrementAndGet() > 4) {
        return InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "ok");
      }
      together.countDown();
      try {
        assertTrue(together.await(10, java.util.concurrent.TimeUnit.SECONDS), "four jobs at once");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return limited(kind, message, null);
    };
  }

  private Config four(OnUsageLimit on) {
    Config c = config(on);
    return c.withExecution(c.execution().withMaxConcurrent(4).withMaxWip(4));
  }

  @Test
  void jobs_refused_together_are_one_strike_not_one_each() {
    AtomicInteger calls = new AtomicInteger();
    List<BacklogItem> items = IntStream.range(0, 4).mapToObj(i -> item("I" + i)).toList();
    RunReport report = run(four(OnUsageLimit.HALT), items, wave(OutcomeClass.RATE_LIMITED,
        "API Error: 529 {\"type\":\"overloaded_error\"}", calls), new Ticking(T0, Duration.ofSeconds(1)), 16);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(4, report.done());
    assertEquals(Map.of("rate_limited", 4), report.limited(), "four jobs refused");
    assertEquals(1, notices.size(), "one wave, said once: " + notices);
    assertTrue(notices.get(0).contains("(1st backoff)"), "the first wait, not the fourth: " + notices);
  }

  @Test
  void a_usage_limit_without_a_reset_met_by_four_jobs_is_one_pause_said_once() {
    AtomicInteger calls = new AtomicInteger();
    List<BacklogItem> items = IntStream.range(0, 4).mapToObj(i -> item("I" + i)).toList();
    RunReport report = run(four(OnUsageLimit.WAIT), items, wave(OutcomeClass.USAGE_LIMIT,
        "Claude AI usage limit reached", calls), new Ticking(T0, Duration.ofSeconds(1)), 16);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(4, report.done());
    assertEquals(1, notices.size(), notices.toString());
    assertTrue(notices.get(0).startsWith("agent paused until "), notices.toString());
    assertEquals(List.of(), pauses(), "over once the profile worked again");
  }

  @Test
  void a_run_started_during_a_pause_says_what_is_paused_until_when_and_what_it_does() {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      store.pauses().put(new AgentPauses.Pause("agent", OutcomeClass.USAGE_LIMIT, T0.plus(Duration.ofMinutes(3)),
          "You've hit your limit", T0.minusSeconds(60), 2));
    }
    RunReport report = run(config(OnUsageLimit.WAIT), List.of(item("A")),
        r -> InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "ok"), new Ticking(T0, Duration.ofSeconds(5)), 4);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals("agent is paused by its usage limit until 10:33:00 UTC (2 strikes: You've hit your limit); this run "
        + "starts its phases after that, and other work meanwhile; orchestrate agents resume agent ends the pause now",
        notices.get(0));
  }

  @Test
  void a_pause_cleared_in_the_store_during_the_run_ends_there_too() {
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      store.pauses().put(new AgentPauses.Pause("agent", OutcomeClass.USAGE_LIMIT, Instant.now().plus(
          Duration.ofHours(1)), "You've hit your limit", Instant.now(), 1));
    }
    Thread resume = new Thread(() -> {
      sleep(1000);
      try (StateStore store = TestStores.open(dir.resolve("state"))) {
        store.pauses().clear("agent"); // what orchestrate agents resume does
      }
    });
    resume.start();
    long start = System.nanoTime();
    RunReport report = run(config(OnUsageLimit.WAIT), List.of(item("A")),
        r -> InProcessLauncher.outcome(AgentResult.PHASE_COMPLETE, "ok"), Clock.systemUTC(), 4);

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertTrue(Duration.ofNanos(System.nanoTime() - start).compareTo(Duration.ofSeconds(30)) < 0);
    assertTrue(notices.stream().anyMatch(n -> n.equals("agent: its pause was cleared in the state (orchestrate agents "
        + "resume, or another runner's job got through); its work starts again")), notices.toString());
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
