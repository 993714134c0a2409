package dev.orchestrate.item;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
