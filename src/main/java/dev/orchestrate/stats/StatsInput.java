package dev.orchestrate.stats;

import java.time.Instant;
import java.util.List;

/**
 * Everything {@code orchestrate stats} reports on, as read from the state database.
 *
 * @param samples the samples of the trend window, oldest first
 */
public record StatsInput(Instant now, boolean databaseExists, List<Structure> structures, DatabaseFigures database,
    LastRun lastRun, List<Sample> samples) {
  public static StatsInput empty(Instant now) {
    return new StatsInput(now, false, List.of(), DatabaseFigures.NONE, null, List.of());
  }
}
