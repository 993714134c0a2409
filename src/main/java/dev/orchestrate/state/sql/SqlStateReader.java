package dev.orchestrate.state.sql;

import dev.orchestrate.config.Config;
import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.config.RetentionConfig.Policy;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.state.RecordedPolicies;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads items and recorded policies as the schema found allows, changing nothing: a read-only
 * store (a dry run, the checks {@code run} makes before it takes the lease) may hold an older
 * schema, and it is read as it is, as far as it goes: items from the first schema, follow-up
 * origins and recorded policies once the schema has them ({@link Dialect.Feature}).
 */
final class SqlStateReader {
  private final Jdbc jdbc;
  private final int schemaVersion;

  /** Over a store's connection, which the store closes. */
  SqlStateReader(Jdbc jdbc) {
    this.jdbc = jdbc;
    this.schemaVersion = jdbc.dialect().schemaVersion(jdbc);
  }

  /** The migrations applied; below the dialect's latest, a read-write store upgrades it first. */
  int schemaVersion() {
    return schemaVersion;
  }

  /** Every stored item in backlog order. */
  List<ItemState> items() {
    if (schemaVersion < 1) {
      return List.of();
    }
    String sql = jdbc.dialect().has(Dialect.Feature.ITEM_ORIGINS, schemaVersion) ? "SELECT * FROM items ORDER BY seq"
        : "SELECT *, NULL AS origin FROM items ORDER BY seq";
    return jdbc.query(sql, StateRows::item);
  }

  /** The ids of every stored item: backlog items, those no longer listed, and follow-ups. */
  Set<String> itemIds() {
    if (schemaVersion < 1) {
      return Set.of();
    }
    return new LinkedHashSet<>(jdbc.query("SELECT id FROM items ORDER BY seq", rs -> rs.getString(1)));
  }

  /** See {@link dev.orchestrate.state.StateStore#idsNear}: at most four index range reads, in sort order around each. */
  List<String> idsNear(String id, int perSide) {
    if (schemaVersion < 1) {
      return List.of();
    }
    Set<String> out = new LinkedHashSet<>();
    for (String around : new LinkedHashSet<>(List.of(id, id.toUpperCase(java.util.Locale.ROOT)))) {
      List<String> before = new ArrayList<>(jdbc.query("SELECT id FROM items WHERE id < ? ORDER BY id DESC LIMIT ?",
          rs -> rs.getString(1), around, perSide));
      java.util.Collections.reverse(before); // in sort order, as the ones after it
      out.addAll(before);
      out.addAll(jdbc.query("SELECT id FROM items WHERE id >= ? ORDER BY id LIMIT ?", rs -> rs.getString(1),
          around, perSide));
    }
    return List.copyOf(out);
  }

  /**
   * The policies the last run or compact recorded. {@link SqlRetention#recordPolicies} writes
   * every structure's limits and memory's keep_recent (never NULL) in one transaction, so a
   * memory {@code max_rows} that is not NULL tells that the NULLs beside it mean {@code none};
   * without it (never recorded, or a schema without the table), every structure takes its built-in
   * default.
   */
  RecordedPolicies recordedPolicies() {
    Map<String, Limits> rows = new HashMap<>();
    if (jdbc.dialect().has(Dialect.Feature.STRUCTURES, schemaVersion)) {
      jdbc.query("SELECT name, max_rows, max_age_ms FROM structures WHERE name IN "
          + "('jobs', 'turns', 'events', 'stats_samples', 'memory', 'worktrees')",
          rs -> rows.put(rs.getString(1), new Limits(Columns.longOrNull(rs, 2), Columns.longOrNull(rs, 3))));
    }
    Limits memory = rows.get(StructureName.MEMORY.key());
    boolean recorded = memory != null && memory.maxRows() != null && memory.maxRows() >= 0;
    RetentionConfig defaults = RetentionConfig.defaults();
    List<String> defaulted = new ArrayList<>();
    Policy jobs = policy(StructureName.JOBS, recorded, rows, defaults.jobs(), defaulted);
    Policy turns = policy(StructureName.TURNS, recorded, rows, defaults.turns(), defaulted);
    Policy events = policy(StructureName.EVENTS, recorded, rows, defaults.events(), defaulted);
    Policy samples = policy(StructureName.STATS_SAMPLES, recorded, rows, defaults.statsSamples(), defaulted);
    int keepRecent = Config.DEFAULT_KEEP_RECENT;
    if (recorded) {
      keepRecent = (int) Math.min(Integer.MAX_VALUE, memory.maxRows());
    } else {
      defaulted.add(StructureName.MEMORY.key());
    }
    // worktrees (schema 9): its recorded limits when there are any; discard_uncommitted is never
    // recorded, so a compact without a config keeps every worktree with uncommitted work.
    Limits worktrees = rows.get(StructureName.WORKTREES.key());
    RetentionConfig.WorktreePolicy worktreesPolicy = recorded && worktrees != null && worktrees.valid()
        ? new RetentionConfig.WorktreePolicy(worktrees.policy(), false) : defaults.worktrees();
    return new RecordedPolicies(new RetentionConfig(defaults.maintenanceInterval(), defaults.budget(), jobs, turns,
        events, samples, worktreesPolicy), keepRecent, defaulted);
  }

  private record Limits(Long maxRows, Long maxAgeMs) {
    /** A value this version would never have written (negative, or an age of 0) is not a policy. */
    boolean valid() {
      return (maxRows == null || maxRows >= 0) && (maxAgeMs == null || maxAgeMs > 0);
    }

    Policy policy() {
      return Policy.of(maxRows == null ? null : (int) Math.min(Integer.MAX_VALUE, maxRows),
          maxAgeMs == null ? null : Duration.ofMillis(maxAgeMs));
    }
  }

  private static Policy policy(StructureName structure, boolean recorded, Map<String, Limits> rows, Policy fallback,
      List<String> defaulted) {
    Limits limits = rows.get(structure.key());
    if (recorded && limits != null && limits.valid()) {
      return limits.policy();
    }
    defaulted.add(structure.key());
    return fallback;
  }
}
