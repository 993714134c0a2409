package dev.orchestrate.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatsReportTest {
  private static final Instant NOW = Instant.parse("2026-11-22T12:00:00Z");

  private static Structure limited(String name, long rows, long kept, Long maxRows) {
    return new Structure(name, rows + 10, 10, null, kept, 0, 0, maxRows, null);
  }

  private static StatsReport report(List<Structure> structures, List<Sample> samples) {
    return StatsReport.of(new StatsInput(NOW, true, structures, DatabaseFigures.NONE, null,
        SampleWindow.of(samples, NOW.minus(StatsReport.TREND_WINDOW))));
  }

  private static StatsReport.Row row(StatsReport r, String name) {
    return r.structures().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void status_is_ok_below_85_percent_warn_from_85_to_100_and_over_above_100() {
    StatsReport r = report(List.of(limited("a", 84, 0, 100L), limited("b", 85, 0, 100L), limited("c", 100, 0, 100L),
        limited("d", 101, 0, 100L)), List.of());
    assertEquals(StatsReport.Status.OK, row(r, "a").status());
    assertEquals(StatsReport.Status.WARN, row(r, "b").status());
    assertEquals(StatsReport.Status.WARN, row(r, "c").status());
    assertEquals(StatsReport.Status.OVER, row(r, "d").status());
    assertEquals(StatsReport.Status.OVER, r.status());
    assertEquals(5, r.status().exitCode());
    assertEquals(List.of("a", "b", "c", "d"), r.warnings().stream().map(StatsReport.Warning::structure).toList(),
        "84 % is elevated: a warning, status ok");
    assertTrue(r.warnings().get(3).message().startsWith("d at 101% of max_rows 100: run `orchestrate compact`"),
        r.warnings().get(3).message());
  }

  @Test
  void every_structure_from_70_percent_gets_a_warning_at_the_level_of_its_band() {
    StatsReport r = report(List.of(limited("a", 69, 0, 100L), limited("jobs", 75, 0, 100L), limited("c", 90, 0, 100L),
        limited("d", 120, 0, 100L)), List.of());
    assertEquals(List.of("jobs", "c", "d"), r.warnings().stream().map(StatsReport.Warning::structure).toList());
    assertEquals(List.of(StatsReport.Level.ELEVATED, StatsReport.Level.WARN, StatsReport.Level.OVER),
        r.warnings().stream().map(StatsReport.Warning::level).toList());
    assertEquals("jobs at 75% of max_rows 100: a run's maintenance brings it back to 60% in budgeted passes; "
        + "without a run, `orchestrate compact` does; raise retention.jobs.max_rows if it keeps climbing",
        r.warnings().get(0).message());
  }

  @Test
  void an_elevated_structure_warns_but_keeps_status_ok_and_exit_code_0() {
    StatsReport r = report(List.of(limited("turns", 84, 0, 100L)), List.of());
    assertEquals(StatsReport.Pressure.ELEVATED, r.pressure());
    assertEquals(StatsReport.Status.OK, r.status());
    assertEquals(0, r.status().exitCode());
    assertEquals(StatsReport.Level.ELEVATED, r.warnings().get(0).level());
    assertEquals("elevated", r.warnings().get(0).level().key());
  }

  @Test
  void memory_warns_elevated_once_the_episodic_memories_over_keep_recent_reach_keep_recent() {
    Structure below = new Structure("memory", 149, 0, null, 0, 0, 0, 100L, null); // 49 over 100
    Structure at = new Structure("memory", 200, 0, null, 0, 0, 0, 100L, null); // 100 over 100
    assertEquals(List.of(), report(List.of(below), List.of()).warnings());
    StatsReport r = report(List.of(at), List.of());
    assertEquals(1, r.warnings().size());
    StatsReport.Warning w = r.warnings().get(0);
    assertEquals("memory", w.structure());
    assertEquals(StatsReport.Level.ELEVATED, w.level());
    assertEquals("memory has 100 episodic memories over keep_recent 100 (200 prunable): run `orchestrate compact` "
        + "(it keeps the 100 most recent and every load-bearing memory)", w.message());
    assertEquals(StatsReport.Status.OK, r.status());
  }

  @Test
  void memory_with_keep_recent_0_warns_only_from_50_prunable_episodic_memories() {
    assertEquals(List.of(), report(List.of(new Structure("memory", 49, 0, null, 0, 0, 0, 0L, null)), List.of())
        .warnings());
    assertEquals(1, report(List.of(new Structure("memory", 50, 0, null, 0, 0, 0, 0L, null)), List.of())
        .warnings().size());
  }

  @Test
  void rows_retention_never_deletes_do_not_count_against_the_limit() {
    StatsReport r = report(List.of(limited("events", 5_000, 4_950, 100L)), List.of());
    assertEquals(0.5, row(r, "events").utilisation());
    assertEquals(StatsReport.Status.OK, r.status());
  }

  @Test
  void structures_without_a_row_limit_are_ok_and_have_no_utilisation() {
    StatsReport r = report(List.of(limited("items", 1_000_000, 0, null)), List.of());
    assertNull(row(r, "items").utilisation());
    assertEquals(StatsReport.Status.OK, r.status());
    assertEquals(StatsReport.Pressure.NORMAL, r.pressure());
    assertEquals(0, r.status().exitCode());
  }

  @Test
  void max_rows_0_is_over_as_soon_as_there_is_a_prunable_row() {
    assertEquals(StatsReport.Status.OK, report(List.of(limited("a", 0, 0, 0L)), List.of()).status());
    assertEquals(StatsReport.Status.OVER, report(List.of(limited("a", 1, 0, 0L)), List.of()).status());
  }

  @Test
  void pressure_follows_the_fullest_structure_normal_elevated_high_critical() {
    assertEquals(StatsReport.Pressure.NORMAL, report(List.of(limited("a", 69, 0, 100L)), List.of()).pressure());
    assertEquals(StatsReport.Pressure.ELEVATED, report(List.of(limited("a", 70, 0, 100L)), List.of()).pressure());
    assertEquals(StatsReport.Pressure.HIGH, report(List.of(limited("a", 85, 0, 100L)), List.of()).pressure());
    assertEquals(StatsReport.Pressure.CRITICAL, report(List.of(limited("a", 95, 0, 100L)), List.of()).pressure());
    assertEquals(StatsReport.Pressure.CRITICAL, report(List.of(limited("a", 300, 0, 100L), limited("b", 1, 0, 100L)),
        List.of()).pressure());
  }

  @Test
  void trend_is_net_rows_per_hour_since_the_oldest_sample_of_the_last_24_hours() {
    List<Sample> samples = List.of(
        new Sample(NOW.minusSeconds(30 * 3600), "run", 0, Map.of("jobs", 0L)), // outside the window
        new Sample(NOW.minusSeconds(2 * 3600), "run", 0, Map.of("jobs", 100L)),
        new Sample(NOW.minusSeconds(3600), "stats", 0, Map.of("jobs", 150L)));
    StatsReport r = report(List.of(limited("jobs", 300, 0, 1_000L)), samples);
    assertEquals(100.0, row(r, "jobs").perHour(), "(300 - 100) rows over 2 h");
    assertEquals(2, r.trend().samples());
  }

  @Test
  void no_trend_without_samples_or_with_samples_from_the_last_minute_only() {
    assertNull(row(report(List.of(limited("jobs", 3, 0, 10L)), List.of()), "jobs").perHour());
    List<Sample> recent = List.of(new Sample(NOW.minusSeconds(10), "stats", 0, Map.of("jobs", 1L)));
    assertNull(row(report(List.of(limited("jobs", 3, 0, 10L)), recent), "jobs").perHour());
  }

  @Test
  void memory_reports_prunable_episodic_memories_over_keep_recent_without_a_status() {
    Structure memory = new Structure("memory", 500, 0, null, 20, 0, 0, 50L, null);
    StatsReport r = report(List.of(memory), List.of());
    assertEquals(new StatsReport.Memory(480, 50, 430), r.memory());
    assertEquals(StatsReport.Status.OK, r.status(), "memory is bounded by compact --keep-recent, not retention");
  }
}
