package dev.orchestrate.config;

import static dev.orchestrate.config.ConfigLoader.EVENTS_RETENTION_KEYS;
import static dev.orchestrate.config.ConfigLoader.RETENTION_KEYS;
import static dev.orchestrate.config.ConfigLoader.STRUCTURE_RETENTION_KEYS;
import static dev.orchestrate.config.ConfigLoader.WORKTREES_RETENTION_KEYS;

import dev.orchestrate.limits.StructureName;
import dev.orchestrate.yaml.YamlNode;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code retention:}: the maintenance interval and budget, and each structure's policy, for
 * {@link ConfigLoader}.
 */
final class RetentionSection extends SectionReader {
  RetentionSection(SectionReader load) {
    super(load);
  }

  RetentionConfig retention(YamlNode.Mapping map) {
    problems.unknownKeys(map, RETENTION_KEYS, "key", "retention");
    RetentionConfig defaults = RetentionConfig.defaults();
    Optional<YamlNode.Mapping> section = Optional.of(map);
    Duration interval = setting(section, "maintenance_interval",
        n -> duration(n, "retention.maintenance_interval", Ranges.MAINTENANCE_INTERVAL))
        .orElse(defaults.maintenanceInterval());
    int budget = setting(section, "budget", n -> values.integer(n, "retention.budget", 1, Ranges.RETENTION_BUDGET))
        .orElse(defaults.budget());
    return new RetentionConfig(interval, budget,
        policy(map, StructureName.JOBS.key(), defaults.jobs()),
        policy(map, StructureName.TURNS.key(), defaults.turns()),
        policy(map, StructureName.EVENTS.key(), defaults.events()),
        policy(map, StructureName.STATS_SAMPLES.key(), defaults.statsSamples()),
        worktreesRetention(map, defaults.worktrees()));
  }

  /** retention.worktrees: a policy like the others, plus discard_uncommitted. */
  private RetentionConfig.WorktreePolicy worktreesRetention(YamlNode.Mapping retention,
      RetentionConfig.WorktreePolicy defaults) {
    RetentionConfig.Policy policy = policy(retention, "worktrees", defaults.policy());
    boolean discard = retention.get("worktrees").filter(YamlNode.Mapping.class::isInstance)
        .flatMap(n -> ((YamlNode.Mapping) n).get("discard_uncommitted"))
        .flatMap(n -> values.bool(n, "retention.worktrees.discard_uncommitted"))
        .orElse(defaults.discardUncommitted());
    return new RetentionConfig.WorktreePolicy(policy, discard);
  }

  /**
   * One structure's policy. A key left out keeps its default; {@code none} (or null) switches that
   * limit off. An entry with neither limit would let the structure grow without bound, which is
   * allowed but must be asked for explicitly.
   */
  private RetentionConfig.Policy policy(YamlNode.Mapping retention, String structure,
      RetentionConfig.Policy defaults) {
    String subject = "retention." + structure;
    Optional<YamlNode.Mapping> entry = retention.get(structure).flatMap(n -> values.mapping(n, subject,
        "a map like {max_rows: 10000, max_age: 30d}"));
    if (entry.isEmpty()) {
      return defaults;
    }
    problems.unknownKeys(entry.get(), structure.equals(StructureName.EVENTS.key()) ? EVENTS_RETENTION_KEYS
        : structure.equals(StructureName.WORKTREES.key()) ? WORKTREES_RETENTION_KEYS : STRUCTURE_RETENTION_KEYS, "key",
        subject);
    Integer maxRows = defaults.maxRows();
    String rowsKey = "max_rows";
    Optional<YamlNode> rows = entry.get().get(rowsKey);
    if (rows.isEmpty() && structure.equals("events")) {
      rowsKey = "keep_recent";
      rows = entry.get().get(rowsKey);
    }
    if (rows.isPresent()) {
      maxRows = off(rows.get()) ? null : values.integer(rows.get(), subject + "." + rowsKey, 0, Ranges.MAX_ROWS)
          .orElse(maxRows);
    }
    Duration maxAge = defaults.maxAge();
    Optional<YamlNode> age = entry.get().get("max_age");
    if (age.isPresent()) {
      maxAge = off(age.get()) ? null : duration(age.get(), subject + ".max_age", Ranges.MAX_AGE).orElse(maxAge);
    }
    return RetentionConfig.Policy.of(maxRows, maxAge);
  }
}
