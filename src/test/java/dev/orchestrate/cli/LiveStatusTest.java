package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.orchestrate.cli.LiveStatus.ActiveJob;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveStatusTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  @Test
  void shows_counts_each_active_job_with_its_elapsed_time_and_the_last_finished_jobs() {
    LiveStatus status = new LiveStatus(5, 8, 1, 12,
        List.of(new ActiveJob("WRK-003", "build", 2, T0), new ActiveJob("WRK-007", "fix", 1, T0.plusSeconds(30))),
        List.of("WRK-002 review: phase_complete in 3.1s -> done", "WRK-005 design: blocked in 0.4s -> blocked"));

    assertEquals(List.of(
        "orchestrate run · 5/8 done · 1 blocked · phase 12",
        "▶ WRK-003 build (attempt 2) 0:41",
        "▶ WRK-007 fix (attempt 1) 0:11",
        "  WRK-002 review: phase_complete in 3.1s -> done",
        "  WRK-005 design: blocked in 0.4s -> blocked",
        ""), status.lines(T0.plusSeconds(41), 0));
  }

  @Test
  void elapsed_times_tick_with_the_clock() {
    LiveStatus status = new LiveStatus(0, 1, 0, 1, List.of(new ActiveJob("A", "build", 1, T0)), List.of());

    assertEquals("▶ A build (attempt 1) 0:00", status.lines(T0, 0).get(1));
    assertEquals("▶ A build (attempt 1) 1:05", status.lines(T0.plusSeconds(65), 0).get(1));
    assertEquals("▶ A build (attempt 1) 1:00:01", status.lines(T0.plusSeconds(3601), 0).get(1));
  }

  @Test
  void keeps_its_height_between_jobs_and_leaves_out_a_zero_blocked_count() {
    LiveStatus idle = new LiveStatus(0, 3, 0, 0, List.of(), List.of());

    assertEquals(List.of("orchestrate run · 0/3 done · phase 0", "", "", "", ""), idle.lines(T0, 80));
  }

  @Test
  void lines_wider_than_the_terminal_are_cut_with_an_ellipsis_one_column_short() {
    LiveStatus status = new LiveStatus(5, 8, 1, 12, List.of(new ActiveJob("WRK-003", "build", 2, T0)),
        List.of("WRK-004 fix: failed in 0.1s (will retry): agent exited with code 1"));

    List<String> lines = status.lines(T0.plusSeconds(41), 21);

    assertEquals(List.of("orchestrate run · 5…", "▶ WRK-003 build (at…", "  WRK-004 fix: fail…", "", ""),
        lines);
    lines.forEach(line -> assertEquals(true, line.codePointCount(0, line.length()) <= 20, line));
  }

  @Test
  void a_line_that_fits_is_left_alone() {
    assertEquals("abc", LiveStatus.fit("abc", 4));
    assertEquals("ab…", LiveStatus.fit("abcd", 4));
    assertEquals("abcd", LiveStatus.fit("abcd", 0));
  }

  @Test
  void a_clock_behind_the_start_shows_zero_elapsed() {
    assertEquals("0:00", LiveStatus.elapsed(Duration.ofSeconds(-3)));
  }

  @Test
  void more_than_three_finished_jobs_is_a_programming_error() {
    assertThrows(IllegalArgumentException.class,
        () -> new LiveStatus(0, 0, 0, 0, List.of(), List.of("a", "b", "c", "d")));
  }
}
