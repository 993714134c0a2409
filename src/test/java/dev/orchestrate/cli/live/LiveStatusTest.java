package dev.orchestrate.cli.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.cli.live.LiveStatus.ActiveJob;
import dev.orchestrate.cli.live.LiveStatus.Finished;
import dev.orchestrate.cli.live.LiveStatus.Tone;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.outcome.OutcomeClass;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class LiveStatusTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");

  @Test
  void shows_counts_each_active_job_with_its_elapsed_time_and_the_last_finished_jobs() {
    LiveStatus status = new LiveStatus(T0.minusSeconds(100), 5, 8, 1, 12, T0.plusSeconds(100),
        List.of(new ActiveJob("WRK-003", "build", 2, T0), new ActiveJob("WRK-007", "fix", 1, T0.plusSeconds(30))), 2,
        List.of(new Finished("WRK-002 review: phase_complete in 3.1s -> done", Tone.GOOD),
            new Finished("WRK-005 design: blocked in 0.4s -> blocked", Tone.BAD)),
        false);

    assertEquals(List.of(
        "orchestrate run · 5/8 done · 1 blocked · 12 phases · 2:21 elapsed · ETA 0:59",
        "█".repeat(21) + "░".repeat(9) + " 75%",
        "▶ WRK-003 build (attempt 2) 0:41",
        "▶ WRK-007 fix (attempt 1) 0:11",
        "  WRK-002 review: phase_complete in 3.1s -> done",
        "  WRK-005 design: blocked in 0.4s -> blocked",
        ""), text(status.lines(T0.plusSeconds(41), 100, 20)));
  }

  @Test
  void elapsed_times_tick_with_the_clock() {
    LiveStatus status = new LiveStatus(T0, 0, 1, 0, 1, null, List.of(new ActiveJob("A", "build", 1, T0)), 1, List.of(),
        false);

    assertEquals("▶ A build (attempt 1) 0:00", text(status.lines(T0, 0, 20)).get(2));
    assertEquals("▶ A build (attempt 1) 1:05", text(status.lines(T0.plusSeconds(65), 0, 20)).get(2));
    assertEquals("▶ A build (attempt 1) 1:00:01", text(status.lines(T0.plusSeconds(3601), 0, 20)).get(2));
  }

  @Test
  void keeps_its_height_between_jobs_and_leaves_out_a_zero_blocked_count() {
    LiveStatus idle = new LiveStatus(T0, 0, 3, 0, 0, null, List.of(), 3, List.of(), false);

    assertEquals(List.of("orchestrate run · 0/3 done · 0 phases · 0:00 elapsed", "░".repeat(30) + " 0%",
        "", "", "", "", "", ""), text(idle.lines(T0, 80, 20)));
  }

  @Test
  void lines_wider_than_the_terminal_are_cut_with_an_ellipsis_one_column_short() {
    LiveStatus status = new LiveStatus(T0, 5, 8, 1, 12, null, List.of(new ActiveJob("WRK-003", "build", 2, T0)), 1,
        List.of(new Finished("WRK-004 fix: failed in 0.1s (will retry): agent exited with code 1", Tone.RETRY)),
        false);

    List<String> lines = text(status.lines(T0.plusSeconds(41), 21, 20));

    assertEquals(List.of("orchestrate run · 5…", "█████████░░░░ 75%", "▶ WRK-003 build (at…",
        "  WRK-004 fix: fail…", "", ""), lines);
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
        () -> new LiveStatus(T0, 0, 0, 0, 0, null, List.of(), 0,
            List.of("a", "b", "c", "d").stream().map(t -> new Finished(t, Tone.PLAIN)).toList(), false));
  }

  @Test
  void a_small_terminal_drops_the_finished_rows_first_then_folds_the_active_jobs() {
    List<ActiveJob> jobs = List.of(new ActiveJob("A", "build", 1, T0), new ActiveJob("B", "build", 1, T0),
        new ActiveJob("C", "build", 1, T0));
    LiveStatus status = new LiveStatus(T0, 0, 3, 0, 3, null, jobs, 3,
        List.of(new Finished("X done", Tone.GOOD)), false);

    assertEquals(List.of("orchestrate run · 0/3 done · 3 phases · 0:00 elapsed", "░".repeat(30) + " 0%",
        "▶ A build (attempt 1) 0:00", "▶ B build (attempt 1) 0:00", "▶ C build (attempt 1) 0:00", "  X done"),
        text(status.lines(T0, 100, 6)));
    assertEquals(List.of("orchestrate run · 0/3 done · 3 phases · 0:00 elapsed", "░".repeat(30) + " 0%",
        "▶ A build (attempt 1) 0:00", "▶ … and 2 more"), text(status.lines(T0, 100, 4)));
  }

  @Test
  void a_pause_takes_a_row_kept_for_the_jobs_with_its_end_and_time_left_and_stays_when_jobs_fold() {
    AgentPauses.Pause pause = new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, T0.plusSeconds(95), "limit",
        T0, 1);
    String row = "⏸ claude paused until " + RunProgress.TIME.format(T0.plusSeconds(95)) + " (1:35 left), usage limit";
    LiveStatus idle = new LiveStatus(T0, 0, 3, 0, 2, null, List.of(), 2, List.of(), false, 0, 0, 0, List.of(pause));
    assertEquals(List.of("orchestrate run · 0/3 done · 2 phases · 0:00 elapsed", "░".repeat(30) + " 0%", row, "", "",
        "", ""), text(idle.lines(T0, 100, 20)), "no row more than the jobs had");

    List<ActiveJob> jobs = List.of(new ActiveJob("A", "build", 1, T0, " [backup]"),
        new ActiveJob("B", "build", 1, T0, " [backup]"));
    LiveStatus busy = new LiveStatus(T0, 0, 3, 0, 2, null, jobs, 2, List.of(), false, 0, 0, 0, List.of(pause));
    assertEquals(List.of("orchestrate run · 0/3 done · 2 phases · 0:00 elapsed", "░".repeat(30) + " 0%", row,
        "▶ A build [backup] (attempt 1) 0:00", "▶ B build [backup] (attempt 1) 0:00"),
        text(busy.lines(T0, 100, 5)));
    assertEquals(List.of("orchestrate run · 0/3 done · 2 phases · 1:00 elapsed", "░".repeat(30) + " 0%",
        row.replace("(1:35 left)", "(0:35 left)"), "▶ … and 2 more"), text(busy.lines(T0.plusSeconds(60), 100, 4)));
  }

  @Test
  void agent_text_in_the_area_is_made_visible_not_obeyed() {
    LiveStatus status = new LiveStatus(T0, 0, 1, 0, 1, null, List.of(), 1,
        List.of(new Finished("A: failed (will retry): \033]0;x\007\r\nforged", Tone.RETRY)), false);

    assertEquals("  A: failed (will retry): \\x1b]0;x\\x07\\r\\nforged", text(status.lines(T0, 100, 20)).get(3));
  }

  private static List<String> text(List<LiveArea.Line> lines) {
    return lines.stream().map(LiveArea.Line::text).toList();
  }

  @Test
  void items_waiting_for_their_checks_or_a_reviewer_are_counted_in_the_header() {
    LiveStatus status = new LiveStatus(T0, 2, 8, 1, 6, null, List.of(), 0, List.of(), false, 1, 3);

    String header = status.lines(T0.plusSeconds(10), 120, 5).get(0).text();

    assertTrue(header.startsWith("orchestrate run · 2/8 done · 1 blocked · 3 awaiting checks · 1 awaiting review · "),
        header);
  }
}
