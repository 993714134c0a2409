package dev.orchestrate.state.sql;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.context.ContextSummary;
import dev.orchestrate.context.Turn;
import dev.orchestrate.context.TurnRepository;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.NewMemory;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.testing.Db;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code structures.truncated_writes}: one per row write whose values were cut, none otherwise. */
class TruncatedWritesTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final String LONG = "x".repeat(50_000);

  @TempDir
  Path dir;

  private Path db() {
    return dir.resolve("state.db");
  }

  private Map<String, Long> counts() throws Exception {
    Map<String, Long> out = new LinkedHashMap<>();
    for (String row : Db.column(db(), "SELECT name || '=' || truncated_writes FROM structures ORDER BY name")) {
      String[] kv = row.split("=");
      out.put(kv[0], Long.parseLong(kv[1]));
    }
    return out;
  }

  private long count(String structure) throws Exception {
    return counts().get(structure);
  }

  @Test
  void a_new_database_has_no_truncated_writes() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
    }
    assertEquals(Map.of("events", 0L, "items", 0L, "job_logs", 0L, "jobs", 0L, "memory", 0L, "stats_samples", 0L,
        "summaries", 0L, "turns", 0L, "worktrees", 0L), counts());
  }

  @Test
  void an_item_write_counts_once_when_it_cut_values_and_never_when_they_fit() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A", InitialStatus.BLOCKED), item("B", InitialStatus.BLOCKED)), T0);
      assertEquals(true, store.applyIf(Transitions.unblock(store.item("A").orElseThrow(), "short notes"),
          ItemStatus.BLOCKED, T0));
      assertEquals(0, count("items"));

      assertEquals(true, store.applyIf(Transitions.unblock(store.item("B").orElseThrow(), LONG),
          ItemStatus.BLOCKED, T0));
      assertEquals(1, count("items"));

      // two values cut in one step are still one write
      ItemState a = store.item("A").orElseThrow();
      Step twoCuts = new Step(a.with(new Progress(ItemStatus.NEW, null, 0, null, null, null, null, "n")), List.of(), 2);
      store.apply(twoCuts, T0);
      assertEquals(1 + 1, count("items"));
      store.apply(new Step(a.with(Progress.of(ItemStatus.NEW)), List.of()), T0);
      assertEquals(2, count("items"));
    }
  }

  @Test
  void a_refused_conditional_write_counts_nothing() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
      Step cut = new Step(store.item("A").orElseThrow().with(Progress.of(ItemStatus.READY)), List.of(), 1);
      assertEquals(false, store.applyIf(cut, ItemStatus.BLOCKED, T0));
    }
    assertEquals(0, count("items"));
  }

  @Test
  void a_job_end_counts_once_under_jobs_when_the_agent_s_texts_were_cut_and_its_step_under_items()
      throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
      long run = store.runStarted(T0, 1);
      ItemState a = store.item("A").orElseThrow().with(Progress.of(ItemStatus.NEW)
          .atPhase(ItemStatus.IN_PROGRESS, "design"));
      store.apply(new Step(a, List.of()), T0);

      long fits = store.jobStarted(new JobStart(run, "A", "design", 1, T0, null));
      AgentOutcome small = outcome(AgentResult.FAILED, "", "boom");
      store.jobEnded(fits, JobEnd.of(small, JobState.FAILED, T0), Transitions.afterAttempt(a,
          dev.orchestrate.testing.Fixtures.feature(), small, 2), T0);
      assertEquals(0, count("jobs"));
      assertEquals(0, count("items"));

      long cut = store.jobStarted(new JobStart(run, "A", "design", 2, T0, null));
      AgentOutcome big = new AgentOutcome(AgentResult.FAILED, "", LONG, List.of(), List.of(),
          java.util.OptionalInt.of(1), AgentOutcome.Ending.EXITED, java.time.Duration.ZERO, 3);
      Step failed = Transitions.afterAttempt(store.item("A").orElseThrow(),
          dev.orchestrate.testing.Fixtures.feature(), big, 2);
      store.jobEnded(cut, JobEnd.of(big, JobState.FAILED, T0), failed, T0);
      assertEquals(1, count("jobs"), "three values cut, one job end written");
      assertEquals(1, count("items"), "the last failure stored on the item was cut");
    }
  }

  @Test
  void a_follow_up_item_counts_under_items_when_added_and_not_when_it_exists_already() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
      long run = store.runStarted(T0, 1);
      List<FollowUpItem> followUps = FollowUpItem.of("A", "build",
          List.of(new AgentOutcome.FollowUp("T".repeat(FollowUpItem.TITLE_MAX_CHARS + 1), LONG),
              new AgentOutcome.FollowUp("Short", "fits")),
          "feature");
      store.jobEnded(store.jobStarted(new JobStart(run, "A", "build", 1, T0, null)),
          new JobEnd(JobState.FAILED, "failed", 1, "boom", T0), null, followUps, T0);
      assertEquals(1, count("items"), "title and description of one follow-up cut: one item written");

      store.jobEnded(store.jobStarted(new JobStart(run, "A", "build", 2, T0, null)),
          new JobEnd(JobState.FAILED, "failed", 1, "boom", T0), null, followUps, T0);
      assertEquals(1, count("items"), "reported again, not written again");
    }
  }

  @Test
  void turns_and_summaries_count_their_own_cut_writes() throws Exception {
    try (SqlStateStore whole = SqliteStores.open(db())) {
      SqlStateRepository store = whole.repository();
      TurnRepository turns = whole.turns();
      turns.appendTurn("A", "design", 1, Turn.Role.USER, "Design it.", T0);
      turns.appendTurn("A", "design", 1, Turn.Role.ASSISTANT, "cut…", true, T0);
      turns.saveSummary(new ContextSummary("A", "- s", 1, 2, 2, "builtin", T0, false, 1), "summarization:complete",
          Map.of());
      turns.saveSummary(new ContextSummary("A", "- s…", 1, 2, 2, "builtin", T0, false, 1), true,
          "summarization:complete", Map.of());
      turns.saveSummary(new ContextSummary("A", "- s…", 1, 2, 2, "builtin", T0, false, 1), true,
          "summarization:complete", Map.of());
    }
    assertEquals(1, count("turns"));
    assertEquals(2, count("summaries"), "each replacement is a write");
  }

  @Test
  void memory_counts_each_capped_put_and_each_capped_imported_row() throws Exception {
    try (SqlMemoryRepository repo = SqliteStores.memory(db())) {
      repo.put(new NewMemory("a", MemoryKind.SEMANTIC, "t", "fits", List.of(), null).capped(), T0);
      assertEquals(0, count("memory"));
      repo.put(new NewMemory("b", MemoryKind.SEMANTIC, "T".repeat(500), LONG, List.of(), null).capped(), T0);
      assertEquals(1, count("memory"), "title and content cut: one write");
      repo.importAll(List.of(
          new NewMemory(null, MemoryKind.EPISODIC, null, LONG, List.of(), null).capped(),
          new NewMemory(null, MemoryKind.EPISODIC, null, "short", List.of(), null).capped(),
          new NewMemory(null, MemoryKind.EPISODIC, null, LONG + "!", List.of(), null).capped()).iterator(), T0);
      assertEquals(3, count("memory"));
    }
  }
}
