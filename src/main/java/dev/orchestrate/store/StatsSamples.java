package dev.orchestrate.store;

import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The samples behind the trend of {@code orchestrate stats}: every structure's rows now (from the
 * lifetime counters, no table scan) and the database bytes, one row per run maintenance interval,
 * per {@code stats} and per {@code compact}. Retention bounds them like any other structure.
 */
final class StatsSamples {
  private StatsSamples() {
  }

  static void record(Jdbc jdbc, Path file, String source, Instant at) {
    Map<String, Object> rows = new LinkedHashMap<>();
    jdbc.query("SELECT name, rows_written - rows_pruned FROM structures ORDER BY name",
        rs -> rows.put(rs.getString(1), rs.getLong(2)));
    jdbc.execute("INSERT INTO stats_samples (at, source, db_bytes, rows) VALUES (?, ?, ?, ?)",
        at.toEpochMilli(), source, Database.bytes(file), JsonText.object(rows));
  }
}
