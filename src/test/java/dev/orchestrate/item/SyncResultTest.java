package dev.orchestrate.item;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import org.junit.jupiter.api.Test;

class SyncResultTest {
  @Test
  void the_latest_word_on_each_item_wins_when_results_are_chained() {
    SyncResult start = new SyncResult(List.of("A", "B"), List.of("OLD"), List.of());
    SyncResult session = start
        .then(new SyncResult(List.of("N"), List.of("B"), List.of()))
        .then(new SyncResult(List.of(), List.of(), List.of("OLD")));

    assertEquals(List.of("A", "N"), session.added());
    assertEquals(List.of("B"), session.vanished());
    assertEquals(List.of("OLD"), session.returned());
  }

  @Test
  void chaining_nothing_changes_nothing() {
    SyncResult start = new SyncResult(List.of("A"), List.of("V"), List.of("R"));
    assertEquals(start, start.then(SyncResult.NONE));
  }

  @Test
  void a_tick_with_nothing_synced_keeps_a_million_item_result_as_it_is_without_a_copy() {
    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; i < 1_000_000; i++) {
      ids.add("I" + i);
    }
    SyncResult first = new SyncResult(ids, List.of(), List.of());
    SyncResult session = first;
    for (int tick = 0; tick < 10_000; tick++) {
      session = session.then(SyncResult.NONE); // what every tick of a run does
    }
    assertSame(first, session);
    // An edit then costs one pass over both, and an id re-added is listed once, last.
    SyncResult edited = session.then(new SyncResult(List.of("I0", "NEW"), List.of("I1"), List.of()));
    assertEquals(999_999 + 1, edited.added().size());
    assertEquals(List.of("I0", "NEW"), edited.added().subList(edited.added().size() - 2, edited.added().size()));
    assertEquals(List.of("I1"), edited.vanished());
  }
}
