package dev.orchestrate.state.sql;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.outcome.AgentOutcome.FollowUp;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.state.StoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqlStateRepositoryTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  @TempDir
  Path dir;

  private Path db() {
    return dir.resolve("state.db");
  }

  @Test
  void sync_adds_new_items_in_backlog_order_with_their_initial_status() {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      SyncResult r = store.sync(List.of(item("B"), item("A", InitialStatus.READY), item("C", InitialStatus.DONE),
          item("D", InitialStatus.BLOCKED)), T0);
      assertEquals(List.of("B", "A", "C", "D"), r.added());
      List<ItemState> items = store.items();
      assertEquals(List.of("B", "A", "C", "D"), items.stream().map(ItemState::id).toList());
      assertEquals(List.of(ItemStatus.NEW, ItemStatus.READY, ItemStatus.DONE, ItemStatus.BLOCKED),
          items.stream().map(ItemState::status).toList());
      assertEquals("marked blocked in the backlog", items.get(3).progress().blockedReason());
    }
  }

  /**
   * Past the sizes at which the sync's statements are sent (100 inserted rows to a statement, 1,000
   * updates to a batch), and with a remainder: every item and every event is written once, in order.
   */
  @Test
  void a_sync_of_thousands_of_items_writes_each_item_and_event_once_in_backlog_order() {
    try (SqlStateStore whole = SqliteStores.open(db()); SqlStateRepository store = whole.repository()) {
      List<BacklogItem> first = new java.util.ArrayList<>();
      for (int i = 0; i < 2_345; i++) {
        first.add(item(String.format("I%05d", i)));
      }
      assertEquals(2_345, store.sync(first, T0).added().size());
      List<ItemState> read = store.items();
      assertEquals(first.stream().map(BacklogItem::id).toList(), read.stream().map(ItemState::id).toList());
      // held once for all items: the progress of an item with nothing but its status, the pipeline's name
      assertSame(read.get(0).progress(), read.get(2_344).progress());
      assertSame(read.get(0).definition().pipeline(), read.get(2_344).definition().pipeline());
      assertEquals(List.of(1L, 2_345L), whole.jdbc().query("SELECT MIN(seq), MAX(seq) FROM items",
          rs -> List.of(rs.getLong(1), rs.getLong(2))).get(0));
      assertEquals(first.stream().map(BacklogItem::id).toList(),
          whole.jdbc().query("SELECT item_id FROM events WHERE kind = ? ORDER BY id", rs -> rs.getString(1),
              Event.ITEM_ADDED));

      // Every item still listed gets a new title: 1,344 updates, a batch and a remainder.
      List<BacklogItem> second = new java.util.ArrayList<>(first.subList(1_001, 2_345).stream()
          .map(i -> new BacklogItem(i.id(), "Renamed " + i.id(), i.pipeline(), i.priority(), i.dependsOn(), i.tags(),
              i.description(), i.initialStatus()))
          .toList());
      second.add(item("NEW"));
      StateRepository.Synced synced = store.syncAndRead(second, T0.plusSeconds(1));
      SyncResult r = synced.changes();
      assertEquals(store.items(), synced.items(), "the items as a read right after the sync finds them");
      assertEquals("Renamed I01001", store.item("I01001").orElseThrow().definition().title());
      assertEquals(List.of("NEW"), r.added());
      assertEquals(first.subList(0, 1_001).stream().map(BacklogItem::id).toList(), r.vanished());
      assertEquals(1_001, whole.jdbc().queryLong("SELECT COUNT(*) FROM events WHERE kind = ?", Event.ITEM_VANISHED));
      assertEquals(1_001, whole.jdbc().queryLong("SELECT COUNT(*) FROM items WHERE in_backlog = 0"));
      assertEquals(2_346, whole.jdbc().queryLong("SELECT COUNT(*) FROM items"));
      assertEquals(1_345, whole.jdbc().queryLong("SELECT COUNT(*) FROM items WHERE updated_at = ? AND in_backlog = 1",
          T0.plusSeconds(1).toEpochMilli()));

      // The same file again: nothing to write, not even updated_at (a restart over a million items
      // rewrote every row before).
      synced = store.syncAndRead(second, T0.plusSeconds(2));
      assertTrue(synced.changes().isEmpty());
      assertEquals(store.items(), synced.items());
      assertEquals(0, whole.jdbc().queryLong("SELECT COUNT(*) FROM items WHERE updated_at = ?",
          T0.plusSeconds(2).toEpochMilli()));
    }
  }

  /**
   * A bulk sync's commit leaves its write-ahead log to a thread of its own (SqliteDialect,
   * BackgroundCheckpoint): the writing connection's automatic checkpoint is off from that commit
   * on, the database file takes the items while nothing else checkpoints, and the first commit after
   * that thread ended gives the connection its setting back. A small sync leaves it alone.
   */
  @Test
  void a_bulk_sync_leaves_its_checkpoint_to_a_thread_and_then_checkpoints_as_before() throws Exception {
    try (SqlStateStore whole = SqliteStores.open(db()); SqlStateRepository store = whole.repository()) {
      Jdbc jdbc = whole.jdbc();
      store.sync(List.of(item("SMALL")), T0);
      assertEquals(1000, jdbc.queryLong("PRAGMA wal_autocheckpoint"), "a small sync checkpoints as SQLite does");
      long before = java.nio.file.Files.size(db());

      List<BacklogItem> bulk = new java.util.ArrayList<>(List.of(item("SMALL")));
      for (int i = 0; i < 5_000; i++) {
        bulk.add(item(String.format("BULK-%05d", i)));
      }
      store.sync(bulk, T0.plusSeconds(1));
      assertEquals(0, jdbc.queryLong("PRAGMA wal_autocheckpoint"), "no checkpoint in the bulk sync's commit");
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      while (java.nio.file.Files.size(db()) < before + 500_000 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertTrue(java.nio.file.Files.size(db()) >= before + 500_000,
          "the items reached the database file: " + before + " -> " + java.nio.file.Files.size(db()));

      int n = 0;
      while (jdbc.queryLong("PRAGMA wal_autocheckpoint") == 0 && System.nanoTime() < deadline) {
        bulk.add(item("AFTER-" + n++)); // a commit of its own
        store.sync(bulk, T0.plusSeconds(2 + n));
        Thread.sleep(20);
      }
      assertEquals(1000, jdbc.queryLong("PRAGMA wal_autocheckpoint"));
      assertEquals(5_001 + n, store.items().size());
    }
  }

  /**
   * A store closed right after a bulk sync returns only once the sync's background checkpoint has
   * ended: no thread of it runs on and no log is left to be written into the database afterwards
   * (a test's temporary directory was found changing while it was being deleted).
   */
  @Test
  void a_store_closed_after_a_bulk_sync_leaves_no_checkpoint_running_and_no_log() throws Exception {
    List<BacklogItem> bulk = new java.util.ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      bulk.add(item(String.format("BULK-%05d", i)));
    }
    try (SqlStateStore whole = SqliteStores.open(db()); SqlStateRepository store = whole.repository()) {
      store.sync(bulk, T0);
    }
    List<String> running = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .map(Thread::getName).filter("orchestrate-checkpoint"::equals).toList();
    assertEquals(List.of(), running, "a checkpoint thread outlived its store");
    assertFalse(java.nio.file.Files.exists(dir.resolve("state.db-wal")), "the log is written and deleted at close");
    try (SqlStateStore whole = SqliteStores.open(db()); SqlStateRepository store = whole.repository()) {
      assertEquals(20_000, store.items().size());
    }
  }

  /**
   * A sync that adds thousands of items counts them in {@code structures} once, with the row
   * triggers paused: the counters still match the tables after a first bulk sync, after one that
   * also reports vanished and returned items, and after a small one, which the triggers (back in
   * place) count.
   */
  @Test
  void a_bulk_sync_keeps_the_structures_counters_exact_and_its_triggers_in_place() {
    try (SqlStateStore whole = SqliteStores.open(db()); SqlStateRepository store = whole.repository()) {
      Jdbc jdbc = whole.jdbc();
      List<BacklogItem> first = new java.util.ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        String id = String.format("I%05d", i);
        first.add(i % 7 == 0 ? item(id, InitialStatus.BLOCKED) : item(id));
      }
      Events.insert(jdbc, T0.toEpochMilli(), null, "memory.added", java.util.Map.of()); // load-bearing
      store.sync(first.subList(0, 2_000), T0);
      assertCountersExact(jdbc, 2_000);
      store.sync(first.subList(500, 1_500), T0.plusSeconds(1)); // no new item: 1,000 vanish
      assertCountersExact(jdbc, 2_000);
      List<BacklogItem> bulk = new java.util.ArrayList<>(first.subList(0, 600)); // 500 return
      bulk.addAll(first.subList(1_800, 3_000)); // 200 return, 1,000 new
      SyncResult r = store.sync(bulk, T0.plusSeconds(2));
      assertEquals(1_000, r.added().size());
      assertEquals(700, r.returned().size());
      assertCountersExact(jdbc, 3_000);
      store.sync(List.of(item("SMALL")), T0.plusSeconds(3));
      assertCountersExact(jdbc, 3_001);
      assertEquals(3, jdbc.queryLong("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' "
          + "AND name IN ('items_written', 'events_written', 'events_kept')"));
    }
  }

  private static void assertCountersExact(Jdbc jdbc, long items) {
    assertEquals(items, jdbc.queryLong("SELECT rows_written FROM structures WHERE name = 'items'"));
    assertEquals(items, jdbc.queryLong("SELECT COUNT(*) FROM items"));
    assertEquals(jdbc.queryLong("SELECT COUNT(*) FROM events"),
        jdbc.queryLong("SELECT rows_written FROM structures WHERE name = 'events'"));
    long kept = jdbc.queryLong("SELECT COUNT(*) FROM events WHERE load_bearing = 1");
    assertEquals(1, kept);
    assertEquals(kept, jdbc.queryLong("SELECT kept_rows FROM structures WHERE name = 'events'"));
  }

  @Test
  void sync_keeps_the_state_of_known_items_and_reports_vanished_and_returned_ones() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A"), item("B")), T0);
      ItemState a = store.items().get(0);
      store.apply(new Step(a.with(Progress.of(ItemStatus.NEW).atPhase(ItemStatus.IN_PROGRESS, "build")), List.of()),
          T0);

      StateRepository.Synced synced = store.syncAndRead(List.of(item("A", InitialStatus.DONE), item("C")), T0);
      assertEquals(store.items(), synced.items(), "progress, hint, listing and seq as stored");
      SyncResult second = synced.changes();
      assertEquals(List.of("C"), second.added());
      assertEquals(List.of("B"), second.vanished());
      ItemState reloaded = store.items().get(0);
      assertEquals(ItemStatus.IN_PROGRESS, reloaded.status(), "the status hint applies only when first seen");
      assertEquals("build", reloaded.progress().phase());
      assertFalse(store.items().get(1).inBacklog());
      assertEquals(3, store.items().get(2).seq());

      synced = store.syncAndRead(List.of(item("B"), item("A"), item("C"), item("N")), T0);
      assertEquals(store.items(), synced.items());
      assertEquals("item.returned B,item.added N", sql("SELECT group_concat(e, ',') FROM (SELECT * FROM (SELECT id,"
          + " kind || ' ' || item_id AS e FROM events WHERE kind IN ('item.returned', 'item.added') ORDER BY id DESC"
          + " LIMIT 2) ORDER BY id)"), "this sync's: returned, then added");
      SyncResult third = synced.changes();
      assertEquals(List.of("B"), third.returned());
      assertTrue(store.items().get(1).inBacklog());
    }
  }

  @Test
  void an_applied_step_survives_reopening_with_its_events() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A", "Z")), T0);
      ItemState a = store.items().get(0);
      Progress blocked = Progress.blocked(ItemStatus.IN_PROGRESS, "build", "needs a decision");
      store.apply(new Step(a.with(blocked), List.of(Event.statusChange("A", ItemStatus.NEW, ItemStatus.BLOCKED,
          "build", "needs a decision"))), T0);
    }
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      ItemState a = store.items().get(0);
      assertEquals(ItemStatus.BLOCKED, a.status());
      assertEquals(ItemStatus.IN_PROGRESS, a.progress().blockedFrom());
      assertEquals("needs a decision", a.progress().blockedReason());
      assertEquals(List.of("Z"), a.definition().dependsOn());
    }
    assertEquals("item.added,item.status", sql("SELECT group_concat(kind) FROM (SELECT kind FROM events ORDER BY id)"));
    assertEquals("{\"from\":\"new\",\"to\":\"blocked\",\"phase\":\"build\",\"reason\":\"needs a decision\"}",
        sql("SELECT payload FROM events WHERE kind = 'item.status'"));
  }

  @Test
  void a_job_end_and_the_item_change_are_recorded_together() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
      long run = store.runStarted(T0, 42);
      long job = store.jobStarted(new JobStart(run, "A", "design", 1, T0, dir.resolve("log")));
      ItemState a = store.items().get(0);
      store.jobEnded(job, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, T0.plusSeconds(3)),
          new Step(a.with(Progress.of(ItemStatus.DONE)), List.of()), T0.plusSeconds(3));
      store.runEnded(run, T0.plusSeconds(4), "all_done");
      assertEquals(ItemStatus.DONE, store.items().get(0).status());
    }
    assertEquals("completed|phase_complete|0|3000", sql("SELECT state || '|' || result || '|' || exit_code || '|' "
        + "|| (ended_at - started_at) FROM jobs"));
    assertEquals("all_done", sql("SELECT halt_reason FROM runs"));
  }

  @Test
  void jobs_left_running_by_a_crash_are_marked_interrupted() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
      store.jobStarted(new JobStart(1, "A", "design", 1, T0, null));
      store.jobStarted(new JobStart(1, "A", "design", 2, T0, null));
      assertEquals(2, store.interruptRunningJobs(T0.plusSeconds(1)));
      assertEquals(0, store.interruptRunningJobs(T0.plusSeconds(2)));
    }
    assertEquals("interrupted,interrupted", sql("SELECT group_concat(state) FROM jobs"));
  }

  @Test
  void lifetime_counters_count_every_row_written_and_deleted() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A"), item("B"), item("C")), T0);
      long run = store.runStarted(T0, 1);
      store.jobStarted(new JobStart(run, "A", "design", 1, T0, dir.resolve("a.log")));
    }
    assertEquals("3", sql("SELECT rows_written FROM structures WHERE name = 'items'"));
    assertEquals("1", sql("SELECT rows_written FROM structures WHERE name = 'jobs'"));
    assertEquals(sql("SELECT COUNT(*) FROM events"), sql("SELECT rows_written FROM structures WHERE name = 'events'"));
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM events");
    }
    assertEquals(sql("SELECT rows_written FROM structures WHERE name = 'events'"),
        sql("SELECT rows_pruned FROM structures WHERE name = 'events'"));
  }

  private String sql(String query) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  @Test
  void apply_if_writes_the_unblock_only_while_the_item_is_still_blocked() {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A", InitialStatus.BLOCKED)), T0);
      ItemState blocked = store.item("A").orElseThrow();
      Step unblock = Transitions.unblock(blocked, "go");
      assertFalse(store.applyIf(unblock, ItemStatus.DONE, T0), "the stored status is not the expected one");
      assertEquals(ItemStatus.BLOCKED, store.item("A").orElseThrow().status());
      assertTrue(store.applyIf(unblock, ItemStatus.BLOCKED, T0));
      ItemState after = store.item("A").orElseThrow();
      assertEquals(ItemStatus.NEW, after.status());
      assertEquals("go", after.progress().unblockNotes());
      assertFalse(store.applyIf(unblock, ItemStatus.BLOCKED, T0), "a second unblock finds it no longer blocked");
      assertTrue(store.item("nope").isEmpty());
    }
  }

  @Test
  void recent_jobs_are_newest_first_within_the_limit_and_the_last_run_is_the_newest() {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      assertTrue(store.lastRun().isEmpty());
      assertEquals(List.of(), store.recentJobs(10));
      long run1 = store.runStarted(T0, 11);
      store.runEnded(run1, T0.plusSeconds(5), "all_done");
      long run2 = store.runStarted(T0.plusSeconds(10), 22);
      long first = store.jobStarted(new JobStart(run2, "A", "build", 1, T0.plusSeconds(11), dir.resolve("a.log")));
      store.jobEnded(first, new JobEnd(JobState.FAILED, "failed", 3, "boom", T0.plusSeconds(12)), null, T0);
      store.jobStarted(new JobStart(run2, "A", "build", 2, T0.plusSeconds(13), null));

      List<JobRecord> jobs = store.recentJobs(10);
      assertEquals(2, jobs.size());
      assertEquals(new JobRecord(first + 1, run2, "A", "build", 2, JobState.RUNNING, null, T0.plusSeconds(13), null,
          null, null, null), jobs.get(0));
      assertEquals(new JobRecord(first, run2, "A", "build", 1, JobState.FAILED, "failed", T0.plusSeconds(11),
          T0.plusSeconds(12), 3, dir.resolve("a.log"), "boom"), jobs.get(1));
      assertEquals(1, store.recentJobs(1).size());
      assertEquals(new RunRecord(run2, T0.plusSeconds(10), null, 22, null), store.lastRun().orElseThrow());
    }
  }

  private static List<FollowUpItem> followUps(String itemId, String phase, String... titles) {
    return FollowUpItem.of(itemId, phase,
        java.util.Arrays.stream(titles).map(t -> new FollowUp(t, "why: " + t)).toList(), "feature");
  }

  @Test
  void follow_ups_are_written_with_the_job_end_and_survive_reopening() throws Exception {
    List<ItemState> added;
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A"), item("B")), T0);
      long job = store.jobStarted(new JobStart(store.runStarted(T0, 1), "A", "build", 1, T0, null));
      ItemState a = store.items().get(0);
      added = store.jobEnded(job, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, T0),
          new Step(a.with(Progress.of(ItemStatus.DONE)), List.of()), followUps("A", "build", "Add retries", "Docs"),
          T0);
    }
    assertEquals(2, added.size());
    assertEquals(List.of(3L, 4L), added.stream().map(ItemState::seq).toList());
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      List<ItemState> items = store.items();
      assertEquals(List.of("A", "B", added.get(0).id(), added.get(1).id()), items.stream().map(ItemState::id).toList());
      assertEquals(ItemStatus.DONE, items.get(0).status());
      ItemState first = items.get(2);
      assertEquals("A/build", first.origin());
      assertEquals("Add retries", first.definition().title());
      assertEquals("why: Add retries", first.definition().description());
      assertEquals("feature", first.definition().pipeline());
      assertEquals(ItemStatus.NEW, first.status());
      assertTrue(first.inBacklog());
      assertEquals(null, items.get(0).origin(), "a backlog item has no origin");
    }
    assertEquals("completed", sql("SELECT state FROM jobs"));
    assertEquals("{\"status\":\"new\",\"origin\":\"A/build\"}",
        sql("SELECT payload FROM events WHERE kind = 'item.added' AND item_id = '" + added.get(0).id() + "'"));
  }

  @Test
  void a_job_end_that_fails_half_way_through_its_follow_ups_writes_nothing() throws Exception {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
    }
    // The disk "fills up" when the second follow-up is inserted: after the job, the step and the first one.
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.executeUpdate("""
          CREATE TRIGGER full_disk BEFORE INSERT ON items
          WHEN (SELECT count(*) FROM items WHERE origin IS NOT NULL) >= 1
          BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END""");
    }
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      long job = store.jobStarted(new JobStart(store.runStarted(T0, 1), "A", "build", 1, T0, null));
      Step done = new Step(store.items().get(0).with(Progress.of(ItemStatus.DONE)), List.of());
      assertThrows(StoreException.class, () -> store.jobEnded(job,
          new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, T0), done, followUps("A", "build", "X", "Y"), T0));
    }
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      assertEquals(List.of("A"), store.items().stream().map(ItemState::id).toList());
      assertEquals(ItemStatus.NEW, store.items().get(0).status());
    }
    assertEquals("running", sql("SELECT state FROM jobs"));
    assertEquals("0", sql("SELECT count(*) FROM events WHERE payload LIKE '%origin%'"));
  }

  @Test
  void a_follow_up_reported_again_is_not_added_twice() {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
      long run = store.runStarted(T0, 1);
      long first = store.jobStarted(new JobStart(run, "A", "build", 1, T0, null));
      assertEquals(1, store.jobEnded(first, new JobEnd(JobState.FAILED, "failed", 1, "boom", T0), null,
          followUps("A", "build", "Add retries"), T0).size());
      long second = store.jobStarted(new JobStart(run, "A", "build", 2, T0, null));
      assertEquals(List.of(), store.jobEnded(second, new JobEnd(JobState.FAILED, "failed", 1, "boom", T0), null,
          followUps("A", "build", "Add retries", "Add retries"), T0));
      assertEquals(2, store.items().size());
    }
  }

  @Test
  void sync_keeps_follow_up_items_and_a_backlog_entry_with_the_same_id_wins_but_keeps_the_origin() {
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
      long job = store.jobStarted(new JobStart(store.runStarted(T0, 1), "A", "build", 1, T0, null));
      String id = store.jobEnded(job, new JobEnd(JobState.FAILED, "failed", 1, "boom", T0), null,
          followUps("A", "build", "Add retries"), T0).get(0).id();

      SyncResult again = store.sync(List.of(item("A")), T0);
      assertEquals(List.of(), again.vanished());
      assertTrue(store.item(id).orElseThrow().inBacklog());

      SyncResult listed = store.sync(List.of(item("A"), item(id)), T0);
      assertEquals(List.of(), listed.added());
      ItemState followUp = store.item(id).orElseThrow();
      assertEquals("Title of " + id, followUp.definition().title(), "the file's definition wins");
      assertEquals("A/build", followUp.origin());

      assertEquals(List.of(), store.sync(List.of(item("A")), T0).vanished(), "dropped from the file again");
      assertTrue(store.item(id).orElseThrow().inBacklog());
    }
  }

  @Test
  void usage_rows_an_older_version_stored_wrapped_or_infinite_read_back_as_unknown_never_as_such_figures()
      throws Exception {
    long job;
    try (SqlStateRepository store = SqliteStores.repository(db())) {
      store.sync(List.of(item("A")), T0);
      long run = store.runStarted(T0, 1);
      job = store.jobStarted(new JobStart(run, "A", "build", 1, T0, null));
      store.jobEnded(job, new JobEnd(JobState.COMPLETED, "phase_complete", 0, null, T0), null, T0);
    }
    // What orchestrate before issue 27 left: a total that wrapped to -2, a cost summed to Infinity,
    // a figure beyond any job's ceiling.
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db()); Statement st = c.createStatement()) {
      st.execute("UPDATE jobs SET input_tokens = 9223372036854775807, output_tokens = -2, cache_read_tokens = 5, "
          + "cost_usd = 1e999 WHERE id = " + job);
      st.execute("UPDATE usage_totals SET input_tokens = -2, cost_usd = 1e999, output_tokens = 9223372036854775807");
    }
    try (SqlStateStore store = SqliteStores.open(db())) {
      dev.orchestrate.outcome.Usage perJob = store.repository().jobUsage(List.of(job)).get(job);
      assertEquals(new dev.orchestrate.outcome.Usage(null, null, 5L, null, null), perJob,
          "a job's figure above its ceiling, negative or infinite is unknown");
      dev.orchestrate.outcome.Usage lifetime = store.stats().spending().lifetime();
      assertEquals(null, lifetime.inputTokens());
      assertEquals(null, lifetime.costUsd());
      assertEquals(Long.MAX_VALUE, lifetime.outputTokens(), "a sum may be large, never negative or infinite");
    }
  }
}
