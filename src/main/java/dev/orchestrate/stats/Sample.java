package dev.orchestrate.stats;

import java.time.Instant;
import java.util.Map;

/** One row of {@code stats_samples}: every structure's rows now at {@code at}. */
public record Sample(Instant at, String source, long dbBytes, Map<String, Long> rows) {
}
