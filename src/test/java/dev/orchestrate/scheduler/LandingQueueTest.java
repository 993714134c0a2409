package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The merge queue as the selection index keeps it: landing items by priority, then by the turn they
 * took as they became landing; an item leaves when it stops landing, and a dependent of a landing
 * item waits until it is done (landed), not before.
 */
class LandingQueueTest {
  private static ItemState item(String id, Priority priority, ItemStatus status, long seq, String... dependsOn) {
    Progress progress = status.isRunningPhases() ? new Progress(status, "build", 0, null, null, null, null, null)
        : Progress.of(status);
    return new ItemState(new BacklogItem(id, id, "feature", priority, List.of(dependsOn), List.of(), "",
        InitialStatus.NEW), seq, true, progress);
  }

  private static List<String> ids(List<ItemState> items) {
    return items.stream().map(ItemState::id).toList();
  }

  @Test
  void the_queue_is_priority_then_readiness_and_an_item_leaves_it_when_it_stops_landing() {
    SelectionIndex index = new SelectionIndex();
    index.put("A", item("A", Priority.MEDIUM, ItemStatus.IN_PROGRESS, 1));
    index.put("B", item("B", Priority.LOW, ItemStatus.IN_PROGRESS, 2));
    index.put("C", item("C", Priority.MEDIUM, ItemStatus.IN_PROGRESS, 3));
    index.put("D", item("D", Priority.HIGH, ItemStatus.IN_PROGRESS, 4));
    index.put("C", item("C", Priority.MEDIUM, ItemStatus.LANDING, 3)); // ready first
    index.put("B", item("B", Priority.LOW, ItemStatus.LANDING, 2));
    index.put("A", item("A", Priority.MEDIUM, ItemStatus.LANDING, 1));
    index.put("D", item("D", Priority.HIGH, ItemStatus.LANDING, 4)); // ready last, high priority
    assertEquals(List.of("D", "C", "A", "B"), ids(index.landingQueue()));

    index.put("C", item("C", Priority.MEDIUM, ItemStatus.IN_PROGRESS, 3)); // red: back to its phase
    index.put("D", item("D", Priority.HIGH, ItemStatus.DONE, 4)); // landed
    assertEquals(List.of("A", "B"), ids(index.landingQueue()));
    index.put("C", item("C", Priority.MEDIUM, ItemStatus.LANDING, 3)); // fixed: a new turn, after A
    assertEquals(List.of("A", "C", "B"), ids(index.landingQueue()));
    index.put("B", item("B", Priority.HIGH, ItemStatus.LANDING, 2)); // its priority edited meanwhile
    assertEquals(List.of("B", "A", "C"), ids(index.landingQueue()));
    index.remove("A");
    assertEquals(List.of("B", "C"), ids(index.landingQueue()));
  }

  @Test
  void a_dependent_waits_while_its_dependency_is_landing_and_is_released_once_it_is_done() {
    SelectionIndex index = new SelectionIndex();
    index.put("A", item("A", Priority.MEDIUM, ItemStatus.LANDING, 1));
    index.put("B", item("B", Priority.MEDIUM, ItemStatus.READY, 2, "A"));
    assertEquals(List.of("A (landing)"), Dependencies.unmet(index.get("B"), index), "landing is not done");
    index.put("A", item("A", Priority.MEDIUM, ItemStatus.DONE, 1));
    assertTrue(Dependencies.unmet(index.get("B"), index).isEmpty());
  }

  @Test
  void ten_thousand_items_through_the_queue_leave_it_empty_and_a_load_queues_in_backlog_order() {
    SelectionIndex index = new SelectionIndex();
    Random random = new Random(7);
    int n = 10_000;
    Priority[] priorities = Priority.values();
    List<ItemState> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ItemState item = item("I" + i, priorities[random.nextInt(3)], ItemStatus.IN_PROGRESS, i);
      index.put(item.id(), item);
      all.add(item);
    }
    for (ItemState item : all) {
      index.put(item.id(), item(item.id(), item.definition().priority(), ItemStatus.LANDING, item.seq()));
    }
    List<ItemState> queue = index.landingQueue();
    assertEquals(n, queue.size());
    for (int i = 1; i < n; i++) {
      ItemState a = queue.get(i - 1);
      ItemState b = queue.get(i);
      assertTrue(a.definition().priority().compareTo(b.definition().priority()) < 0
          || (a.definition().priority() == b.definition().priority() && a.seq() < b.seq()),
          a.id() + " before " + b.id());
    }
    for (ItemState item : queue) {
      index.put(item.id(), item(item.id(), item.definition().priority(), ItemStatus.DONE, item.seq()));
    }
    assertEquals(List.of(), index.landingQueue(), "every landed item left the queue");

    SelectionIndex loaded = new SelectionIndex();
    loaded.load(List.of(item("X", Priority.LOW, ItemStatus.LANDING, 1), item("Y", Priority.LOW, ItemStatus.LANDING, 2),
        item("Z", Priority.HIGH, ItemStatus.DONE, 3)));
    assertEquals(List.of("X", "Y"), ids(loaded.landingQueue()));
  }
}
