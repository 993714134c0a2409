package dev.orchestrate.item;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.outcome.AgentOutcome.FollowUp;
import java.util.List;
import org.junit.jupiter.api.Test;

class FollowUpItemTest {

  @Test
  void the_id_is_the_item_id_and_the_first_8_hex_digits_of_the_sha256_of_the_title() {
    String sha256 = "7a9f1189"; // echo -n 'Add retries' | sha256sum
    List<FollowUpItem> items = FollowUpItem.of("WRK-1", "build", List.of(new FollowUp("Add retries", "d")), "feature");
    assertEquals("WRK-1-fu-" + sha256, items.get(0).id());
    assertEquals(items.get(0).id(), FollowUpItem.of("WRK-1", "review", List.of(new FollowUp("Add retries", "other")),
        "feature").get(0).id(), "neither the phase nor the description changes the id");
  }

  @Test
  void a_follow_up_is_a_new_medium_item_of_the_given_pipeline_without_dependencies() {
    FollowUpItem item = FollowUpItem.of("A", "build", List.of(new FollowUp("T", "why")), "feature").get(0);
    assertEquals("A/build", item.origin());
    assertEquals("T", item.definition().title());
    assertEquals("why", item.definition().description());
    assertEquals("feature", item.definition().pipeline());
    assertEquals(Priority.MEDIUM, item.definition().priority());
    assertEquals(List.of(), item.definition().dependsOn());
    assertEquals(InitialStatus.NEW, item.definition().initialStatus());
  }

  @Test
  void the_same_title_twice_in_one_report_makes_one_item() {
    assertEquals(1, FollowUpItem.of("A", "build",
        List.of(new FollowUp("T", "first"), new FollowUp("T", "second")), "feature").size());
  }

  @Test
  void title_and_description_are_capped() {
    FollowUpItem item = FollowUpItem.of("A", "build",
        List.of(new FollowUp("t".repeat(1_000), "d".repeat(20_000))), "feature").get(0);
    assertTrue(item.definition().title().length() <= FollowUpItem.TITLE_MAX_CHARS);
    assertTrue(item.definition().description().length() <= FollowUpItem.DESCRIPTION_MAX_CHARS);
    assertTrue(item.definition().description().length() > FollowUpItem.DESCRIPTION_MAX_CHARS - 10);
    assertTrue(item.definition().title().contains("…[truncated"), item.definition().title());
  }

  @Test
  void follow_ups_of_follow_ups_keep_ids_within_the_limit_and_distinct_per_item() {
    String id = "A".repeat(dev.orchestrate.backlog.BacklogItem.MAX_ID_CHARS);
    for (int generation = 0; generation < 20; generation++) {
      String next = FollowUpItem.of(id, "build", List.of(new FollowUp("Add retries", "d")), "feature").get(0).id();
      assertTrue(next.length() <= dev.orchestrate.backlog.BacklogItem.MAX_ID_CHARS, next);
      assertTrue(!next.equals(id), "each generation names a new item");
      assertEquals(next, FollowUpItem.of(id, "review", List.of(new FollowUp("Add retries", "x")), "feature")
          .get(0).id(), "the same item and title give the same id");
      id = next;
    }
    String other = "A".repeat(dev.orchestrate.backlog.BacklogItem.MAX_ID_CHARS - 1) + "B";
    assertTrue(!FollowUpItem.of(other, "build", List.of(new FollowUp("Add retries", "d")), "feature").get(0).id()
        .equals(FollowUpItem.of("A".repeat(dev.orchestrate.backlog.BacklogItem.MAX_ID_CHARS), "build",
            List.of(new FollowUp("Add retries", "d")), "feature").get(0).id()),
        "items sharing a prefix differ");
  }
}
