package dev.orchestrate.stats;

import java.time.Instant;
import java.util.List;

/**
 * Everything {@code orchestrate stats} reports on, as read from the state database.
 *
 * @param trend the samples of the trend window ({@link StatsReport#TREND_WINDOW} back from {@code now})
 */
public record StatsInput(Instant now, boolean databaseExists, List<Structure> structures, DatabaseFigures database,
    LastRun lastRun, SampleWindow trend) {
  public static StatsInput empty(Instant now) {
    return new StatsInput(now, false, List.of(), DatabaseFigures.NONE, null, SampleWindow.EMPTY);
  }
}
