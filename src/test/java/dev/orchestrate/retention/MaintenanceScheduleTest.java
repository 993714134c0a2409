package dev.orchestrate.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.testing.CapturedLogs;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MaintenanceScheduleTest {
  @RegisterExtension
  final CapturedLogs logs = CapturedLogs.of(MaintenanceSchedule.class);

  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final BooleanSupplier IDLE = () -> false;
  private static final BooleanSupplier BUSY = () -> true;

  /** A pass of {@code units} units that steps aside after each one while the scheduler is busy. */
  private static MaintenanceSchedule.Pass units(int units, List<String> log, Instant began) {
    int[] done = {0};
    return waiting -> {
      do {
        log.add(began + " unit " + ++done[0]);
      } while (done[0] < units && !waiting.getAsBoolean());
      return done[0] == units;
    };
  }

  @Test
  void runs_at_the_first_tick_then_once_per_interval_whatever_the_tick_rate() {
    List<Instant> passes = new ArrayList<>();
    MaintenanceSchedule schedule = new MaintenanceSchedule(Duration.ofMinutes(1), now -> {
      passes.add(now);
      return waiting -> true;
    });
    for (int second = 0; second <= 180; second += 7) {
      schedule.afterTick(T0.plusSeconds(second), IDLE);
    }
    assertEquals(List.of(T0, T0.plusSeconds(63), T0.plusSeconds(126)), passes);
    assertEquals(3, schedule.passes());
    assertEquals(0, schedule.continuations());
  }

  @Test
  void a_pass_that_steps_aside_is_continued_at_the_next_tick_not_the_next_interval() {
    List<String> log = new ArrayList<>();
    MaintenanceSchedule schedule = new MaintenanceSchedule(Duration.ofMinutes(1), now -> units(3, log, now));

    schedule.afterTick(T0, BUSY); // a job ended meanwhile: one unit, then it steps aside
    assertEquals(List.of(T0 + " unit 1"), log);
    assertTrue(schedule.pending());
    schedule.afterTick(T0.plusSeconds(1), BUSY); // still busy: one more unit per tick, never starved
    schedule.afterTick(T0.plusSeconds(2), IDLE);
    assertEquals(List.of(T0 + " unit 1", T0 + " unit 2", T0 + " unit 3"), log, "the same pass, continued");
    assertFalse(schedule.pending());
    assertEquals(1, schedule.passes());
    assertEquals(2, schedule.continuations());

    schedule.afterTick(T0.plusSeconds(30), IDLE);
    assertEquals(3, log.size(), "the next pass waits for the interval, counted from when this one began");
    schedule.afterTick(T0.plusSeconds(60), IDLE);
    assertEquals(6, log.size());
    assertEquals(2, schedule.passes());
  }

  @Test
  void at_the_end_of_a_run_a_pass_that_stepped_aside_is_finished_and_one_more_is_made_whatever_the_interval() {
    List<String> log = new ArrayList<>();
    MaintenanceSchedule schedule = new MaintenanceSchedule(Duration.ofMinutes(1), now -> units(3, log, now));
    schedule.afterTick(T0, BUSY);
    assertEquals(List.of(T0 + " unit 1"), log);

    schedule.atEnd(T0.plusSeconds(5), IDLE);

    assertEquals(List.of(T0 + " unit 1", T0 + " unit 2", T0 + " unit 3",
        T0.plusSeconds(5) + " unit 1", T0.plusSeconds(5) + " unit 2", T0.plusSeconds(5) + " unit 3"), log,
        "the pending pass to its end, never stepping aside, then a last pass five seconds into the interval");
    assertFalse(schedule.pending());
    assertEquals(2, schedule.passes());
  }

  @Test
  void at_the_end_of_a_run_passes_go_on_until_no_structure_is_beyond_its_policy() {
    int[] begun = {0};
    MaintenanceSchedule schedule = new MaintenanceSchedule(Duration.ofMinutes(1), now -> {
      int number = ++begun[0];
      return new MaintenanceSchedule.Pass() {
        @Override
        public boolean proceed(BooleanSupplier waiting) {
          return true;
        }

        @Override
        public boolean moreToDo() {
          return number < 3; // the third pass brings the last structure within its policy
        }
      };
    });
    schedule.atEnd(T0, IDLE);
    assertEquals(3, begun[0]);

    begun[0] = -1_000; // never within its policy: the end stops after MAX_END_PASSES
    schedule.atEnd(T0, IDLE);
    assertEquals(-1_000 + MaintenanceSchedule.MAX_END_PASSES, begun[0]);
  }

  @Test
  void a_stop_at_the_end_of_a_run_cuts_the_last_passes_short() {
    List<String> log = new ArrayList<>();
    MaintenanceSchedule schedule = new MaintenanceSchedule(Duration.ofMinutes(1), now -> units(3, log, now));
    schedule.afterTick(T0, BUSY);
    schedule.atEnd(T0.plusSeconds(5), BUSY); // Ctrl-C came: one unit, then it stops
    assertEquals(List.of(T0 + " unit 1", T0 + " unit 2"), log);
    assertEquals(1, schedule.passes(), "no new pass after a stop");
  }

  @Test
  void a_failing_pass_never_reaches_the_scheduler_and_is_tried_again_next_interval() {
    List<Instant> tries = new ArrayList<>();
    MaintenanceSchedule schedule = new MaintenanceSchedule(Duration.ofSeconds(10), now -> {
      tries.add(now);
      return waiting -> {
        throw new IllegalStateException("database is locked");
      };
    });
    schedule.afterTick(T0, IDLE);
    schedule.afterTick(T0.plusSeconds(5), IDLE);
    schedule.afterTick(T0.plusSeconds(10), IDLE);
    assertEquals(List.of(T0, T0.plusSeconds(10)), tries);
    assertEquals(2, schedule.failures());
    assertFalse(schedule.pending(), "a failed pass is dropped, not continued");
    assertEquals(List.of("retention maintenance failed (database is locked); the run goes on, next try in PT10S",
        "retention maintenance failed (database is locked); the run goes on, next try in PT10S"), logs.warnings());
  }
}
