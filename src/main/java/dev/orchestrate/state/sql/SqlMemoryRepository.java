package dev.orchestrate.state.sql;

import dev.orchestrate.memory.MemoryCompaction;
import dev.orchestrate.memory.MemoryException;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.memory.MemoryKind;
import dev.orchestrate.memory.MemoryRepository;
import dev.orchestrate.memory.NewMemory;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link MemoryRepository} of the SQL backends, on its store's connection (the run's, or a
 * maintenance one for {@code compact} and {@code memory import}).
 */
final class SqlMemoryRepository implements MemoryRepository, AutoCloseable {
  /** Rows per import transaction: large enough to amortise the commit, small enough not to hold the lock long. */
  static final int IMPORT_BATCH = 50_000;
  /** A batch from which an import counts its rows once ({@link CountersPaused}) instead of per row. */
  static final int COUNTED_ONCE = 1000;
  /** Ids of a batch looked up to guess whether it is new (SQLite allows 32,766 parameters). */
  private static final int ID_PROBE = 500;
  /** The SQLite triggers that count memories written, paused for a batch of new rows. */
  private static final List<String> COUNTING_TRIGGERS = List.of("memory_written", "memory_kept", "memory_kept_changed");

  private static final String UPSERT = """
      INSERT INTO memories (seq, id, kind, title, content, tags, source_item, created_at, load_bearing)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, title = excluded.title, content = excluded.content,
        tags = excluded.tags, source_item = COALESCE(excluded.source_item, memories.source_item),
        load_bearing = excluded.load_bearing""";
  private static final String ACTIVE_PRUNABLE = "load_bearing = 0 AND superseded_by IS NULL";
  private static final String ACTIVE_LOAD_BEARING = "load_bearing = 1 AND superseded_by IS NULL";

  private final Jdbc jdbc;
  private final boolean ownsConnection;

  /** On {@code jdbc}'s connection, sharing its transactions, commit checks and busy waiting. */
  SqlMemoryRepository(Jdbc jdbc, boolean ownsConnection) {
    this.ownsConnection = ownsConnection;
    this.jdbc = jdbc;
  }

  @Override
  public MemoryItem put(NewMemory memory, Instant now) {
    String id = jdbc.inTransaction(() -> {
      long seq = nextSeq();
      String key = memory.id() != null ? memory.id() : generatedId(seq);
      jdbc.execute(UPSERT, seq, key, memory.kind().key(), memory.title(), memory.content(),
          JsonText.array(memory.tags()), memory.sourceItem(), now.toEpochMilli(), memory.isLoadBearing() ? 1 : 0);
      TruncatedWrites.countIf(jdbc, "memory", memory.truncated());
      event(now, memory.sourceItem(), "memory.put", Map.of("id", key, "kind", memory.kind().key()));
      return key;
    });
    return get(id).orElseThrow();
  }

  private long nextSeq() {
    return jdbc.queryLong("SELECT COALESCE(MAX(seq), 0) FROM memories") + 1;
  }

  private static String generatedId(long seq) {
    return "m-" + seq;
  }

  @Override
  public Optional<MemoryItem> get(String id) {
    return jdbc.queryOne("SELECT * FROM memories WHERE id = ?", SqlMemoryRepository::item, id);
  }

  @Override
  public List<MemoryItem> listActive(MemoryKind kind, String tag) {
    StringBuilder sql = new StringBuilder("SELECT * FROM memories WHERE superseded_by IS NULL");
    List<Object> params = new ArrayList<>();
    if (kind != null) {
      sql.append(" AND kind = ?");
      params.add(kind.key());
    }
    if (tag != null) {
      sql.append(" AND ").append(jdbc.dialect().tagged("memories.tags"));
      params.add(tag);
    }
    sql.append(" ORDER BY seq");
    return jdbc.query(sql.toString(), SqlMemoryRepository::item, params.toArray());
  }

  @Override
  public List<MemoryItem> activeLoadBearing() {
    return jdbc.query("SELECT * FROM memories WHERE " + ACTIVE_LOAD_BEARING + " ORDER BY seq",
        SqlMemoryRepository::item);
  }

  @Override
  public List<MemoryItem> recentPrunable(int limit) {
    return jdbc.query("SELECT * FROM memories WHERE " + ACTIVE_PRUNABLE + " ORDER BY seq DESC LIMIT ?",
        SqlMemoryRepository::item, limit);
  }

  @Override
  public void supersede(String id, String by, Instant now) {
    if (id.equals(by)) {
      throw new MemoryException("memory " + id + " cannot supersede itself");
    }
    jdbc.inTransaction(() -> {
      if (get(by).isEmpty()) {
        throw new MemoryException("no memory with id '" + by + "' (the replacement must exist)");
      }
      if (jdbc.execute("UPDATE memories SET superseded_by = ? WHERE id = ?", by, id) != 1) {
        throw new MemoryException("no memory with id '" + id + "'");
      }
      event(now, null, "memory.superseded", Map.of("id", id, "by", by));
    });
  }

  @Override
  public long importAll(Iterator<NewMemory> memories, Instant now) {
    long total = 0;
    try (PreparedStatement ps = jdbc.connection().prepareStatement(UPSERT)) {
      while (memories.hasNext()) {
        total += jdbc.inTransaction(() -> importBatch(ps, memories, now));
      }
    } catch (SQLException e) {
      throw jdbc.failure("memory import", e);
    }
    long imported = total;
    if (imported > 0) {
      Events.insert(jdbc, now.toEpochMilli(), null, "memory.imported", Map.<String, Object>of("count", imported));
    }
    return imported;
  }

  private long importBatch(PreparedStatement ps, Iterator<NewMemory> memories, Instant now) {
    List<NewMemory> batch = new ArrayList<>();
    while (batch.size() < IMPORT_BATCH && memories.hasNext()) {
      batch.add(memories.next());
    }
    long first = nextSeq();
    if (batch.size() < COUNTED_ONCE || !countedOnce(ps, batch, first, now)) {
      write(ps, batch, first, now);
    }
    TruncatedWrites.count(jdbc, "memory", (int) batch.stream().filter(NewMemory::truncated).count());
    return batch.size();
  }

  /**
   * Writes {@code batch} with the counting triggers paused and counts its rows once, when every
   * line inserted a row of its own (then no update trigger would have fired, and each new row's
   * load-bearing flag is the one its insert would have counted); otherwise (an id stored already
   * or twice in the batch) undoes it all, triggers included, and says so: the batch is written
   * again with the triggers.
   *
   * @return whether the batch is written and counted
   */
  private boolean countedOnce(PreparedStatement ps, List<NewMemory> batch, long first, Instant now) {
    if (!allNew(batch, first)) {
      return false; // a file imported again: its rows are updates, which the triggers count
    }
    jdbc.execute("SAVEPOINT memory_import");
    CountersPaused paused = CountersPaused.pause(jdbc, COUNTING_TRIGGERS);
    if (paused != null) {
      write(ps, batch, first, now);
      if (jdbc.queryLong("SELECT COUNT(*) FROM memories WHERE seq >= ?", first) == batch.size()) {
        jdbc.execute("UPDATE structures SET rows_written = rows_written + ?, kept_rows = kept_rows"
            + " + (SELECT COUNT(*) FROM memories WHERE seq >= ? AND (load_bearing = 1 OR superseded_by IS NOT NULL))"
            + " WHERE name = 'memory'", batch.size(), first);
        paused.resume();
        jdbc.execute("RELEASE memory_import");
        return true;
      }
      jdbc.execute("ROLLBACK TO memory_import");
    }
    jdbc.execute("RELEASE memory_import");
    return false;
  }

  /**
   * Whether every line of {@code batch} looks like a new row: its ids distinct, and the first
   * {@link #ID_PROBE} of them not stored (a file imported again, or a batch a killed import wrote,
   * has them all stored). A guess only: {@link #countedOnce} checks what was inserted, and rolls
   * back what a guess got wrong.
   */
  private boolean allNew(List<NewMemory> batch, long first) {
    List<String> ids = new ArrayList<>(batch.size());
    java.util.Set<String> distinct = new java.util.HashSet<>();
    long seq = first;
    for (NewMemory m : batch) {
      String id = m.id() != null ? m.id() : generatedId(seq++);
      if (!distinct.add(id)) {
        return false;
      }
      ids.add(id);
    }
    if (first == 1) {
      return true; // an empty table
    }
    List<String> sample = ids.subList(0, Math.min(ids.size(), ID_PROBE));
    String in = String.join(", ", java.util.Collections.nCopies(sample.size(), "?"));
    return jdbc.queryOne("SELECT 1 FROM memories WHERE id IN (" + in + ") LIMIT 1", rs -> 1, sample.toArray())
        .isEmpty();
  }

  private void write(PreparedStatement ps, List<NewMemory> batch, long first, Instant now) {
    long seq = first;
    long at = now.toEpochMilli();
    try {
      for (NewMemory m : batch) {
        ps.setLong(1, seq);
        ps.setString(2, m.id() != null ? m.id() : generatedId(seq));
        ps.setString(3, m.kind().key());
        ps.setString(4, m.title());
        ps.setString(5, m.content());
        ps.setString(6, JsonText.array(m.tags()));
        ps.setString(7, m.sourceItem());
        ps.setLong(8, at);
        ps.setInt(9, m.isLoadBearing() ? 1 : 0);
        ps.addBatch();
        seq++;
      }
      ps.executeBatch();
    } catch (SQLException e) {
      throw jdbc.failure("memory import", e);
    }
  }

  @Override
  public long size() {
    return jdbc.queryLong("SELECT COUNT(*) FROM memories");
  }

  @Override
  public MemoryCompaction preview(int keepRecent, int sampleLimit) {
    requireKeep(keepRecent);
    long prunable = jdbc.queryLong("SELECT COUNT(*) FROM memories WHERE " + ACTIVE_PRUNABLE);
    long wouldDelete = Math.max(0, prunable - keepRecent);
    List<String> ids = wouldDelete == 0 ? List.of() : jdbc.query(
        "SELECT id FROM memories WHERE " + ACTIVE_PRUNABLE + " ORDER BY seq LIMIT ?",
        rs -> rs.getString(1), Math.min(wouldDelete, sampleLimit));
    return new MemoryCompaction(true, wouldDelete, loadBearingCount(), prunable - wouldDelete, supersededCount(),
        protectedBy(), ids);
  }

  @Override
  public MemoryCompaction compact(int keepRecent, Instant now) {
    requireKeep(keepRecent);
    return jdbc.inTransaction(() -> {
      int deleted = bulk(keepRecent) ? bulkDelete(keepRecent) : jdbc.execute(deleteStatement(keepRecent));
      if (deleted > 0) {
        event(now, null, "memory.compacted", Map.of("deleted", deleted, "keep_recent", keepRecent));
      }
      long kept = jdbc.queryLong("SELECT COUNT(*) FROM memories WHERE " + ACTIVE_PRUNABLE);
      return new MemoryCompaction(false, deleted, loadBearingCount(), kept, supersededCount(), protectedBy(),
          List.of());
    });
  }

  /**
   * Whether this compaction deletes most of a large table: then dropping the two indexes that
   * every deleted row would otherwise be removed from, deleting, and rebuilding them over the
   * survivors is several times cheaper than one DELETE maintaining them row by row (the id index
   * in particular is visited in random order). All of it happens in the one transaction, so
   * other connections see either the old table or the compacted one.
   */
  private boolean bulk(int keepRecent) {
    long prunable = jdbc.queryLong("SELECT COUNT(*) FROM memories WHERE " + ACTIVE_PRUNABLE);
    long toDelete = prunable - keepRecent;
    long rowsAtMost = jdbc.queryLong("SELECT COALESCE(MAX(seq) - MIN(seq) + 1, 0) FROM memories");
    return toDelete >= BULK_MIN_ROWS && toDelete * 2 >= rowsAtMost;
  }

  private int bulkDelete(int keepRecent) {
    jdbc.execute("DROP INDEX memories_id");
    jdbc.execute("DROP INDEX memories_prunable");
    int deleted = jdbc.execute(deleteStatement(keepRecent));
    jdbc.execute(ID_INDEX);
    jdbc.execute(PRUNABLE_INDEX);
    return deleted;
  }

  /** Deleting at least this many rows, and at least half the table, takes the drop-and-rebuild path. */
  static final int BULK_MIN_ROWS = 20_000;
  /** Exactly as in SQLite's V2__memory.sql and PostgreSQL's V1__initial.sql (a test compares them with the schema). */
  static final String ID_INDEX = "CREATE UNIQUE INDEX memories_id ON memories(id)";
  static final String PRUNABLE_INDEX = "CREATE INDEX memories_prunable ON memories(seq) WHERE load_bearing = 0 AND superseded_by IS NULL";

  /** The one DELETE of a compaction; {@code docs/benchmarks.md} runs the same text in the sqlite3 tool. */
  static String deleteStatement(int keepRecent) {
    if (keepRecent == 0) {
      return "DELETE FROM memories WHERE " + ACTIVE_PRUNABLE;
    }
    return "DELETE FROM memories WHERE " + ACTIVE_PRUNABLE + " AND seq < (SELECT seq FROM memories WHERE "
        + ACTIVE_PRUNABLE + " ORDER BY seq DESC LIMIT 1 OFFSET " + (keepRecent - 1) + ")";
  }

  private static void requireKeep(int keepRecent) {
    if (keepRecent < 0) {
      throw new IllegalArgumentException("keep-recent must be 0 or more, got " + keepRecent);
    }
  }

  private long loadBearingCount() {
    return jdbc.queryLong("SELECT COUNT(*) FROM memories WHERE " + ACTIVE_LOAD_BEARING);
  }

  private long supersededCount() {
    return jdbc.queryLong("SELECT COUNT(*) FROM memories WHERE superseded_by IS NOT NULL");
  }

  /** Why the active load-bearing items stay, counted per reason (a kind, or the rejected-path tag). */
  private Map<String, Long> protectedBy() {
    Map<String, Long> out = new LinkedHashMap<>();
    jdbc.query("SELECT kind, COUNT(*) FROM memories WHERE " + ACTIVE_LOAD_BEARING + " GROUP BY kind",
        rs -> out.put(rs.getString(1).equals("episodic") ? MemoryItem.REJECTED_PATH : rs.getString(1), rs.getLong(2)));
    return out;
  }

  private void event(Instant now, String itemId, String kind, Map<String, Object> payload) {
    Events.insert(jdbc, now.toEpochMilli(), itemId, kind, payload);
  }

  private static MemoryItem item(ResultSet rs) throws SQLException {
    return new MemoryItem(rs.getLong("seq"), rs.getString("id"), MemoryKind.fromKey(rs.getString("kind")),
        rs.getString("title"), rs.getString("content"), JsonText.parseArray(rs.getString("tags")),
        rs.getString("source_item"), Instant.ofEpochMilli(rs.getLong("created_at")), rs.getString("superseded_by"));
  }

  @Override
  public void close() {
    if (ownsConnection) {
      jdbc.close();
    }
  }
}
