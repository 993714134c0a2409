package dev.orchestrate.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read-side use cases the commands call, against a real SQLite state in a temporary directory. */
class ReadQueriesTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir
  Path dir;

  private Path stateDir() {
    return dir.resolve(".orchestrate");
  }

  private StateBackend backend() {
    return TestStores.backend(stateDir());
  }

  private static BacklogItem item(String id) {
    return new BacklogItem(id, "title " + id, "feature", Priority.MEDIUM, List.of(), List.of(), "", InitialStatus.NEW);
  }

  /** Items A and B; A has jobs plan#1, plan#2 and code#1 of a run that never ended. */
  private void seed() {
    try (StateStore store = TestStores.open(stateDir())) {
      store.items().sync(List.of(item("A"), item("B")), T0);
      long run = store.items().runStarted(T0, 4242);
      store.items().jobStarted(new JobStart(run, "A", "plan", 1, T0.plusSeconds(1), Path.of("jobs/1/output.log")));
      store.items().jobStarted(new JobStart(run, "A", "plan", 2, T0.plusSeconds(2), Path.of("jobs/2/output.log")));
      store.items().jobStarted(new JobStart(run, "A", "code", 1, T0.plusSeconds(3), Path.of("jobs/3/output.log")));
    }
  }

  @Test
  void the_queries_of_a_state_that_does_not_exist_answer_empty_and_create_nothing() {
    try (StatusQuery.Listing listing = StatusQuery.listing(backend())) {
      List<StatusQuery.ItemRow> rows = new ArrayList<>();
      listing.forEach(rows::add);
      listing.forEachDeferred(ws -> rows.add(null));
      assertEquals(List.of(), rows);
      assertEquals(List.of(), listing.pauses());
    }
    assertInstanceOf(StatusQuery.NoState.class, StatusQuery.item(backend(), "A"));
    assertEquals(JobsQuery.Jobs.NONE, JobsQuery.recent(backend(), 50));
    assertInstanceOf(LogsQuery.NoState.class, LogsQuery.job(backend(), "A", null, null, false));
    assertEquals(List.of(), Memories.list(backend(), null, null));
    assertEquals(List.of(), Completions.itemIds(backend()));
    assertEquals(PlanInput.Stored.NONE, PlanInput.read(backend()));
    assertFalse(Files.exists(stateDir()), "a read created the state directory");
  }

  @Test
  void status_lists_the_items_in_order_and_finds_one_in_full_or_names_the_known_ones() {
    seed();
    List<StatusQuery.ItemRow> rows = new ArrayList<>();
    try (StatusQuery.Listing listing = StatusQuery.listing(backend())) {
      listing.forEach(rows::add);
    }
    assertEquals(List.of("A", "B"), rows.stream().map(r -> r.item().id()).toList());
    assertThrows(UnsupportedOperationException.class, () -> rows.get(0).waitingOn().clear());

    StatusQuery.ItemDetail a = assertInstanceOf(StatusQuery.Found.class, StatusQuery.item(backend(), "A")).detail();
    assertEquals(List.of("plan", "code"), a.phases().stream().map(StatusQuery.PhaseView::name).toList());
    assertEquals(2, a.phases().get(0).attempts());
    assertEquals(3, a.jobs().size());

    StatusQuery.Unknown unknown = assertInstanceOf(StatusQuery.Unknown.class, StatusQuery.item(backend(), "Z"));
    assertEquals(List.of("A", "B"), unknown.known());
  }

  @Test
  void jobs_are_newest_first_and_a_run_nobody_holds_that_never_ended_died() {
    seed();
    JobsQuery.Jobs jobs = JobsQuery.recent(backend(), 2);
    assertEquals(List.of("code#1", "plan#2"), jobs.jobs().stream().map(j -> j.phase() + "#" + j.attempt()).toList());
    assertEquals("died", jobs.run().orElseThrow().state());
    assertEquals(4242, jobs.run().orElseThrow().run().pid());
  }

  @Test
  void logs_picks_the_last_job_of_the_phase_and_attempt_asked_for_or_says_why_there_is_none() {
    seed();
    assertEquals("code", found(LogsQuery.job(backend(), "A", null, null, true)).job().phase());
    LogsQuery.Found plan = found(LogsQuery.job(backend(), "A", "plan", null, false));
    assertEquals(2, plan.job().attempt());
    // an attempt without a phase is one of the last job's phase
    assertInstanceOf(LogsQuery.NoMatch.class, LogsQuery.job(backend(), "A", null, 2, false));
    assertEquals(1, found(LogsQuery.job(backend(), "A", "plan", 1, false)).job().attempt());
    LogsQuery.NoMatch none = assertInstanceOf(LogsQuery.NoMatch.class,
        LogsQuery.job(backend(), "A", "review", null, false));
    assertEquals("review", none.phase());
    assertEquals(3, none.jobs().size());
    assertInstanceOf(LogsQuery.NoJobs.class, LogsQuery.job(backend(), "B", null, null, false));
    LogsQuery.UnknownItem unknown = assertInstanceOf(LogsQuery.UnknownItem.class,
        LogsQuery.job(backend(), "Z", null, null, false));
    assertEquals(List.of("A", "B"), unknown.known().stream().sorted().toList());
    assertFalse(LogsQuery.running(backend(), plan.job().id()), "no run holds the lease: the job's run died");
  }

  @Test
  void completion_and_the_dry_run_read_the_item_ids_and_items() {
    seed();
    assertEquals(List.of("A", "B"), Completions.itemIds(backend()).stream().sorted().toList());
    PlanInput.Stored stored = PlanInput.read(backend());
    assertEquals(2, stored.items().size());
    assertFalse(stored.olderSchema());
    assertTrue(stored.schemaVersion() > 0);
  }

  private static LogsQuery.Found found(LogsQuery.Lookup lookup) {
    return assertInstanceOf(LogsQuery.Found.class, lookup);
  }
}
