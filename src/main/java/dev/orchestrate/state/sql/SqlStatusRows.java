package dev.orchestrate.state.sql;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.StatusRows;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@code status}'s rows a page at a time: items by {@code seq} after the last one handed on (keyset
 * paging on its unique index, so a page costs the same at the millionth item as at the first), then
 * for that page alone, in one read each, the latest kept job's attempt, the worktrees and the
 * statuses of the dependencies. What was handed on is dropped before the next page is read.
 */
final class SqlStatusRows implements StatusRows {
  private final Jdbc jdbc;
  private final int schemaVersion;
  private final int page;

  /** Over a store's connection, which the store closes; {@code schemaVersion} as the store read it. */
  SqlStatusRows(Jdbc jdbc, int schemaVersion) {
    this(jdbc, schemaVersion, PAGE);
  }

  /** With pages of {@code page} items: tests cross page bounds with a few. */
  SqlStatusRows(Jdbc jdbc, int schemaVersion, int page) {
    this.jdbc = jdbc;
    this.schemaVersion = schemaVersion;
    this.page = page;
  }

  private record Read(ItemState item, Usage usage) {
  }

  @Override
  public void forEach(Consumer<Row> each) {
    if (schemaVersion < 1) {
      return;
    }
    String columns = columns();
    long after = Long.MIN_VALUE;
    while (true) {
      List<Read> reads = jdbc.query("SELECT " + columns + " FROM items WHERE seq > ? ORDER BY seq LIMIT ?",
          rs -> new Read(StateRows.item(rs), UsageRows.read(rs)), after, page);
      if (reads.isEmpty()) {
        return;
      }
      rows(reads).forEach(each);
      if (reads.size() < page) {
        return;
      }
      after = reads.get(reads.size() - 1).item().seq();
    }
  }

  @Override
  public Optional<Row> row(String id) {
    if (schemaVersion < 1) {
      return Optional.empty();
    }
    List<Read> reads = jdbc.query("SELECT " + columns() + " FROM items WHERE id = ?",
        rs -> new Read(StateRows.item(rs), UsageRows.read(rs)), id);
    return reads.isEmpty() ? Optional.empty() : Optional.of(rows(reads).get(0));
  }

  @Override
  public Optional<String> holder(String id) {
    if (schemaVersion < 1 || !jdbc.dialect().sharedByRunners()) {
      return Optional.empty();
    }
    String checkout = jdbc.dialect().hasColumn(jdbc, "runners", "checkout_path") ? "r.checkout_path" : "NULL";
    return jdbc.queryOne("SELECT r.id, r.host, " + checkout + " FROM items i JOIN runners r ON r.id = i.lease_owner"
        + " WHERE i.id = ?",
        rs -> "runner " + rs.getString(1) + " on " + rs.getString(2)
            + (rs.getString(3) == null ? "" : " in " + rs.getString(3)),
        id);
  }

  @Override
  public List<ItemState> followUps(String id) {
    if (!jdbc.dialect().has(Dialect.Feature.ITEM_ORIGINS, schemaVersion)) {
      return List.of();
    }
    // An exact prefix, not LIKE (SQLite's ignores case); through the follow-ups' index, as the dashboard reads them.
    String prefix = id + "/";
    return jdbc.query("""
        SELECT * FROM items WHERE origin IS NOT NULL AND (origin = ? OR substr(origin, 1, ?) = ?)
         ORDER BY seq + 0""", StateRows::item, id, prefix.length(), prefix);
  }

  private String columns() {
    return jdbc.dialect().has(Dialect.Feature.ITEM_ORIGINS, schemaVersion) ? "*" : "*, NULL AS origin";
  }

  /** The rows of these items: for them alone, in one read each, their latest attempts, worktrees and dependencies. */
  private List<Row> rows(List<Read> reads) {
    List<String> ids = reads.stream().map(r -> r.item().id()).toList();
    Map<String, Integer> attempts = latestAttempts(ids);
    Map<String, WorkspaceRecord> workspaces = workspaces(ids);
    Set<String> deps = new LinkedHashSet<>();
    reads.forEach(r -> deps.addAll(r.item().definition().dependsOn()));
    Map<String, ItemStatus> statuses = statuses(new ArrayList<>(deps));
    List<Row> rows = new ArrayList<>(reads.size());
    for (Read r : reads) {
      Map<String, ItemStatus> known = new HashMap<>();
      for (String dep : r.item().definition().dependsOn()) {
        ItemStatus s = statuses.get(dep);
        if (s != null) {
          known.put(dep, s);
        }
      }
      String id = r.item().id();
      rows.add(new Row(r.item(), r.usage(), attempts.get(id), workspaces.get(id), known));
    }
    return rows;
  }

  @Override
  public void forEachDeferred(Consumer<WorkspaceRecord> each) {
    jdbc.forEach("SELECT * FROM workspaces WHERE integration = ? AND note IS NOT NULL ORDER BY item_id",
        rs -> each.accept(SqlWorkspaceStore.record(rs)), WorkspaceRecord.Integration.DEFERRED.key());
  }

  /** The attempt of each listed item's latest kept job (by the jobs_by_item index). */
  private Map<String, Integer> latestAttempts(List<String> ids) {
    Map<String, Integer> out = new HashMap<>();
    jdbc.query("SELECT item_id, attempt FROM jobs WHERE id IN (SELECT MAX(id) FROM jobs WHERE item_id IN ("
        + marks(ids.size()) + ") GROUP BY item_id)", rs -> out.put(rs.getString(1), rs.getInt(2)), ids.toArray());
    return out;
  }

  private Map<String, WorkspaceRecord> workspaces(List<String> ids) {
    Map<String, WorkspaceRecord> out = new HashMap<>();
    jdbc.query("SELECT * FROM workspaces WHERE item_id IN (" + marks(ids.size()) + ")",
        rs -> out.put(rs.getString("item_id"), SqlWorkspaceStore.record(rs)), ids.toArray());
    return out;
  }

  /** The status of each of these ids the state knows, read {@code page} ids at a time. */
  private Map<String, ItemStatus> statuses(List<String> ids) {
    Map<String, ItemStatus> out = new HashMap<>();
    for (int from = 0; from < ids.size(); from += page) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + page));
      jdbc.query("SELECT id, status FROM items WHERE id IN (" + marks(chunk.size()) + ")",
          rs -> out.put(rs.getString(1), ItemStatus.fromKey(rs.getString(2))), chunk.toArray());
    }
    return out;
  }

  private static String marks(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }
}
