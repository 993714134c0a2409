package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.outcome.JobState;
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

  private long finished(JobState state) {
    long id = start();
    table.ended(id, state);
    return id;
  }

  private List<Long> ids() {
    return table.all().stream().map(JobTable.Entry::jobId).toList();
  }

  @Test
  void three_jobs_are_all_kept() {
    long a = finished(JobState.COMPLETED);
    long b = finished(JobState.FAILED);
    long c = start();
    assertEquals(0, table.cleanUp());
    assertEquals(List.of(a, b, c), ids());
  }

  @Test
  void of_five_finished_jobs_the_three_most_recently_started_are_kept() {
    for (int i = 0; i < 5; i++) {
      finished(i % 2 == 0 ? JobState.COMPLETED : JobState.CANCELLED);
    }
    assertEquals(2, table.cleanUp());
    assertEquals(List.of(3L, 4L, 5L), ids());
  }

  @Test
  void one_active_and_four_inactive_keep_the_active_one_and_three_inactive() {
    long active = start();
    for (int i = 0; i < 4; i++) {
      finished(JobState.COMPLETED);
    }
    assertEquals(1, table.cleanUp());
    assertEquals(List.of(active, 3L, 4L, 5L), ids());
    assertEquals(1, table.activeCount());
  }

  @Test
  void two_active_and_four_inactive_keep_both_active_and_three_inactive() {
    finished(JobState.FAILED);
    long a = start();
    finished(JobState.COMPLETED);
    long b = start();
    finished(JobState.COMPLETED);
    finished(JobState.COMPLETED);
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
    table.ended(fourth, JobState.COMPLETED);
    table.ended(third, JobState.COMPLETED);
    table.ended(second, JobState.COMPLETED);
    table.ended(first, JobState.COMPLETED); // ended last, but started first: it goes
    table.cleanUp();
    assertEquals(List.of(second, third, fourth), ids());
  }

  @Test
  void a_job_whose_cancellation_was_requested_but_has_not_exited_stays_active_and_is_never_dropped() {
    long cancelling = start();
    table.cancelRequested(cancelling);
    for (int i = 0; i < 10; i++) {
      finished(JobState.CANCELLED);
      table.cleanUp();
    }
    assertTrue(ids().contains(cancelling));
    JobTable.Entry<String> entry = table.get(cancelling).orElseThrow();
    assertEquals(JobState.RUNNING, entry.state());
    assertTrue(entry.cancelRequested());
    assertEquals(4, table.size());
    table.ended(cancelling, JobState.CANCELLED);
    table.cleanUp();
    assertEquals(3, table.size());
  }

  @Test
  void exactly_three_inactive_is_a_no_op() {
    finished(JobState.COMPLETED);
    finished(JobState.FAILED);
    finished(JobState.CANCELLED);
    List<Long> before = ids();
    assertEquals(0, table.cleanUp());
    assertEquals(before, ids());
  }

  @Test
  void a_job_cannot_end_active_or_interrupted_or_end_without_being_started() {
    long id = start();
    assertThrows(IllegalArgumentException.class, () -> table.ended(id, JobState.RUNNING));
    // interrupted is what the next run records for a job a crash left running, never a session's end
    assertThrows(IllegalArgumentException.class, () -> table.ended(id, JobState.INTERRUPTED));
    assertThrows(IllegalStateException.class, () -> table.ended(999, JobState.COMPLETED));
    assertThrows(IllegalArgumentException.class, () -> table.started(id, "X", "p", 1, T0, "h"));
  }

  @Test
  void two_thousand_jobs_with_up_to_four_at_once_never_hold_more_than_active_plus_three() {
    Random random = new Random(42);
    List<Long> running = new java.util.ArrayList<>();
    int maxSize = 0;
    for (int spawned = 0; spawned < 2_000 || !running.isEmpty();) {
      boolean spawn = spawned < 2_000 && (running.size() < 4 && (running.isEmpty() || random.nextBoolean()));
      if (spawn) {
        table.cleanUp();
        running.add(start());
        spawned++;
      } else {
        long id = running.remove(random.nextInt(running.size()));
        table.ended(id, JobState.values()[1 + random.nextInt(3)]);
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
