package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class PhaseSummaryMapTest {
  private final PhaseSummaryMap map = new PhaseSummaryMap();

  @Test
  void a_put_is_read_back_and_replaced_by_the_next_one() {
    map.put("A", "designed");
    map.put("A", "built");
    assertEquals(Optional.of("built"), map.get("A"));
    assertEquals(1, map.size());
    assertEquals(1, map.peak());
  }

  @Test
  void finished_removes_the_entry_and_the_peak_remembers_the_most_held() {
    map.put("A", "a");
    map.put("B", "b");
    map.finished("A");
    map.finished("B");
    map.finished("C"); // never inserted: nothing to do
    assertEquals(0, map.size());
    assertEquals(2, map.peak());
  }

  @Test
  void a_null_summary_is_not_an_entry() {
    map.put("A", null);
    assertEquals(0, map.size());
  }

  @Test
  void sweep_drops_the_entries_of_items_no_longer_active() {
    for (int i = 0; i < 1_000; i++) {
      map.put("I" + i, "s" + i);
    }
    Set<String> active = Set.of("I1", "I500", "I999");
    assertEquals(997, map.sweep(active::contains));
    assertEquals(3, map.size());
    assertEquals(1_000, map.peak());
    assertEquals(Optional.of("s500"), map.get("I500"));
  }

  @Test
  void restore_takes_the_persisted_summaries_of_active_listed_items_only() {
    ItemState active = new ItemState(item("A"), 1, true,
        new Progress(ItemStatus.IN_PROGRESS, "build", 0, null, null, null, "designed", null));
    ItemState unlisted = new ItemState(item("B"), 2, false,
        new Progress(ItemStatus.IN_PROGRESS, "build", 0, null, null, null, "old", null));
    ItemState done = new ItemState(item("C"), 3, true, Progress.of(ItemStatus.DONE));
    ItemState fresh = new ItemState(item("D"), 4, true, Progress.of(ItemStatus.NEW));
    map.restore(List.of(active, unlisted, done, fresh));
    assertEquals(1, map.size());
    assertEquals(Optional.of("designed"), map.get("A"));
    assertTrue(map.get("B").isEmpty());
  }

  @Test
  void a_spawn_after_a_sweep_falls_back_to_the_persisted_summary_and_puts_it_back() {
    ItemState relisted = new ItemState(item("A"), 1, true,
        new Progress(ItemStatus.IN_PROGRESS, "build", 0, null, null, null, "designed", null));
    map.put("A", "designed");
    map.sweep(id -> false); // A was not listed for a tick

    assertEquals(Optional.of("designed"), map.forSpawn(relisted));
    assertEquals(1, map.size());
    map.put("A", "built");
    assertEquals(Optional.of("built"), map.forSpawn(relisted), "the map's newer entry wins over the item read earlier");
  }

  @Test
  void a_debug_line_says_so_when_it_holds_more_than_100_entries_and_only_then() {
    Logger logger = (Logger) LoggerFactory.getLogger(PhaseSummaryMap.class);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    Level before = logger.getLevel();
    logger.addAppender(lines);
    logger.setLevel(Level.DEBUG);
    try {
      for (int i = 1; i <= 100; i++) {
        map.put("I" + i, "summary " + i);
      }
      assertEquals(List.of(), lines.list, "100 entries: nothing to say");
      map.put("I101", "summary 101");
      assertEquals(1, lines.list.size());
      assertEquals(Level.DEBUG, lines.list.get(0).getLevel());
      assertEquals("phase-summary map holds 101 entries (more than 100)", lines.list.get(0).getFormattedMessage());
    } finally {
      logger.detachAppender(lines);
      logger.setLevel(before);
    }
  }
}
