package dev.orchestrate.state;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.limits.StructureName;
import java.util.List;

/**
 * The retention policies and memory {@code keep_recent} that the last run or {@code compact}
 * applied, as recorded in the {@code structures} table ({@code max_rows}, {@code max_age_ms}).
 * What {@code compact} applies when no config file says otherwise, so that a cron job run from
 * another directory keeps to the project's policies instead of the built-in defaults.
 *
 * @param retention        the recorded policies; a recorded NULL limit is {@code none}; the budget
 *                         and maintenance interval, never recorded, are the defaults
 * @param memoryKeepRecent the recorded {@code memory.keep_recent}
 * @param defaulted        the structures (jobs, turns, events, stats_samples, memory) with nothing
 *                         recorded, which took the built-in default
 */
public record RecordedPolicies(RetentionConfig retention, int memoryKeepRecent, List<String> defaulted) {
  public RecordedPolicies {
    defaulted = List.copyOf(defaulted);
  }

  /** True when nothing at all was recorded: every value is a built-in default. */
  public boolean nothingRecorded() {
    return defaulted.size() == StructureName.RECORDED_POLICIES.size();
  }
}
