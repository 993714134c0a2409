package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.scheduler.JobTable.State;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class JobTableTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  private final JobTable<String> table = new JobTable<>();
  private long nextId = 1;

  private long start() {
    long id = nextId++;
    table.started(id, "I" + id, "build", 1, T0.plusSeconds(id), "handle-" + id);
    return id;
  }

  private long finished(State state) {
    long id = start();
    table.ended(id, state);
    return id;
  }

  private List<Long> ids() {
    return table.all().stream().map(JobTable.Entry::jobId).toList();
  }

  @Test
  void three_jobs_are_all_kept() {
    long a = finished(State.COMPLETED);
    long b = finished(State.FAILED);
    long c = start();
    assertEquals(0, table.cleanUp());
    assertEquals(List.of(a, b, c), ids());
  }

  @Test
  void of_five_finished_jobs_the_three_most_recently_started_are_kept() {
    for (int i = 0; i < 5; i++) {
      finished(i % 2 == 0 ? State.COMPLETED : State.CANCELLED);
    }
    assertEquals(2, table.cleanUp());
    assertEquals(List.of(3L, 4L, 5L), ids());
  }

  @Test
  void one_active_and_four_inactive_keep_the_active_one_and_three_inactive() {
    long active = start();
    for (int i = 0; i < 4; i++) {
      finished(State.COMPLETED);
    }
    assertEquals(1, table.cleanUp());
    assertEquals(List.of(active, 3L, 4L, 5L), ids());
    assertEquals(1, table.activeCount());
  }

  @Test
  void two_active_and_four_inactive_keep_both_active_and_three_inactive() {
    finished(State.FAILED);
    long a = start();
    finished(State.COMPLETED);
    long b = start();
    finished(State.COMPLETED);
    finished(State.COMPLETED);
    assertEquals(1, table.cleanUp());
    assertEquals(List.of(a, 3L, b, 5L, 6L), ids());
    assertEquals(2, table.activeCount());
  }

  @Test
  void the_oldest_inactive_go_first_by_start_order_not_by_end_order() {
    long first = start();
    long second = start();
    long third = start();
    long fourth = start();
    table.ended(fourth, State.COMPLETED);
    table.ended(third, State.COMPLETED);
    table.ended(second, State.COMPLETED);
    table.ended(first, State.COMPLETED); // ended last, but started first: it goes
    table.cleanUp();
    assertEquals(List.of(second, third, fourth), ids());
  }

  @Test
  void a_job_whose_cancellation_was_requested_but_has_not_exited_stays_active_and_is_never_dropped() {
    long cancelling = start();
    table.cancelRequested(cancelling);
    for (int i = 0; i < 10; i++) {
      finished(State.CANCELLED);
      table.cleanUp();
    }
    assertTrue(ids().contains(cancelling));
    JobTable.Entry<String> entry = table.get(cancelling).orElseThrow();
    assertEquals(State.ACTIVE, entry.state());
    assertTrue(entry.cancelRequested());
    assertEquals(4, table.size());
    table.ended(cancelling, State.CANCELLED);
    table.cleanUp();
    assertEquals(3, table.size());
  }

  @Test
  void exactly_three_inactive_is_a_no_op() {
    finished(State.COMPLETED);
    finished(State.FAILED);
    finished(State.CANCELLED);
    List<Long> before = ids();
    assertEquals(0, table.cleanUp());
    assertEquals(before, ids());
  }

  @Test
  void a_job_cannot_end_active_or_end_without_being_started() {
    long id = start();
    assertThrows(IllegalArgumentException.class, () -> table.ended(id, State.ACTIVE));
    assertThrows(IllegalStateException.class, () -> table.ended(999, State.COMPLETED));
    assertThrows(IllegalArgumentException.class, () -> table.started(id, "X", "p", 1, T0, "h"));
  }

  @Test
  void two_thousand_jobs_with_up_to_four_at_once_never_hold_more_than_active_plus_three() {
    Random random = new Random(42);
    List<Long> running = new java.util.ArrayList<>();
    int maxSize = 0;
    for (int spawned = 0; spawned < 2_000 || !running.isEmpty(); ) {
      boolean spawn = spawned < 2_000 && (running.size() < 4 && (running.isEmpty() || random.nextBoolean()));
      if (spawn) {
        table.cleanUp();
        running.add(start());
        spawned++;
      } else {
        long id = running.remove(random.nextInt(running.size()));
        table.ended(id, State.values()[1 + random.nextInt(3)]);
        table.cleanUp();
      }
      assertTrue(table.size() <= table.activeCount() + JobTable.KEEP_INACTIVE,
          "table holds " + table.size() + " with " + table.activeCount() + " active");
      maxSize = Math.max(maxSize, table.size());
    }
    assertEquals(0, table.activeCount());
    assertEquals(3, table.size());
    assertEquals(4, table.peakActive());
    assertEquals(3, table.peakInactive());
    assertTrue(maxSize <= 7, "max size " + maxSize);
  }
}
