package dev.orchestrate.yaml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.backlog.BacklogLoader;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DidYouMeanTest {
  private static final List<String> ITEM_FIELDS = BacklogLoader.ITEM_KEYS;

  @Test
  void suggests_the_closest_key_for_a_typo_a_transposition_or_a_shortening() {
    assertEquals(Optional.of("depends_on"), DidYouMean.closest("depends", ITEM_FIELDS));
    assertEquals(Optional.of("tags"), DidYouMean.closest("tag", ITEM_FIELDS));
    assertEquals(Optional.of("title"), DidYouMean.closest("tilte", ITEM_FIELDS));
    assertEquals(Optional.of("description"), DidYouMean.closest("desc", ITEM_FIELDS));
    assertEquals(Optional.of("priority"), DidYouMean.closest("Priority", ITEM_FIELDS));
  }

  @Test
  void suggests_nothing_when_no_key_is_close() {
    assertEquals(Optional.empty(), DidYouMean.closest("owner", ITEM_FIELDS));
    assertEquals(Optional.empty(), DidYouMean.closest("x", ITEM_FIELDS));
    assertEquals(Optional.empty(), DidYouMean.closest("deps", ITEM_FIELDS));
  }

  @Test
  void counts_an_adjacent_transposition_as_one_edit() {
    assertEquals(1, DidYouMean.distance("tilte", "title"));
    assertEquals(3, DidYouMean.distance("depends", "depends_on"));
  }

  @Test
  void a_key_of_a_megabyte_is_compared_without_a_table_of_its_length_times_the_candidate() {
    // The full table would be 16 million ints per candidate.
    assertEquals(java.util.Optional.empty(), DidYouMean.closest("x".repeat(1_000_000), java.util.List.of("depends_on",
        "title")));
    assertEquals(java.util.Optional.of("depends_on"), DidYouMean.closest("depends_on" + "x".repeat(1_000_000),
        java.util.List.of("depends_on", "title")));
  }
}
