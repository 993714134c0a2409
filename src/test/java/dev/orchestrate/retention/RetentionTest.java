package dev.orchestrate.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.retention.RetentionStore.Condenser;
import dev.orchestrate.retention.RetentionStore.OrphanSweep;
import dev.orchestrate.retention.RetentionStore.Row;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The retention policy as pure decisions, over an in-memory store: no SQL, no clock but the one given. */
class RetentionTest {
  private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");

  /** Rows per structure by id, a cursor each, and a record of every delete batch. */
  private static final class InMemoryRetention implements RetentionStore {
    final Map<StructureName, TreeMap<Long, Row>> rows = new EnumMap<>(StructureName.class);
    final Map<StructureName, Long> cursors = new EnumMap<>(StructureName.class);
    final List<Integer> batches = new ArrayList<>();
    int scans;

    InMemoryRetention() {
      StructureName.RETAINED.forEach(s -> rows.put(s, new TreeMap<>()));
    }

    void add(StructureName s, int n, long at, boolean prunable, String condensable) {
      TreeMap<Long, Row> table = rows.get(s);
      for (int i = 0; i < n; i++) {
        long id = table.isEmpty() ? 1 : table.lastKey() + 1;
        table.put(id, new Row(id, at, prunable, condensable));
      }
    }

    @Override
    public void recordPolicies(RetentionConfig config, int memoryKeepRecent) {
    }

    @Override
    public void markPruned(StructureName structure, Instant now) {
    }

    @Override
    public long prunableRows(StructureName structure) {
      return rows.get(structure).size();
    }

    @Override
    public long cursor(StructureName structure) {
      return cursors.getOrDefault(structure, 0L);
    }

    @Override
    public void resetCursors() {
      cursors.clear();
    }

    @Override
    public List<Row> scan(StructureName structure, long afterId, int limit) {
      scans++;
      return rows.get(structure).tailMap(afterId, false).values().stream().limit(limit).toList();
    }

    @Override
    public int delete(StructureName structure, List<Long> ids, long nextCursor, Instant now) {
      int n = 0;
      for (long id : ids) {
        n += rows.get(structure).remove(id) != null ? 1 : 0;
      }
      cursors.put(structure, nextCursor);
      batches.add(n);
      return n;
    }

    @Override
    public OrphanSweep sweepOrphanJobDirectories(boolean dryRun) {
      return OrphanSweep.NONE;
    }
  }

  private static RetentionConfig only(StructureName structure, Policy policy, int budget) {
    Policy none = Policy.NONE;
    return new RetentionConfig(Duration.ofMinutes(1), budget, structure == StructureName.JOBS ? policy : none,
        structure == StructureName.TURNS ? policy : none, structure == StructureName.EVENTS ? policy : none,
        structure == StructureName.STATS_SAMPLES ? policy : none);
  }

  @Test
  void a_pass_deletes_at_most_its_budget_oldest_first_and_saves_where_it_stopped() {
    InMemoryRetention store = new InMemoryRetention();
    store.add(StructureName.EVENTS, 1_000, NOW.toEpochMilli(), true, null);
    RetentionPass pass = new Retention(store).pass(only(StructureName.EVENTS, Policy.of(100, null), 50), 50, NOW,
        Condenser.NONE);

    assertEquals(50, pass.deleted(StructureName.EVENTS));
    assertEquals(51, store.rows.get(StructureName.EVENTS).firstKey(), "the 50 oldest went");
    assertEquals(50, store.cursor(StructureName.EVENTS), "the next pass starts after the last row it deleted");
    assertTrue(pass.unfinished().contains(StructureName.EVENTS));
  }

  @Test
  void rows_the_store_marks_unprunable_are_never_deleted_however_far_beyond_the_policy() {
    InMemoryRetention store = new InMemoryRetention();
    store.add(StructureName.JOBS, 500, 0, false, null); // running
    store.add(StructureName.JOBS, 500, 0, true, null);
    new Retention(store).full(only(StructureName.JOBS, Policy.of(0, null), 100), 50, NOW, Condenser.NONE, n -> {});

    assertEquals(500, store.rows.get(StructureName.JOBS).size());
    assertTrue(store.rows.get(StructureName.JOBS).values().stream().noneMatch(Row::prunable));
  }

  @Test
  void an_age_policy_deletes_only_rows_older_than_its_cut_off_and_stops_at_the_first_it_keeps() {
    InMemoryRetention store = new InMemoryRetention();
    store.add(StructureName.STATS_SAMPLES, 30, NOW.minus(Duration.ofDays(10)).toEpochMilli(), true, null);
    store.add(StructureName.STATS_SAMPLES, 20, NOW.minus(Duration.ofHours(1)).toEpochMilli(), true, null);
    RetentionPass pass = new Retention(store).pass(
        only(StructureName.STATS_SAMPLES, Policy.of(null, Duration.ofDays(1)), 1_000), 50, NOW, Condenser.NONE);

    assertEquals(30, pass.deleted(StructureName.STATS_SAMPLES));
    assertEquals(20, store.rows.get(StructureName.STATS_SAMPLES).size());
    assertEquals(0, store.cursor(StructureName.STATS_SAMPLES), "it met a row the policy keeps: start over next time");
    assertTrue(pass.finished());
  }

  @Test
  void a_finished_items_uncovered_turns_are_condensed_once_before_anything_of_theirs_is_deleted() {
    InMemoryRetention store = new InMemoryRetention();
    store.add(StructureName.TURNS, 10, 0, false, "A"); // done item, not covered by its summary
    store.add(StructureName.TURNS, 10, 0, false, null); // active item: the sliding window keeps them
    Set<String> condensed = new HashSet<>();
    Condenser condenser = item -> {
      assertTrue(condensed.add(item), "condensed once per pass");
      store.rows.get(StructureName.TURNS).values().removeIf(r -> item.equals(r.condensable()));
      return 10;
    };
    RetentionPass pass = new Retention(store).pass(only(StructureName.TURNS, Policy.of(0, null), 100), 50, NOW,
        condenser);

    assertEquals(Set.of("A"), condensed);
    assertEquals(10, pass.deleted(StructureName.TURNS), "the condensed turns count as deleted");
    assertEquals(10, store.rows.get(StructureName.TURNS).size(), "the active item's turns stay");
  }

  @Test
  void a_failed_condensing_deletes_nothing_of_that_item() {
    InMemoryRetention store = new InMemoryRetention();
    store.add(StructureName.TURNS, 10, 0, false, "A");
    RetentionPass pass = new Retention(store).pass(only(StructureName.TURNS, Policy.of(0, null), 100), 50, NOW,
        item -> 0);

    assertEquals(0, pass.deleted(StructureName.TURNS));
    assertEquals(10, store.rows.get(StructureName.TURNS).size());
  }

  @Test
  void a_pass_steps_aside_after_one_unit_when_the_scheduler_waits_and_resume_finishes_it() {
    InMemoryRetention store = new InMemoryRetention();
    StructureName.RETAINED.forEach(s -> store.add(s, 10, 0, true, null));
    RetentionConfig config = new RetentionConfig(Duration.ofMinutes(1), 100, Policy.of(0, null), Policy.NONE,
        Policy.of(0, null), Policy.of(0, null));
    Retention retention = new Retention(store);
    RetentionPass pass = retention.pass(config, 50, NOW, Condenser.NONE, () -> true);

    assertTrue(pass.stepped());
    assertEquals(List.of(StructureName.TURNS, StructureName.EVENTS, StructureName.STATS_SAMPLES), pass.left());
    assertEquals(10, pass.deleted(StructureName.JOBS));

    pass = retention.resume(pass, config, NOW, Condenser.NONE, () -> false);
    assertFalse(pass.stepped());
    assertEquals(10, pass.deleted(StructureName.JOBS), "the whole pass is counted");
    assertEquals(10, pass.deleted(StructureName.EVENTS), "then the structures it had left, each within its budget");
  }

  @Test
  void a_full_compact_of_100000_rows_with_a_budget_of_500_reaches_the_policy_in_bounded_batches() {
    InMemoryRetention store = new InMemoryRetention();
    store.add(StructureName.EVENTS, 100_000, 0, true, null);
    RetentionPass pass = new Retention(store).full(only(StructureName.EVENTS, Policy.of(10_000, null), 500), 50, NOW,
        Condenser.NONE, n -> {});

    // max_rows 10,000 keeps its target: 60 %.
    assertEquals(6_000, store.rows.get(StructureName.EVENTS).size());
    assertEquals(94_000, pass.deleted(StructureName.EVENTS));
    assertTrue(store.batches.stream().allMatch(n -> n <= 500), "no batch deletes more than the budget");
    assertTrue(pass.finished());
  }
}
