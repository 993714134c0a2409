package dev.orchestrate.limits;

import java.util.List;
import java.util.Optional;

/**
 * The bounded structures by name: one vocabulary for the config's {@code retention} keys, the
 * retention pass, the state's {@code structures} table, {@code stats} and {@code compact}. The
 * {@link #key()} is the name written everywhere outside Java (YAML keys, table rows, JSON keys).
 */
public enum StructureName {
  ITEMS("items"), EVENTS("events"), TURNS("turns"), SUMMARIES("summaries"), JOBS("jobs"), MEMORY(
      "memory"), STATS_SAMPLES("stats_samples"), JOB_LOGS("job_logs"), WORKTREES("worktrees");

  /** What a retention pass prunes, in pass order. */
  public static final List<StructureName> RETAINED = List.of(JOBS, TURNS, EVENTS, STATS_SAMPLES);

  /** The structures whose policy a run or compact records in the state (memory's is keep_recent). */
  public static final List<StructureName> RECORDED_POLICIES = List.of(JOBS, TURNS, EVENTS, STATS_SAMPLES, MEMORY);

  private final String key;

  StructureName(String key) {
    this.key = key;
  }

  /** The snake_case name used in YAML, in the state and in JSON. */
  public String key() {
    return key;
  }

  public static Optional<StructureName> of(String key) {
    for (StructureName s : values()) {
      if (s.key.equals(key)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return key;
  }
}
