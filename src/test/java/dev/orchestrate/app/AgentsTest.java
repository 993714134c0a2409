package dev.orchestrate.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.AgentConfig;
import dev.orchestrate.config.AgentPreset;
import dev.orchestrate.config.BudgetConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ResultFallback;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.scheduler.BudgetWindow;
import dev.orchestrate.state.RunLease;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code agents} and {@code agents resume} as use cases, on a real SQLite state and a settable clock. */
class AgentsTest {
  /** A Wednesday: the day's window opened at 00:00 UTC, the week's on Monday the 23rd. */
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

  @TempDir
  Path dir;

  private Instant now = NOW;

  private final Clock clock = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  };

  private Path stateDir() {
    return dir.resolve(".orchestrate");
  }

  private StateBackend backend() {
    return TestStores.backend(stateDir());
  }

  private Agents agents() {
    return new Agents(backend(), clock);
  }

  private static AgentConfig preset(AgentPreset preset) {
    return new AgentConfig(List.of(preset.key()), Duration.ofMinutes(30), Duration.ofSeconds(10), Map.of(),
        ResultFallback.STRICT, 1024, 4000, preset, List.of(), null);
  }

  /** claude (the agent: block) and codex (agents:, at most 2 at once); a project budget of $20 a day. */
  private static Config config() {
    Config base = Config.defaults();
    return new Config(Optional.empty(), preset(AgentPreset.CLAUDE), base.execution(), base.defaultPipeline(),
        base.pipelines(), base.context(), base.memoryKeepRecent(), base.memoryBootContextChars(), base.retention(),
        base.state(), new BudgetConfig(20.0, null, null, null),
        Map.of("codex", preset(AgentPreset.CODEX).asProfile("codex", 2)));
  }

  private static BacklogItem item(String id) {
    return new BacklogItem(id, "title " + id, "feature", Priority.MEDIUM, List.of(), List.of(), "", InitialStatus.NEW);
  }

  /** A job of {@code agent} that ended at {@code at} with {@code outcome} and {@code spent}. */
  private static long job(StateRepository items, long run, String agent, Instant at, OutcomeClass outcome,
      Usage spent) {
    long id = items.jobStarted(new JobStart(run, "A", "build", 1, at.minusSeconds(1), null, agent));
    items.jobEnded(id, new JobEnd(outcome == OutcomeClass.SUCCEEDED ? JobState.COMPLETED : JobState.FAILED,
        "phase_complete", 0, null, at, 0, spent, outcome), null, List.of(), at);
    return id;
  }

  @Test
  void without_a_state_every_configured_profile_is_listed_with_nothing_recorded_and_nothing_is_created() {
    Agents.Overview overview = agents().overview(config());
    assertEquals(List.of("claude", "codex"), overview.profiles().stream().map(Agents.Profile::name).toList());
    Agents.Profile claude = overview.profiles().get(0);
    assertTrue(claude.isDefault());
    assertEquals(AgentPreset.CLAUDE, claude.config().preset());
    assertEquals(2, overview.profiles().get(1).config().maxConcurrent());
    assertTrue(claude.spend().get(BudgetWindow.DAY).isUnknown(), "nothing spent is unknown, never 0");
    assertNull(claude.pause());
    assertEquals(List.of(), claude.recent());
    assertEquals(List.of(BudgetWindow.DAY), overview.windows().stream().map(StatsQuery.WindowSpend::window).toList());
    assertFalse(overview.runActive());
    assertEquals(new Agents.Resumed("codex", Optional.empty(), false, NOW), agents().resume(config(), "codex"));
    assertFalse(Files.exists(stateDir()), "a read created the state directory");
  }

  @Test
  void each_profile_shows_its_spend_per_window_its_pause_and_its_last_outcomes_newest_first() {
    AgentPauses.Pause limit = new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, NOW.plusSeconds(3600),
        "You've hit your limit", NOW.minusSeconds(60), 2);
    try (StateStore store = TestStores.open(stateDir())) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), NOW.minusSeconds(7 * 86400));
      long run = items.runStarted(NOW.minusSeconds(7 * 86400), 1);
      job(items, run, "claude", Instant.parse("2026-11-22T12:00:00Z"), OutcomeClass.SUCCEEDED, // last week
          new Usage(1000L, 0L, null, null, 5.0));
      job(items, run, "claude", Instant.parse("2026-11-24T12:00:00Z"), OutcomeClass.FAILED, // this week
          new Usage(100L, 0L, null, null, 1.0));
      job(items, run, "claude", NOW.minusSeconds(120), OutcomeClass.SUCCEEDED, new Usage(10L, 0L, null, null, 0.25));
      job(items, run, "claude", NOW.minusSeconds(60), OutcomeClass.USAGE_LIMIT, Usage.UNKNOWN);
      job(items, run, "codex", NOW.minusSeconds(30), OutcomeClass.SUCCEEDED, new Usage(40L, 2L, null, null, null));
      store.pauses().put(limit);
    }
    Agents.Overview overview = agents().overview(config());
    Agents.Profile claude = overview.profiles().get(0);
    assertEquals(new Usage(10L, 0L, null, null, 0.25), claude.spend().get(BudgetWindow.DAY));
    assertEquals(new Usage(110L, 0L, null, null, 1.25), claude.spend().get(BudgetWindow.WEEK));
    assertEquals(limit, claude.pause());
    assertEquals(List.of(OutcomeClass.USAGE_LIMIT, OutcomeClass.SUCCEEDED, OutcomeClass.FAILED, OutcomeClass.SUCCEEDED),
        claude.recent().stream().map(o -> o.outcome()).toList());
    Agents.Profile codex = overview.profiles().get(1);
    assertEquals(new Usage(40L, 2L, null, null, null), codex.spend().get(BudgetWindow.DAY), "no cost reported: null");
    assertNull(codex.pause());
    StatsQuery.WindowSpend day = overview.windows().get(0);
    assertEquals(new Usage(50L, 2L, null, null, 0.25), day.spent(), "the project's window: every profile's jobs");
    assertEquals(Instant.parse("2026-11-25T00:00:00Z"), day.from());
  }

  @Test
  void a_paused_profile_the_config_no_longer_names_is_listed_and_can_be_resumed() {
    try (StateStore store = TestStores.open(stateDir())) {
      store.pauses().put(new AgentPauses.Pause("gemini", OutcomeClass.RATE_LIMITED, NOW.plusSeconds(60), "429",
          NOW, 1));
    }
    Agents.Profile gemini = agents().overview(config()).profiles().get(2);
    assertEquals("gemini", gemini.name());
    assertNull(gemini.config(), "not in the config");
    assertTrue(agents().resume(config(), "gemini").cleared().isPresent());
    assertEquals(List.of("claude", "codex"),
        agents().overview(config()).profiles().stream().map(Agents.Profile::name).toList());
  }

  @Test
  void resume_deletes_the_pause_says_so_once_and_then_finds_the_profile_not_paused() {
    AgentPauses.Pause limit = new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, NOW.plusSeconds(3600), "limit",
        NOW, 1);
    AgentPauses.Pause codex = new AgentPauses.Pause("codex", OutcomeClass.RATE_LIMITED, NOW.plusSeconds(60), "429",
        NOW, 1);
    try (StateStore store = TestStores.open(stateDir())) {
      store.pauses().put(limit);
      store.pauses().put(codex);
    }
    now = NOW.plusSeconds(5);
    Agents.Resumed resumed = agents().resume(config(), "claude");
    assertEquals(new Agents.Resumed("claude", Optional.of(limit), false, now), resumed);
    assertEquals(Optional.empty(), agents().resume(config(), "claude").cleared(), "idempotent");
    assertEquals(List.of(codex), TestStores.read(stateDir(), store -> store.pauses().all()), "only claude's");
  }

  @Test
  void resume_of_an_unknown_profile_is_refused_naming_the_configured_ones_and_changes_nothing() {
    try (StateStore store = TestStores.open(stateDir())) {
      store.pauses().put(new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, NOW.plusSeconds(60), "", NOW, 1));
    }
    UnknownProfileException e = assertThrows(UnknownProfileException.class, () -> agents().resume(config(), "claud"));
    assertEquals("unknown agent profile 'claud'; the config's profiles: claude, codex (see 'orchestrate agents')",
        e.getMessage());
    assertEquals(1, TestStores.read(stateDir(), store -> store.pauses().all()).size());
    assertThrows(UnknownProfileException.class, () -> new Agents(TestStores.backend(dir.resolve("none")), clock)
        .resume(config(), "claud"), "also without a state");
  }

  @Test
  @SuppressWarnings("try") // the lease is held, never read: closing it releases it
  void resume_beside_a_run_deletes_the_pause_for_the_run_to_read_and_says_a_run_is_active() {
    try (StateStore store = TestStores.open(stateDir())) {
      store.pauses().put(new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, NOW.plusSeconds(60), "", NOW, 1));
    }
    try (RunLease run = backend().acquireLease(NOW)) {
      assertTrue(agents().overview(config()).runActive());
      Agents.Resumed resumed = agents().resume(config(), "claude");
      assertTrue(resumed.cleared().isPresent(), "not refused: the run reads the pauses from the state");
      assertTrue(resumed.runActive());
    }
    assertEquals(List.of(), TestStores.read(stateDir(), store -> store.pauses().all()));
  }

  @Test
  void the_recent_outcomes_stay_bounded_and_are_read_through_the_profiles_index_among_thousands_of_jobs()
      throws Exception {
    List<Long> codexJobs = new ArrayList<>();
    try (StateStore store = TestStores.open(stateDir())) {
      StateRepository items = store.items();
      items.sync(List.of(item("A")), NOW.minusSeconds(86400));
      long run = items.runStarted(NOW.minusSeconds(86400), 1);
      for (int i = 0; i < 3000; i++) {
        Instant at = NOW.minusSeconds(3600).plusMillis(i);
        if (i % 1000 == 0) {
          codexJobs.add(job(items, run, "codex", at, OutcomeClass.RATE_LIMITED, Usage.UNKNOWN));
        } else {
          job(items, run, "claude", at, i % 2 == 0 ? OutcomeClass.SUCCEEDED : OutcomeClass.FAILED,
              new Usage(1L, 1L, null, null, 0.001));
        }
      }
    }
    Agents.Overview overview = agents().overview(config());
    Agents.Profile claude = overview.profiles().get(0);
    assertEquals(Agents.RECENT_OUTCOMES, claude.recent().size());
    assertEquals(Instant.parse("2026-11-25T11:00:02.999Z"), claude.recent().get(0).endedAt(), "the newest first");
    assertEquals(new Usage(2997L, 2997L, null, null, 2.997).totalTokens(),
        claude.spend().get(BudgetWindow.DAY).totalTokens(), "the spend sums every job");
    assertEquals(List.of(codexJobs.get(2), codexJobs.get(1), codexJobs.get(0)),
        overview.profiles().get(1).recent().stream().map(o -> o.jobId()).toList(), "a profile that seldom runs");
    String plan = String.join("; ", plan("SELECT id, item_id, phase, outcome, ended_at FROM jobs WHERE agent = 'codex'"
        + " AND outcome IS NOT NULL ORDER BY id DESC LIMIT 10"));
    assertTrue(plan.contains("jobs_by_agent"), plan);
    assertFalse(plan.contains("TEMP B-TREE"), "no sort of the profile's jobs: " + plan);
  }

  private List<String> plan(String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + stateDir().resolve("state.db"));
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
      List<String> steps = new ArrayList<>();
      while (rs.next()) {
        steps.add(rs.getString("detail"));
      }
      return steps;
    }
  }
}
