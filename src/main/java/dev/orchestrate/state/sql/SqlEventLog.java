package dev.orchestrate.state.sql;

import dev.orchestrate.item.Event;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.item.EventLogPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The event log over the state database: read back newest first, and compacted. Compaction's rule
 * lives in {@link EventLogPolicy} (Java), so the log is read newest first in pages and the prunable
 * ids of each page are deleted in their own short transaction: a concurrent run waits at most one
 * page's DELETE.
 */
final class SqlEventLog implements EventLog {
  static final int PAGE = 5_000;

  private final Jdbc jdbc;

  /** Over a store's connection, which the store closes. */
  SqlEventLog(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  private record Row(long id, String kind, String payload) {
  }

  @Override
  public List<Entry> recent(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    return jdbc.query("SELECT at, item_id, kind, payload FROM events ORDER BY id DESC LIMIT ?",
        rs -> new Entry(Instant.ofEpochMilli(rs.getLong(1)),
            new Event(rs.getString(2), rs.getString(3), JsonText.parseScalars(rs.getString(4)))),
        limit);
  }

  @Override
  public EventCompaction compact(int keepRecent, boolean dryRun) {
    if (keepRecent < 0) {
      throw new IllegalArgumentException("events keep_recent must be 0 or more, got " + keepRecent);
    }
    long deleted = 0;
    long loadBearing = 0;
    long recent = 0;
    long newest = jdbc.queryLong("SELECT COALESCE(MAX(id), 0) FROM events");
    long before = newest + 1; // rows newer than the start of the pass are left to the next pass
    while (true) {
      List<Row> page = jdbc.query("SELECT id, kind, payload FROM events WHERE id < ? ORDER BY id DESC LIMIT ?",
          rs -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3)), before, PAGE);
      if (page.isEmpty()) {
        break;
      }
      List<Long> prune = new ArrayList<>();
      for (Row row : page) {
        if (row.id() == newest || EventLogPolicy.isLoadBearing(row.kind(), JsonText.parseObject(row.payload()))) {
          loadBearing++;
        } else if (recent < keepRecent) {
          recent++;
        } else {
          prune.add(row.id());
        }
      }
      if (!prune.isEmpty()) {
        deleted += dryRun ? prune.size() : delete(prune);
      }
      before = page.get(page.size() - 1).id();
    }
    return new EventCompaction(deleted, loadBearing, recent);
  }

  private int delete(List<Long> ids) {
    StringBuilder in = new StringBuilder("DELETE FROM events WHERE id IN (");
    for (int i = 0; i < ids.size(); i++) {
      in.append(i == 0 ? "?" : ",?");
    }
    in.append(')');
    return jdbc.inTransaction(() -> jdbc.execute(in.toString(), ids.toArray()));
  }
}
