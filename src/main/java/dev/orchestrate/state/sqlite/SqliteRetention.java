package dev.orchestrate.state.sqlite;

import dev.orchestrate.config.RetentionConfig;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.retention.RetentionPass;
import dev.orchestrate.retention.RetentionStore;
import dev.orchestrate.config.RetentionConfig.Policy;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Incremental retention over the state database (docs/how-it-works.md). One {@link #pass} deletes, per
 * structure, at most {@code budget} rows that are beyond its policy (the oldest rows beyond
 * {@link RetentionConfig#TARGET_PERCENT} % of {@code max_rows}, and rows older than {@code max_age}), walking the table by id from the cursor
 * saved in {@code structures.cursor}, so its cost depends on the budget and not on the table size.
 * The cursor goes back to 0 when a pass reaches the end of the table or the first row the policy
 * keeps; the next pass starts again from the oldest rows.
 *
 * <p>What is never deleted: a running job; a load-bearing event, and the newest event; a turn its
 * item's persisted summary does not cover. Turns of finished (done or blocked) items that are
 * beyond the policy but not covered yet are handed to the {@link Condenser} first:
 * summarize-then-prune, in one transaction, and nothing is deleted when it fails.
 *
 * <p>A run's pass steps aside for the scheduler (maintenance never delays an agent):
 * between two units of work — one structure's batch, or one finished item's condensing — it asks
 * whether the scheduler has work waiting, and if so stops; the {@link Pass} it returns says which
 * structures are left, and {@link #resume} continues it with what is left of each budget. A pass
 * always does at least one unit before it steps aside, so maintenance makes progress however busy
 * the run is.
 *
 * <p>Each pass records the policy it applied ({@code max_rows}, {@code max_age_ms}) and, when it
 * deleted something, {@code last_pruned_at}, so {@code orchestrate stats} shows limits without
 * reading the config.
 */
final class SqliteRetention implements RetentionStore, AutoCloseable {
  /** Rows looked at per structure per pass, per row the budget allows deleting. */
  static final int SCAN_FACTOR = 4;

  /** Asked between two units of a pass; true: the scheduler has work waiting, step aside. */


  /** One pass's units of work so far in this call, and when to step aside. */
  private static final class Units {
    private final BooleanSupplier waiting;
    private int done;

    Units(BooleanSupplier waiting) {
      this.waiting = waiting;
    }

    void done() {
      done++;
    }

    /** At least one unit per call, so a busy scheduler never starves maintenance. */
    boolean stepAside() {
      return done > 0 && waiting.getAsBoolean();
    }
  }

  private final Connection owned;
  private final Jdbc jdbc;
  /** The state directory the database is in: job log paths are relative to it, and only its jobs/ is deleted from. */
  private final Path root;

  SqliteRetention(Jdbc jdbc, Path file) {
    this.owned = null;
    this.jdbc = jdbc;
    this.root = file.toAbsolutePath().getParent();
  }

  private SqliteRetention(Connection connection, Path file) {
    this.owned = connection;
    this.jdbc = new Jdbc(connection, file);
    this.root = file.toAbsolutePath().getParent();
  }

  @Override
  public OrphanSweep sweepOrphanJobDirectories(boolean dryRun) {
    return OrphanJobDirectories.sweep(jdbc, root, dryRun);
  }

  /** Opens its own connection (for {@code compact}); a run uses {@link SqliteStateRepository#retention()}. */
  public static SqliteRetention open(Path file) {
    return new SqliteRetention(Database.openForMaintenance(file), file);
  }

  /** Records the policies (and memory's keep_recent) in {@code structures} without deleting anything. */
  @Override
  public void recordPolicies(RetentionConfig config, int memoryKeepRecent) {
    jdbc.inTransaction(() -> {
      policy("jobs", config.jobs());
      policy("job_logs", config.jobs());
      policy("turns", config.turns());
      policy("events", config.events());
      policy("stats_samples", config.statsSamples());
      policy("worktrees", config.worktrees().policy());
      jdbc.execute("UPDATE structures SET max_rows = ?, max_age_ms = NULL WHERE name = 'memory'", memoryKeepRecent);
    });
  }

  private void policy(String structure, Policy policy) {
    jdbc.execute("UPDATE structures SET max_rows = ?, max_age_ms = ? WHERE name = ?", policy.maxRows(),
        policy.maxAge() == null ? null : policy.maxAge().toMillis(), structure);
  }

  /** Records that {@code structure} was pruned at {@code now} (by memory or event-log compaction). */
  @Override
  public void markPruned(StructureName structure, Instant now) {
    jdbc.execute("UPDATE structures SET last_pruned_at = ? WHERE name = ?", now.toEpochMilli(), structure.key());
  }

  /**
   * One budgeted pass over every structure that steps aside when {@code waiting} says the
   * scheduler has work (see the class comment); continue a pass that {@link RetentionPass#stepped()} with
   * {@link #resume}.
   */
  @Override
  public RetentionPass pass(RetentionConfig config, int memoryKeepRecent, Instant now, Condenser condenser,
      BooleanSupplier waiting) {
    recordPolicies(config, memoryKeepRecent);
    return run(config, now, condenser, waiting, new RetentionPass(Map.of(), Set.of(), StructureName.RETAINED));
  }

  /**
   * Continues a pass that stepped aside, over the structures it left, each with what is left of its
   * budget; the result counts the whole pass.
   */
  @Override
  public RetentionPass resume(RetentionPass stepped, RetentionConfig config, Instant now, Condenser condenser,
      BooleanSupplier waiting) {
    return run(config, now, condenser, waiting, stepped);
  }

  private RetentionPass run(RetentionConfig config, Instant now, Condenser condenser, BooleanSupplier waiting, RetentionPass from) {
    Map<StructureName, Long> deleted = new LinkedHashMap<>(from.deleted());
    Set<StructureName> unfinished = new HashSet<>(from.unfinished());
    Units units = new Units(waiting);
    List<StructureName> left = from.left();
    for (int i = 0; i < left.size(); i++) {
      StructureName structure = left.get(i);
      if (units.stepAside()) {
        return new RetentionPass(deleted, unfinished, left.subList(i, left.size()));
      }
      int budget = (int) Math.max(0, config.budget() - deleted.getOrDefault(structure, 0L));
      long[] result = budget == 0 ? new long[] {0, 1} : switch (structure) { // spent: more next pass
        case JOBS -> jobs(config.jobs(), budget, now);
        case TURNS -> turns(config.turns(), budget, now, condenser, units);
        case EVENTS -> simple("events", config.events(), budget, now);
        case STATS_SAMPLES -> simple("stats_samples", config.statsSamples(), budget, now);
        default -> throw new IllegalArgumentException("no retention for " + structure);
      };
      units.done();
      deleted.merge(structure, result[0], Long::sum);
      if (result[1] != 0) {
        unfinished.add(structure);
      } else {
        unfinished.remove(structure);
      }
      if (result.length > 2 && result[2] != 0) { // stepped aside inside the structure: it comes first next time
        return new RetentionPass(deleted, unfinished, left.subList(i, left.size()));
      }
    }
    return new RetentionPass(deleted, unfinished, List.of());
  }

  /**
   * Passes until every structure is within its policy (what {@code compact} runs), calling
   * {@code progress} after each pass with the rows deleted so far.
   */
  @Override
  public RetentionPass full(RetentionConfig config, int memoryKeepRecent, Instant now, Condenser condenser,
      java.util.function.LongConsumer progress) {
    Map<StructureName, Long> total = new LinkedHashMap<>();
    StructureName.RETAINED.forEach(s -> total.put(s, 0L));
    // A whole pass over the table from cursor 0; a pass that deletes nothing and reaches the end is the last.
    StructureName.RETAINED.forEach(s -> jdbc.execute("UPDATE structures SET cursor = 0 WHERE name = ?", s.key()));
    long sum = 0;
    while (true) {
      RetentionPass pass = pass(config, memoryKeepRecent, now, condenser);
      pass.deleted().forEach((k, v) -> total.merge(k, v, Long::sum));
      sum += pass.total();
      progress.accept(sum);
      if (pass.finished()) {
        return new RetentionPass(total, Set.of());
      }
    }
  }

  private record Row(long id, long at, boolean prunable, String extra) {
  }

  /** Beyond its policy: among the {@code excess} oldest, or older than the age cut-off. */
  private static final class Quota {
    long excess;
    final long cutoff;
    final int budget;
    int used;

    Quota(Policy policy, long rowsNow, int budget, Instant now) {
      this.excess = policy.targetRows().isEmpty() ? 0 : Math.max(0, rowsNow - policy.targetRows().getAsInt());
      this.cutoff = policy.maxAge() == null ? Long.MIN_VALUE : now.toEpochMilli() - policy.maxAge().toMillis();
      this.budget = budget;
    }

    boolean beyond(Row row) {
      return excess > 0 || row.at() < cutoff;
    }

    void take(long rows) {
      excess -= rows;
      used += rows;
    }

    boolean spent() {
      return used >= budget;
    }
  }

  private long rowsNow(String structure, boolean minusKept) {
    return jdbc.queryLong("SELECT rows_written - rows_pruned" + (minusKept ? " - kept_rows" : "")
        + " FROM structures WHERE name = ?", structure);
  }

  private long cursor(String structure) {
    return jdbc.queryLong("SELECT cursor FROM structures WHERE name = ?", structure);
  }

  /**
   * Walks {@code rows} (oldest first, from the cursor) and decides which to delete; returns
   * {ids..., and via the result array: next cursor, unfinished}.
   */
  private static final class Walk {
    final List<Row> delete = new ArrayList<>();
    long nextCursor;
    boolean unfinished;
    boolean boundary;
  }

  private Walk walk(List<Row> rows, Quota quota, int scanned) {
    Walk walk = new Walk();
    for (Row row : rows) {
      if (!quota.beyond(row)) {
        walk.nextCursor = 0; // the policy keeps everything from here on: start over next time
        walk.boundary = true;
        return walk;
      }
      if (row.prunable()) {
        walk.delete.add(row);
        quota.take(1);
      }
      if (quota.spent()) {
        walk.nextCursor = row.id();
        walk.unfinished = true;
        return walk;
      }
    }
    boolean more = rows.size() >= scanned;
    walk.nextCursor = more ? rows.get(rows.size() - 1).id() : 0;
    walk.unfinished = more;
    return walk;
  }

  private long[] commit(String structure, String table, Walk walk, Instant now) {
    return jdbc.inTransaction(() -> {
      int n = walk.delete.isEmpty() ? 0 : deleteIds(table, walk.delete);
      jdbc.execute("UPDATE structures SET cursor = ? WHERE name = ?", walk.nextCursor, structure);
      if (n > 0) {
        jdbc.execute("UPDATE structures SET last_pruned_at = ? WHERE name = ?", now.toEpochMilli(), structure);
      }
      return new long[] {n, walk.unfinished ? 1 : 0};
    });
  }

  private int deleteIds(String table, List<Row> rows) {
    StringBuilder sql = new StringBuilder("DELETE FROM ").append(table).append(" WHERE id IN (");
    Object[] ids = new Object[rows.size()];
    for (int i = 0; i < rows.size(); i++) {
      sql.append(i == 0 ? "?" : ",?");
      ids[i] = rows.get(i).id();
    }
    return jdbc.execute(sql.append(')').toString(), ids);
  }

  /** Job history: never a running job; each deleted job's log directory goes with it. */
  private long[] jobs(Policy policy, int budget, Instant now) {
    int scan = budget * SCAN_FACTOR;
    Quota quota = new Quota(policy, rowsNow("jobs", false), budget, now);
    List<Row> rows = jdbc.query("""
        SELECT id, COALESCE(ended_at, started_at), state, log_path FROM jobs WHERE id > ? ORDER BY id LIMIT ?""",
        rs -> new Row(rs.getLong(1), rs.getLong(2), !"running".equals(rs.getString(3)), rs.getString(4)),
        cursor("jobs"), scan);
    Walk walk = walk(rows, quota, scan);
    long[] result = commit("jobs", "jobs", walk, now);
    if (result[0] > 0) {
      jdbc.execute("UPDATE structures SET last_pruned_at = ? WHERE name = 'job_logs'", now.toEpochMilli());
    }
    // The rows are gone first: a crash in between leaves a directory no row points to (disk until
    // the next full compact sweeps orphans), never a row whose log was deleted under it.
    for (Row row : walk.delete) {
      if (row.extra() != null) {
        Path dir = jobDirectory(JobLogPaths.resolve(root, row.extra()));
        if (dir != null) {
          JobDirectories.delete(root.resolve("jobs"), dir, "the log directory of a pruned job");
        }
      }
    }
    return result;
  }

  /** Events (routine rows only, never the newest) and stats samples: every row is prunable. */
  private long[] simple(String structure, Policy policy, int budget, Instant now) {
    int scan = budget * SCAN_FACTOR;
    boolean events = structure.equals("events");
    Quota quota = new Quota(policy, rowsNow(structure, events), budget, now);
    String sql = events
        ? "SELECT id, at FROM events WHERE load_bearing = 0 AND id > ? "
            + "AND id < (SELECT MAX(id) FROM events) ORDER BY id LIMIT ?"
        : "SELECT id, at FROM stats_samples WHERE id > ? ORDER BY id LIMIT ?";
    List<Row> rows = jdbc.query(sql, rs -> new Row(rs.getLong(1), rs.getLong(2), true, null), cursor(structure), scan);
    return commit(structure, structure, walk(rows, quota, scan), now);
  }

  /**
   * Turns: covered by the item's summary → deleted; not covered, of a finished item → condensed
   * (summarize-then-prune) by {@code condenser}; not covered, of an active item → kept (the sliding
   * window covers them as the item goes on). Each condensing is a unit of the pass (it may call an
   * external summarizer): before the next one, the pass may step aside; it then deletes what it
   * walked so far and leaves the cursor before the first row it did not look at.
   *
   * @return {deleted, unfinished, stepped aside}
   */
  private long[] turns(Policy policy, int budget, Instant now, Condenser condenser, Units units) {
    int scan = budget * SCAN_FACTOR;
    long from = cursor("turns");
    Quota quota = new Quota(policy, rowsNow("turns", false), budget, now);
    List<Row> rows = jdbc.query("""
        SELECT t.id, t.created_at, t.seq <= COALESCE(s.to_seq, 0),
               CASE WHEN i.status IS NULL OR i.status IN ('done', 'blocked') THEN t.item_id END
          FROM turns t
          LEFT JOIN context_summaries s ON s.item_id = t.item_id
          LEFT JOIN items i ON i.id = t.item_id
         WHERE t.id > ? ORDER BY t.id LIMIT ?""",
        rs -> new Row(rs.getLong(1), rs.getLong(2), rs.getInt(3) == 1, rs.getString(4)), from, scan);
    long condensed = 0;
    Set<String> tried = new HashSet<>();
    List<Row> walkable = new ArrayList<>();
    int looked = rows.size();
    for (int i = 0; i < rows.size(); i++) {
      Row row = rows.get(i);
      if (!row.prunable() && row.extra() != null && quota.beyond(row) && !quota.spent()) {
        if (!tried.contains(row.extra())) {
          if (units.stepAside()) {
            looked = i;
            break;
          }
          tried.add(row.extra());
          int n = condenser.condense(row.extra());
          units.done();
          condensed += n;
          quota.take(n);
        }
        continue; // condensed (deleted) with its item, or kept because condensing failed
      }
      if (!tried.contains(row.extra()) || row.extra() == null) {
        walkable.add(row);
      }
    }
    boolean stepped = looked < rows.size();
    Walk walk = walk(walkable, quota, stepped || walkable.size() < rows.size() ? Integer.MAX_VALUE : scan);
    if (!walk.unfinished && !walk.boundary && (stepped || rows.size() >= scan)) {
      walk.unfinished = true;
      walk.nextCursor = looked == 0 ? from : rows.get(looked - 1).id();
    }
    long[] result = commit("turns", "turns", walk, now);
    if (condensed > 0) {
      jdbc.execute("UPDATE structures SET last_pruned_at = ? WHERE name = 'turns'", now.toEpochMilli());
    }
    return new long[] {result[0] + condensed, result[1], stepped && !walk.boundary ? 1 : 0};
  }

  /**
   * The job's own directory ({@code jobs/run<N>-<job>-<item>-<phase>-<attempt>}) holding the log
   * file at {@code logPath}; null for anything else, so a malformed row can never take the whole
   * jobs directory with it.
   */
  static Path jobDirectory(Path logPath) {
    Path dir = logPath.getParent();
    if (dir == null || dir.getFileName() == null || !dir.getFileName().toString().startsWith("run")
        || dir.getParent() == null || dir.getParent().getFileName() == null
        || !dir.getParent().getFileName().toString().equals("jobs")) {
      return null;
    }
    return dir;
  }

  @Override
  public void close() {
    if (owned != null) {
      try {
        owned.close();
      } catch (java.sql.SQLException e) {
        // closing a connection we only read and deleted through: nothing to lose
      }
    }
  }
}
