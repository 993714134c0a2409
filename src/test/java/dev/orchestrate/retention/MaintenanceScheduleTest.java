package dev.orchestrate.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MaintenanceScheduleTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  @Test
  void runs_at_the_first_tick_then_once_per_interval_whatever_the_tick_rate() {
    List<Instant> passes = new ArrayList<>();
    MaintenanceSchedule schedule = new MaintenanceSchedule(Duration.ofMinutes(1), passes::add);
    for (int second = 0; second <= 180; second += 7) {
      schedule.afterTick(T0.plusSeconds(second));
    }
    assertEquals(List.of(T0, T0.plusSeconds(63), T0.plusSeconds(126)), passes);
    assertEquals(3, schedule.passes());
  }

  @Test
  void a_failing_pass_never_reaches_the_scheduler_and_is_tried_again_next_interval() {
    List<Instant> tries = new ArrayList<>();
    MaintenanceSchedule schedule = new MaintenanceSchedule(Duration.ofSeconds(10), now -> {
      tries.add(now);
      throw new IllegalStateException("database is locked");
    });
    schedule.afterTick(T0);
    schedule.afterTick(T0.plusSeconds(5));
    schedule.afterTick(T0.plusSeconds(10));
    assertEquals(List.of(T0, T0.plusSeconds(10)), tries);
    assertEquals(2, schedule.failures());
  }
}
