package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code orchestrate agents} and {@code agents resume NAME}, in-process: text, --json, exit codes. */
class AgentsCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private Path state() {
    return dir.resolve(".orchestrate");
  }

  /** A project: claude (the agent: block), codex (agents:, at most 2 at once), $20 a day. */
  private void project() throws Exception {
    Files.writeString(dir.resolve("orchestrate.yaml"), """
        agent: {preset: claude}
        agents:
          codex: {preset: codex, max_concurrent: 2}
        budget:
          per_day: 20
        """);
  }

  private CliRunner.Result cli(String... args) {
    return CliRunner.runIn(dir, Map.of(), args);
  }

  /** claude paused for an hour from now after two jobs, codex one job that worked. */
  private void seed() {
    Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    try (StateStore store = TestStores.open(state())) {
      store.items().sync(List.of(new BacklogItem("A", "a", "feature", Priority.MEDIUM, List.of(), List.of(), "",
          InitialStatus.NEW)), now);
      long run = store.items().runStarted(now, 1);
      job(store, run, "claude", OutcomeClass.SUCCEEDED, new Usage(1000L, 200L, null, null, 0.5), now);
      job(store, run, "claude", OutcomeClass.USAGE_LIMIT, Usage.UNKNOWN, now);
      job(store, run, "codex", OutcomeClass.SUCCEEDED, new Usage(300L, 30L, null, null, null), now);
      store.pauses().put(new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, now.plusSeconds(3600),
          "You've hit your 5-hour limit · resets 6:44am (UTC)", now, 2));
    }
  }

  private static void job(StateStore store, long run, String agent, OutcomeClass outcome, Usage spent, Instant at) {
    long id = store.items().jobStarted(new JobStart(run, "A", "build", 1, at, null, agent));
    store.items().jobEnded(id, new JobEnd(outcome == OutcomeClass.SUCCEEDED ? JobState.COMPLETED : JobState.FAILED,
        "phase_complete", 0, null, at, 0, spent, outcome), null, List.of(), at);
  }

  @Test
  void agents_lists_each_profile_with_its_preset_concurrency_spend_pause_and_last_outcomes() throws Exception {
    project();
    seed();
    CliRunner.Result r = cli("agents");
    assertEquals(0, r.exitCode(), r.err());
    assertEquals("", r.err());
    List<String> lines = r.out().lines().toList();
    assertTrue(lines.get(0).matches("PROFILE +PRESET +MAX +TODAY +THIS WEEK +PAUSE"), lines.get(0));
    assertTrue(lines.get(1).matches("claude \\(default\\) +claude +- +1,200 tokens, \\$0\\.5000 +1,200 tokens, "
        + "\\$0\\.5000 +usage limit until .*, 2 strikes"), lines.get(1));
    assertEquals("  usage limit: You've hit your 5-hour limit · resets 6:44am (UTC)", lines.get(2));
    assertEquals("  last 2 (newest first): usage_limit, succeeded", lines.get(3));
    assertTrue(lines.get(4).matches("codex +codex +2 +330 tokens +330 tokens +-"), lines.get(4));
    assertTrue(r.out().contains("budget per-day since "), r.out());
    assertFalse(r.out().contains("A run is working"), r.out());
  }

  @Test
  void agents_json_is_one_versioned_document_with_every_profile() throws Exception {
    project();
    seed();
    CliRunner.Result r = cli("agents", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals(List.of("schema_version", "kind", "run_active", "max_concurrent", "windows", "agents"),
        fields(doc));
    assertEquals("agents", doc.get("kind").asText());
    assertFalse(doc.get("run_active").asBoolean());
    assertEquals("per_day", doc.get("windows").get(0).get("window").asText());
    assertEquals(0.5, doc.get("windows").get(0).get("spend").get("cost_usd").asDouble());
    JsonNode claude = doc.get("agents").get(0);
    assertEquals(List.of("profile", "default", "in_config", "preset", "max_concurrent", "spend", "pause",
        "recent_outcomes"), fields(claude));
    assertEquals("claude", claude.get("profile").asText());
    assertTrue(claude.get("default").asBoolean());
    assertTrue(claude.get("max_concurrent").isNull());
    assertEquals(List.of("per_day", "per_week"), claude.get("spend").findValuesAsText("window"));
    assertEquals(1200, claude.get("spend").get(0).get("spend").get("total_tokens").asLong());
    JsonNode pause = claude.get("pause");
    assertEquals(List.of("kind", "until", "since", "strikes", "message", "active"), fields(pause));
    assertEquals("usage_limit", pause.get("kind").asText());
    assertEquals(2, pause.get("strikes").asInt());
    assertTrue(pause.get("active").asBoolean());
    assertEquals(List.of("usage_limit", "succeeded"), claude.get("recent_outcomes").findValuesAsText("outcome"));
    JsonNode codex = doc.get("agents").get(1);
    assertEquals(2, codex.get("max_concurrent").asInt());
    assertTrue(codex.get("pause").isNull());
    assertTrue(codex.get("spend").get(0).get("spend").get("cost_usd").isNull(), "no cost reported: null, never 0");
  }

  @Test
  void agents_without_a_state_lists_the_configured_profiles_and_creates_nothing() throws Exception {
    project();
    CliRunner.Result r = cli("agents", "--json");
    assertEquals(0, r.exitCode(), r.err());
    JsonNode doc = JSON.readTree(r.out());
    assertEquals(List.of("claude", "codex"), doc.get("agents").findValuesAsText("profile"));
    assertFalse(Files.exists(state()));
  }

  @Test
  void resume_clears_a_pause_then_says_the_profile_is_not_paused() throws Exception {
    project();
    seed();
    CliRunner.Result r = cli("agents", "resume", "claude");
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().matches("claude resumed: its usage limit pause until .* is cleared; the next run starts its "
        + "work\n"), r.out());
    assertEquals(List.of(), TestStores.read(state(), store -> store.pauses().all()));
    CliRunner.Result again = cli("agents", "resume", "claude");
    assertEquals(0, again.exitCode(), again.err());
    assertEquals("claude is not paused; nothing to resume\n", again.out());
    assertTrue(cli("agents").out().lines().filter(l -> l.startsWith("claude")).findFirst().orElseThrow()
        .endsWith(" -"), "no pause shown any more");
  }

  @Test
  void resume_json_says_what_it_cleared_and_whether_a_run_is_active() throws Exception {
    project();
    seed();
    JsonNode doc = JSON.readTree(cli("agents", "resume", "claude", "--json").out());
    assertEquals(List.of("schema_version", "kind", "profile", "resumed", "cleared", "run_active"), fields(doc));
    assertEquals("agents_resume", doc.get("kind").asText());
    assertTrue(doc.get("resumed").asBoolean());
    assertEquals("usage_limit", doc.get("cleared").get("kind").asText());
    assertFalse(doc.get("run_active").asBoolean());
    JsonNode again = JSON.readTree(cli("agents", "resume", "claude", "--json").out());
    assertFalse(again.get("resumed").asBoolean());
    assertTrue(again.get("cleared").isNull());
  }

  @Test
  @SuppressWarnings("try") // the lease is held, never read: closing it releases it
  void resume_beside_a_run_clears_the_pause_and_says_the_run_picks_it_up() throws Exception {
    project();
    seed();
    try (var lease = TestStores.backend(state()).acquireLease(Instant.now())) {
      CliRunner.Result r = cli("agents", "resume", "claude");
      assertEquals(0, r.exitCode(), r.err());
      assertTrue(r.out().endsWith("; the running run starts its work again at its next round\n"), r.out());
      assertTrue(cli("agents").out().contains("A run is working on this state"));
    }
  }

  @Test
  void resume_of_an_unknown_profile_exits_2_with_one_line_naming_the_configured_ones() throws Exception {
    project();
    seed();
    CliRunner.Result r = cli("agents", "resume", "claud");
    assertEquals(2, r.exitCode());
    assertEquals("", r.out());
    assertEquals("orchestrate: error: unknown agent profile 'claud'; the config's profiles: claude, codex (see "
        + "'orchestrate agents')\n", r.err());
    assertEquals(1, TestStores.read(state(), store -> store.pauses().all()).size(), "nothing changed");
    CliRunner.Result missing = cli("agents", "resume");
    assertEquals(2, missing.exitCode());
    assertEquals(1, missing.err().lines().count(), missing.err());
  }

  private static List<String> fields(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
