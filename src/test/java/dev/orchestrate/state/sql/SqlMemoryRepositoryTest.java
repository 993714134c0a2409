package dev.orchestrate.state.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.memory.MemoryCompaction;
import dev.orchestrate.memory.MemoryException;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.MemoryService;
import dev.orchestrate.memory.NewMemory;
import dev.orchestrate.memory.ProjectMemory;
import dev.orchestrate.state.StoreException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory store and its compaction against a real SQLite file. */
class SqlMemoryRepositoryTest {
  private static final Instant T = Instant.parse("2026-03-01T10:00:00Z");

  @TempDir
  Path dir;
  private Path db;

  @BeforeEach
  void setUp() {
    db = dir.resolve("state.db");
  }

  private static NewMemory memory(String id, MemoryKind kind, String... tags) {
    return new NewMemory(id, kind, null, "content of " + id, List.of(tags), null);
  }

  private static List<String> ids(List<MemoryItem> items) {
    return items.stream().map(MemoryItem::id).toList();
  }

  /** D=2 (one semantic, one procedural) + M=5 episodic, interleaved. */
  private void seedMatrix(SqlMemoryRepository repo) {
    repo.put(memory("e1", MemoryKind.EPISODIC), T);
    repo.put(memory("s1", MemoryKind.SEMANTIC), T);
    repo.put(memory("e2", MemoryKind.EPISODIC), T);
    repo.put(memory("e3", MemoryKind.EPISODIC), T);
    repo.put(memory("p1", MemoryKind.PROCEDURAL), T);
    repo.put(memory("e4", MemoryKind.EPISODIC), T);
    repo.put(memory("e5", MemoryKind.EPISODIC), T);
  }

  @Test
  void compact_with_k_2_deletes_3_and_keeps_both_load_bearing_items_and_the_2_newest_episodes() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      seedMatrix(repo);
      MemoryCompaction result = repo.compact(2, T);
      assertEquals(3, result.deleted());
      assertEquals(2, result.keptLoadBearing());
      assertEquals(2, result.keptRecent());
      assertEquals(List.of("s1", "p1", "e4", "e5"), ids(repo.listActive(null, null)));
    }
  }

  @Test
  void a_second_compaction_deletes_nothing_and_leaves_the_set_unchanged() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      seedMatrix(repo);
      repo.compact(2, T);
      List<String> after = ids(repo.listActive(null, null));
      assertEquals(0, repo.compact(2, T).deleted());
      assertEquals(after, ids(repo.listActive(null, null)));
    }
  }

  @Test
  void survivors_are_there_after_reopening_the_database() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      seedMatrix(repo);
      assertEquals(3, repo.compact(2, T).deleted());
    }
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      assertEquals(List.of("s1", "p1", "e4", "e5"), ids(repo.listActive(null, null)));
    }
  }

  @Test
  void k_0_deletes_every_episode_and_keeps_a_rejected_path_item_however_old() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.put(memory("rp", MemoryKind.EPISODIC, "rejected-path"), T);
      for (int i = 1; i <= 4; i++) {
        repo.put(memory("e" + i, MemoryKind.EPISODIC, "outcome"), T);
      }
      MemoryCompaction result = repo.compact(0, T);
      assertEquals(4, result.deleted());
      assertEquals(List.of("rp"), ids(repo.listActive(null, null)));
      assertEquals(Map.of("rejected-path", 1L), result.protectedBy());
    }
  }

  @Test
  void under_the_cap_nothing_is_deleted() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      for (int i = 1; i <= 3; i++) {
        repo.put(memory("e" + i, MemoryKind.EPISODIC), T);
      }
      assertEquals(0, repo.compact(10, T).deleted());
      assertEquals(3, repo.listActive(null, null).size());
    }
  }

  @Test
  void a_store_of_only_load_bearing_items_loses_nothing_even_with_k_0() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.put(memory("s1", MemoryKind.SEMANTIC), T);
      repo.put(memory("p1", MemoryKind.PROCEDURAL), T);
      repo.put(memory("r1", MemoryKind.EPISODIC, "rejected-path"), T);
      MemoryCompaction result = repo.compact(0, T);
      assertEquals(0, result.deleted());
      assertEquals(3, result.keptLoadBearing());
      assertEquals(Map.of("semantic", 1L, "procedural", 1L, "rejected-path", 1L), result.protectedBy());
    }
  }

  @Test
  void superseded_items_are_not_counted_as_prunable_and_are_not_deleted() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.put(memory("old", MemoryKind.EPISODIC), T);
      for (int i = 1; i <= 5; i++) {
        repo.put(memory("e" + i, MemoryKind.EPISODIC), T);
      }
      repo.supersede("old", "e5", T);
      MemoryCompaction result = repo.compact(2, T);
      assertEquals(3, result.deleted());
      assertEquals(1, result.superseded());
      assertEquals(List.of("e4", "e5"), ids(repo.listActive(null, null)));
      assertEquals("e5", repo.get("old").orElseThrow().supersededBy());
    }
  }

  @Test
  void a_dry_run_reports_what_would_go_and_changes_nothing() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      seedMatrix(repo);
      MemoryCompaction preview = repo.preview(2, 100);
      assertTrue(preview.dryRun());
      assertEquals(3, preview.deleted());
      assertEquals(List.of("e1", "e2", "e3"), preview.deletedIds());
      assertEquals(Map.of("semantic", 1L, "procedural", 1L), preview.protectedBy());
      assertEquals(7, repo.listActive(null, null).size());
      assertEquals(List.of("e1"), repo.preview(2, 1).deletedIds());
    }
  }

  @Test
  void put_is_an_idempotent_upsert_that_keeps_the_insertion_order() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.put(memory("a", MemoryKind.EPISODIC), T);
      repo.put(memory("b", MemoryKind.EPISODIC), T);
      repo.put(new NewMemory("a", MemoryKind.SEMANTIC, "t", "new content", List.of("x"), null), T);
      assertEquals(List.of("a", "b"), ids(repo.listActive(null, null)));
      MemoryItem a = repo.get("a").orElseThrow();
      assertEquals("new content", a.content());
      assertTrue(a.isLoadBearing());
      assertEquals(List.of("a"), ids(repo.activeLoadBearing()));
      MemoryItem generated = repo.put(new NewMemory(null, MemoryKind.EPISODIC, null, "c", List.of(), null), T);
      assertTrue(generated.id().startsWith("m-"), generated.id());
    }
  }

  @Test
  void list_filters_by_kind_and_tag() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.put(memory("a", MemoryKind.EPISODIC, "db"), T);
      repo.put(memory("b", MemoryKind.SEMANTIC, "db", "api"), T);
      repo.put(memory("c", MemoryKind.SEMANTIC), T);
      assertEquals(List.of("b", "c"), ids(repo.listActive(MemoryKind.SEMANTIC, null)));
      assertEquals(List.of("a", "b"), ids(repo.listActive(null, "db")));
      assertEquals(List.of("b"), ids(repo.listActive(MemoryKind.SEMANTIC, "db")));
    }
  }

  @Test
  void supersede_needs_both_ids_to_exist_and_hides_the_old_item() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.put(memory("a", MemoryKind.SEMANTIC), T);
      repo.put(memory("b", MemoryKind.SEMANTIC), T);
      assertThrows(MemoryException.class, () -> repo.supersede("a", "nope", T));
      assertThrows(MemoryException.class, () -> repo.supersede("nope", "a", T));
      assertThrows(MemoryException.class, () -> repo.supersede("a", "a", T));
      assertNull(repo.get("a").orElseThrow().supersededBy());
      repo.supersede("a", "b", T);
      assertEquals(List.of("b"), ids(repo.listActive(null, null)));
      assertEquals(List.of("b"), ids(repo.activeLoadBearing()));
    }
  }

  @Test
  void outcome_memories_are_recorded_once_per_item_and_outcome_and_done_supersedes_blocked() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      MemoryService service = new MemoryService(repo, Clock.fixed(T, ZoneOffset.UTC), 20_000);
      service.itemFinished("WRK-1", "Title", ProjectMemory.FinalStatus.BLOCKED, "needs a key");
      service.itemFinished("WRK-1", "Title", ProjectMemory.FinalStatus.BLOCKED, "needs a key, again");
      assertEquals(List.of("outcome:WRK-1:blocked"), ids(repo.listActive(null, null)));
      assertEquals("Title — needs a key, again", repo.get("outcome:WRK-1:blocked").orElseThrow().content());
      service.itemFinished("WRK-1", "Title", ProjectMemory.FinalStatus.DONE, "shipped");
      service.itemFinished("WRK-1", "Title", ProjectMemory.FinalStatus.DONE, "shipped");
      assertEquals(List.of("outcome:WRK-1:done"), ids(repo.listActive(null, null)));
      assertEquals("outcome:WRK-1:done", repo.get("outcome:WRK-1:blocked").orElseThrow().supersededBy());
      assertEquals("WRK-1", repo.get("outcome:WRK-1:done").orElseThrow().sourceItem());
      assertTrue(service.bootContext().contains("WRK-1 done: Title — shipped"), service.bootContext());
    }
  }

  @Test
  void content_is_capped_at_write_time() {
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.put(new NewMemory("big", MemoryKind.EPISODIC, null, "x".repeat(50_000), List.of(), null).capped(), T);
      String content = repo.get("big").orElseThrow().content();
      assertTrue(content.length() <= 8000 && content.contains("…[truncated "), content.length() + "");
    }
  }

  @Test
  void import_writes_every_record_in_order_across_several_transactions() {
    int n = SqlMemoryRepository.IMPORT_BATCH + 10;
    List<NewMemory> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(
          new NewMemory(i % 1000 == 0 ? "fixed-" + i : null, MemoryKind.EPISODIC, null, "line " + i, List.of(), null));
    }
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      assertEquals(n, repo.importAll(all.iterator(), T));
      List<MemoryItem> listed = repo.listActive(null, null);
      assertEquals(n, listed.size());
      assertEquals("line 0", listed.get(0).content());
      assertEquals("line " + (n - 1), listed.get(n - 1).content());
      assertEquals(n, listed.stream().map(MemoryItem::id).distinct().count());
    }
  }

  /**
   * Thousands of lines, one in seven load-bearing, one in ten with an id given: with
   * {@code repeated}, 30 ids given again and again (a row inserted and updated in one batch).
   */
  private static List<NewMemory> mixedImport(int n, String prefix, boolean repeated) {
    List<NewMemory> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = i % 10 == 0 ? prefix + "fixed-" + (repeated ? i % 300 : i) : null;
      MemoryKind kind = i % 7 == 0 ? MemoryKind.SEMANTIC : MemoryKind.EPISODIC;
      all.add(new NewMemory(id, kind, null, "line " + i, List.of(), null));
    }
    return all;
  }

  private static void assertCountsMatchTheRows(Jdbc jdbc) {
    assertEquals(jdbc.queryLong("SELECT COUNT(*) FROM memories"),
        jdbc.queryLong("SELECT rows_written - rows_pruned FROM structures WHERE name = 'memory'"), "rows");
    assertEquals(jdbc.queryLong("SELECT COUNT(*) FROM memories WHERE load_bearing = 1 OR superseded_by IS NOT NULL"),
        jdbc.queryLong("SELECT kept_rows FROM structures WHERE name = 'memory'"), "kept rows");
  }

  private static List<String> memoryTriggers(Jdbc jdbc) {
    return jdbc.query("SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'memories'"
        + " ORDER BY name", rs -> rs.getString(1));
  }

  @Test
  void an_import_of_thousands_of_lines_counts_its_rows_exactly_and_puts_the_triggers_back() {
    try (SqlStateStore store = SqliteStores.open(db, dev.orchestrate.state.StateStore.Mode.MAINTENANCE)) {
      List<String> triggers = memoryTriggers(store.jdbc());
      SqlMemoryRepository repo = new SqlMemoryRepository(store.jdbc(), false);
      repo.put(memory("a-fixed-30", MemoryKind.SEMANTIC), T); // imported again below, as episodic
      assertTrue(SqlMemoryRepository.COUNTED_ONCE <= 3000);
      repo.importAll(mixedImport(5000, "n-", false).iterator(), T); // new rows only: counted once
      assertCountsMatchTheRows(store.jdbc());
      assertEquals(triggers, memoryTriggers(store.jdbc()), "the triggers are back as they were");
      List<NewMemory> guessedWrong = new ArrayList<>(mixedImport(1000, "late-", false)); // new ids first,
      guessedWrong.addAll(mixedImport(2000, "n-", false)); // then 200 stored ones: written again with the triggers
      repo.importAll(guessedWrong.iterator(), T);
      assertCountsMatchTheRows(store.jdbc());
      assertEquals(1 + 5000 + 1000 + 1800, store.jdbc().queryLong("SELECT COUNT(*) FROM memories"));
      assertEquals(triggers, memoryTriggers(store.jdbc()));
      repo.importAll(mixedImport(5000, "a-", true).iterator(), T); // ids again: counted by the triggers
      assertCountsMatchTheRows(store.jdbc());
      repo.importAll(mixedImport(3000, "a-", true).iterator(), T);
      assertCountsMatchTheRows(store.jdbc());
      assertEquals(1 + 5000 + 1000 + 1800 + 4500 + 29 + 2700, store.jdbc().queryLong("SELECT COUNT(*) FROM memories"));
      repo.compact(10, T);
      assertCountsMatchTheRows(store.jdbc());
      assertEquals(triggers, memoryTriggers(store.jdbc()), "the triggers are back as they were");
    }
  }

  @Test
  void an_import_that_fails_mid_batch_leaves_the_counts_and_the_triggers_as_they_were() {
    try (SqlStateStore store = SqliteStores.open(db, dev.orchestrate.state.StateStore.Mode.MAINTENANCE)) {
      Jdbc jdbc = store.jdbc();
      SqlMemoryRepository repo = new SqlMemoryRepository(jdbc, false);
      repo.importAll(mixedImport(2000, "a-", false).iterator(), T);
      List<String> triggers = memoryTriggers(jdbc);
      jdbc.execute("CREATE TRIGGER boom BEFORE INSERT ON memories WHEN NEW.content = 'line 2500'"
          + " BEGIN SELECT RAISE(ABORT, 'boom'); END");
      assertThrows(StoreException.class, () -> repo.importAll(mixedImport(4000, "b-", false).iterator(), T));
      jdbc.execute("DROP TRIGGER boom");
      assertEquals(triggers, memoryTriggers(jdbc), "the dropped triggers came back with the rollback");
      assertEquals(2000, jdbc.queryLong("SELECT COUNT(*) FROM memories"));
      assertCountsMatchTheRows(jdbc);
      repo.put(memory("after", MemoryKind.SEMANTIC), T); // counted by the triggers again
      assertCountsMatchTheRows(jdbc);
      assertEquals(2001, jdbc.queryLong("SELECT rows_written FROM structures WHERE name = 'memory'"));
    }
  }

  /**
   * The compaction rule written plainly (docs/how-it-works.md): among active items that are not
   * load-bearing, the ids of all but the K most recent by insertion order, oldest first.
   */
  private static List<String> ruleDeletes(List<MemoryItem> items, int keepRecent) {
    List<MemoryItem> prunable = new ArrayList<>();
    for (MemoryItem item : items) {
      if (item.active() && !item.isLoadBearing()) {
        prunable.add(item);
      }
    }
    prunable.sort(Comparator.comparingLong(MemoryItem::seq));
    return prunable.subList(0, Math.max(0, prunable.size() - keepRecent)).stream().map(MemoryItem::id).toList();
  }

  /** The SQL compaction agrees with the rule on thousands of items of every kind, some superseded. */
  @Test
  void compaction_at_scale_matches_the_rule_exactly() {
    Random random = new Random(42);
    List<NewMemory> all = new ArrayList<>();
    for (int i = 0; i < 6000; i++) {
      int r = random.nextInt(100);
      MemoryKind kind = r < 5 ? MemoryKind.SEMANTIC : r < 8 ? MemoryKind.PROCEDURAL : MemoryKind.EPISODIC;
      List<String> tags = r >= 8 && r < 10 ? List.of("rejected-path") : r < 50 ? List.of("outcome") : List.of();
      all.add(new NewMemory("id" + i, kind, null, "c" + i, tags, null));
    }
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.importAll(all.iterator(), T);
      for (int i = 0; i < 6000; i += 97) {
        repo.supersede("id" + i, "id" + (i + 1), T);
      }
      for (int k : new int[] {1000, 50, 0}) {
        List<MemoryItem> before = new ArrayList<>(repo.listActive(null, null));
        List<String> expectedGone = ruleDeletes(before, k);
        MemoryCompaction result = repo.compact(k, T);
        assertEquals(expectedGone.size(), result.deleted(), "k=" + k);
        List<String> survivors = ids(repo.listActive(null, null));
        List<String> expected = ids(before).stream().filter(id -> !expectedGone.contains(id)).toList();
        assertEquals(expected, survivors, "k=" + k);
        long prunableLeft = repo.listActive(null, null).stream().filter(m -> !m.isLoadBearing()).count();
        assertTrue(prunableLeft <= k);
        assertFalse(survivors.isEmpty());
      }
    }
  }

  @Test
  void the_benchmark_script_runs_the_same_delete_as_compaction() throws Exception {
    String script = java.nio.file.Files.readString(Path.of("src/bench/compact.sh"));
    assertTrue(script.contains("delete=\"" + SqlMemoryRepository.deleteStatement(50) + "\""),
        "src/bench/compact.sh must run " + SqlMemoryRepository.deleteStatement(50));
  }

  @Test
  void a_large_compaction_rebuilds_the_indexes_exactly_as_the_schema_defines_them() throws Exception {
    int n = SqlMemoryRepository.BULK_MIN_ROWS + 5000;
    List<NewMemory> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(new NewMemory(i == 7 ? "fact" : null, i == 7 ? MemoryKind.SEMANTIC : MemoryKind.EPISODIC, null,
          "c" + i, List.of(), null));
    }
    List<String> schemaBefore;
    try (SqlStateStore store = SqliteStores.open(db)) {
      schemaBefore = store.jdbc().query(
          "SELECT name || ': ' || sql FROM sqlite_master WHERE tbl_name = 'memories' ORDER BY name",
          rs -> rs.getString(1));
    }
    try (SqlMemoryRepository repo = SqliteStores.memory(db)) {
      repo.importAll(all.iterator(), T);
      MemoryCompaction result = repo.compact(10, T);
      assertEquals(n - 11, result.deleted());
      assertEquals(11, repo.listActive(null, null).size());
      assertEquals("fact", repo.listActive(null, null).get(0).id());
      repo.put(new NewMemory("fact", MemoryKind.SEMANTIC, null, "updated", List.of(), null), T);
      assertEquals("updated", repo.get("fact").orElseThrow().content());
    }
    try (SqlStateStore store = SqliteStores.open(db)) {
      Jdbc jdbc = store.jdbc();
      assertEquals(schemaBefore, jdbc.query(
          "SELECT name || ': ' || sql FROM sqlite_master WHERE tbl_name = 'memories' ORDER BY name",
          rs -> rs.getString(1)));
      assertThrows(StoreException.class, () -> jdbc.execute("INSERT INTO memories (seq, id, kind, content, created_at, "
          + "load_bearing) VALUES (999999, 'fact', 'semantic', 'dup', 0, 1)"), "the rebuilt unique index on id holds");
    }
  }
}
