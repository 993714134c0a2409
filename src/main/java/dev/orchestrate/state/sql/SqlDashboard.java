package dev.orchestrate.state.sql;

import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.ItemHistory;
import dev.orchestrate.stats.Sample;
import dev.orchestrate.stats.StatsInput;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code orchestrate serve} shows, read without changing the database (a read-only store: no
 * migration, and on SQLite no {@code -wal}/{@code -shm} created beside a state that has none). One
 * instance serves one request: a SQLite connection opened {@code immutable} must not outlive the
 * moment it was opened for. Every list is bounded (LIMIT on the primary key or
 * {@code seq}, which are indexed); only a filter on priority, tag or text scans the items table
 * (once, and only until it has counted past a cap), and the status counts read an index (schema 19).
 */
final class SqlDashboard implements DashboardQueries {
  private final Jdbc jdbc;
  /** The local state directory job log paths are resolved against. */
  private final Path root;

  /** The schema version the store read when it opened. */
  private final int schemaVersion;

  /** Over a store's connection, which the store closes; {@code schemaVersion} as the store read it. */
  SqlDashboard(Jdbc jdbc, Path root, int schemaVersion) {
    this.jdbc = jdbc;
    this.root = root;
    this.schemaVersion = schemaVersion;
  }

  @Override
  public boolean readable() {
    return jdbc.dialect().has(Dialect.Feature.DASHBOARD, schemaVersion);
  }

  /** Items per status key, every status the items table holds. */
  @Override
  public Map<String, Long> statusCounts() {
    Map<String, Long> counts = new LinkedHashMap<>();
    jdbc.query("SELECT status, COUNT(*) FROM items GROUP BY status",
        rs -> counts.put(rs.getString(1), rs.getLong(2)));
    return counts;
  }

  /**
   * The items that pass {@code filter}, in backlog order, {@code limit} from {@code offset}. With no
   * filter or a status filter alone, the rows come through the {@code seq} or {@code items_by_status}
   * index and the count from one. Any other filter is a condition on every row (no index holds a
   * priority, a tag or a substring): one scan in the table's own order collects the {@code seq} of
   * at most {@code countCap + 1} matches and stops. Fewer than that is the whole list, exactly
   * counted, its page fetched by {@code seq}; more (a common match, found early in the scan) and the
   * page is read in backlog order with one row beyond it, which says whether another page follows,
   * and the total is a lower bound.
   */
  @Override
  public Page<ItemState> items(DashboardFilter filter, int limit, int offset, int countCap) {
    if (filter.priority() == null && filter.tag() == null && filter.text() == null) {
      return indexedItems(filter.status(), limit, offset);
    }
    StringBuilder where = new StringBuilder(" WHERE 1 = 1");
    List<Object> params = new ArrayList<>();
    if (filter.status() != null) {
      where.append(" AND status = ?");
      params.add(filter.status());
    }
    if (filter.priority() != null) {
      where.append(" AND priority = ?");
      params.add(filter.priority());
    }
    if (filter.tag() != null) {
      if (literalInJson(filter.tag())) {
        // The tag as its JSON string is in the text first: a cheap test that spares most rows the
        // JSON parse (a million tag arrays: 0.33 s parsed, 0.10 s searched as text).
        where.append(" AND ").append(jdbc.dialect().contains("items.tags", "?"));
        params.add('"' + filter.tag() + '"');
      }
      where.append(" AND ").append(jdbc.dialect().tagged("items.tags"));
      params.add(filter.tag());
    }
    if (filter.text() != null) {
      // Without a letter there is no case to ignore: the plain substring test skips the folding
      // (SQLite: about a sixth less time over a million ids and titles).
      boolean letters = filter.text().codePoints().anyMatch(
          c -> Character.isLetter(c) || Character.toLowerCase(c) != c || Character.toUpperCase(c) != c);
      Dialect d = jdbc.dialect();
      where.append(" AND (").append(letters ? d.containsIgnoringCase("id", "?") : d.contains("id", "?"))
          .append(" OR ").append(letters ? d.containsIgnoringCase("title", "?") : d.contains("title", "?"))
          .append(')');
      params.add(filter.text());
      params.add(filter.text());
    }
    List<Object> capped = new ArrayList<>(params);
    capped.add(countCap + 1L);
    List<Long> seqs = new ArrayList<>(jdbc.query("SELECT seq FROM items" + where + " LIMIT ?", rs -> rs.getLong(1),
        capped.toArray()));
    if (seqs.size() <= countCap) {
      Collections.sort(seqs);
      List<Long> shown = seqs.subList(Math.min(offset, seqs.size()),
          (int) Math.min(offset + (long) limit, seqs.size()));
      List<ItemState> rows = shown.isEmpty() ? List.of()
          : jdbc.query("SELECT * FROM items WHERE seq IN (" + String.join(", ", Collections.nCopies(shown.size(), "?"))
              + ") ORDER BY seq", StateRows::item, shown.toArray());
      return new Page<>(rows, seqs.size());
    }
    List<Object> paged = new ArrayList<>(params);
    paged.add(limit + 1);
    paged.add(offset);
    List<ItemState> rows = jdbc.query("SELECT * FROM items" + where + " ORDER BY seq LIMIT ? OFFSET ?",
        StateRows::item, paged.toArray());
    if (rows.size() > limit) {
      return new Page<>(rows.subList(0, limit), Math.max(countCap, offset + (long) limit), true);
    }
    // The last page: the list ends here, so its length is known.
    return rows.isEmpty() ? new Page<>(rows, countCap, true) : new Page<>(rows, offset + (long) rows.size());
  }

  /**
   * Whether every string holding {@code tag} among a JSON array's elements holds it as the tag
   * itself between quotes: true for printable ASCII other than a quote and a backslash, which JSON
   * writers (Jackson for orchestrate, SQLite's and PostgreSQL's JSON functions) never escape.
   */
  private static boolean literalInJson(String tag) {
    for (int i = 0; i < tag.length(); i++) {
      char c = tag.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  /**
   * A page of every item, or of one status, through an index: the page's first {@code seq} is found
   * by stepping over {@code offset} entries of the index alone (the {@code seq} index, or
   * {@code items_by_status}, which holds the seq), and its rows are read from there; the total is
   * counted from an index too, unless a short page already says where the list ends.
   */
  private Page<ItemState> indexedItems(String status, int limit, int offset) {
    String where = status == null ? "" : " WHERE status = ?";
    String and = status == null ? " WHERE " : " AND ";
    Object[] statusParam = status == null ? new Object[0] : new Object[] {status};
    List<Object> paged = new ArrayList<>(List.of(statusParam));
    paged.addAll(List.of(statusParam));
    paged.add(offset);
    paged.add(limit);
    List<ItemState> rows = jdbc.query("SELECT * FROM items" + where + and + "seq >= (SELECT seq FROM items" + where
        + " ORDER BY seq LIMIT 1 OFFSET ?) ORDER BY seq LIMIT ?", StateRows::item, paged.toArray());
    // A short page that holds a row is the end of the list: its total is known without counting.
    long total = !rows.isEmpty() && rows.size() < limit ? offset + rows.size()
        : jdbc.queryLong("SELECT COUNT(*) FROM items" + where, statusParam);
    return new Page<>(rows, total);
  }

  @Override
  public Optional<ItemState> item(String id) {
    return jdbc.queryOne("SELECT * FROM items WHERE id = ?", StateRows::item, id);
  }

  /** The item's jobs retention kept, newest first, at most {@code limit}. */
  @Override
  public List<JobRecord> itemJobs(String itemId, int limit) {
    return jdbc.query(
        "SELECT " + StateRows.JOB_COLUMNS + " FROM jobs WHERE item_id = ? ORDER BY id DESC LIMIT ?",
        rs -> StateRows.job(rs, root), itemId, limit);
  }

  /** The attempt of each listed item's latest job (items without a kept job are left out). */
  @Override
  public Map<String, Integer> latestAttempts(List<String> itemIds) {
    Map<String, Integer> attempts = new LinkedHashMap<>();
    for (String id : itemIds) {
      jdbc.queryOne("SELECT attempt FROM jobs WHERE item_id = ? ORDER BY id DESC LIMIT 1", rs -> rs.getInt(1), id)
          .ifPresent(a -> attempts.put(id, a));
    }
    return attempts;
  }

  @Override
  public Optional<JobRecord> job(long id) {
    return jdbc.queryOne("SELECT " + StateRows.JOB_COLUMNS + " FROM jobs WHERE id = ?",
        rs -> StateRows.job(rs, root), id);
  }

  @Override
  public List<ItemHistory.Landing> landings(String itemId, int limit) {
    return new SqlItemHistory(jdbc, root).landings(itemId, limit);
  }

  /** The agents' answers kept as turns, in order, at most the last {@code limit}. */
  @Override
  public List<ItemHistory.KeptAnswer> answers(String itemId, int limit) {
    List<ItemHistory.KeptAnswer> answers = new ArrayList<>(jdbc.query("""
        SELECT phase, attempt, text FROM turns WHERE item_id = ? AND role = 'assistant' ORDER BY seq DESC LIMIT ?""",
        rs -> new ItemHistory.KeptAnswer(rs.getString(1), rs.getInt(2), rs.getString(3)), itemId, limit));
    Collections.reverse(answers);
    return answers;
  }

  @Override
  public Optional<String> contextSummary(String itemId) {
    return jdbc.queryOne("SELECT text FROM context_summaries WHERE item_id = ?", rs -> rs.getString(1), itemId);
  }

  /** The follow-ups an item's agents reported, in backlog order, at most {@code limit}. */
  @Override
  public List<ItemState> followUps(String itemId, int limit) {
    // An exact prefix, not LIKE: SQLite's LIKE ignores case, and ids are compared exactly.
    String prefix = itemId + "/";
    // Through the follow-ups' own index (schema 17): "seq + 0" keeps SQLite from walking every item in seq order instead.
    return jdbc.query("""
        SELECT * FROM items WHERE origin IS NOT NULL AND (origin = ? OR substr(origin, 1, ?) = ?)
         ORDER BY seq + 0 LIMIT ?""", StateRows::item, itemId, prefix.length(), prefix, limit);
  }

  /** Jobs newest first: those with an id below {@code beforeId} (keyset paging), at most {@code limit}. */
  @Override
  public Page<JobRecord> jobs(long beforeId, int limit) {
    long total = jdbc.queryLong("SELECT COUNT(*) FROM jobs");
    return new Page<>(
        jdbc.query("SELECT " + StateRows.JOB_COLUMNS + " FROM jobs WHERE id < ? ORDER BY id DESC LIMIT ?",
            rs -> StateRows.job(rs, root), beforeId, limit),
        total);
  }

  /** The jobs still marked running (a partial index holds exactly these). */
  @Override
  public List<JobRecord> runningJobs(int limit) {
    return jdbc.query(
        "SELECT " + StateRows.JOB_COLUMNS + " FROM jobs WHERE state = 'running' ORDER BY id LIMIT ?",
        rs -> StateRows.job(rs, root), limit);
  }

  @Override
  public Optional<RunRecord> lastRun() {
    return StateRows.lastRun(jdbc);
  }

  /**
   * Whether {@code table} has {@code column}: figures that later schemas add (usage and cost per
   * job and run) are shown only when the state has them.
   */
  private boolean hasColumn(String table, String column) {
    return jdbc.dialect().hasColumn(jdbc, table, column);
  }

  /**
   * Waiting longest first: an item awaiting review by when it entered the status
   * ({@code review_since}, its last change on a state that predates the column), a blocked one by its
   * last change, when it was blocked. Few items wait, and the status index finds them.
   */
  @Override
  public Page<Waiting> waiting(ItemStatus status, int limit) {
    boolean reviewSince = status == ItemStatus.AWAITING_REVIEW && hasColumn("items", "review_since");
    String since = reviewSince ? "COALESCE(review_since, updated_at)" : "updated_at";
    boolean decisions = hasColumn("review_decisions", "item_id");
    String queued = decisions ? "EXISTS (SELECT 1 FROM review_decisions d WHERE d.item_id = items.id)" : "0 = 1";
    List<Waiting> rows = jdbc.query("SELECT items.*, " + since + " AS waiting_since, CASE WHEN " + queued
        + " THEN 1 ELSE 0 END AS decision_queued FROM items WHERE status = ? ORDER BY " + since + ", seq LIMIT ?",
        rs -> new Waiting(StateRows.item(rs), Columns.instantOrNull(rs, "waiting_since"),
            rs.getInt("decision_queued") == 1),
        status.key(), limit);
    return new Page<>(rows, jdbc.queryLong("SELECT COUNT(*) FROM items WHERE status = ?", status.key()));
  }

  /** The item's git worktree (execution.workspace: worktree), or empty when it has none or the state predates them. */
  @Override
  public Optional<WorkspaceRecord> workspace(String itemId) {
    if (!hasColumn("workspaces", "item_id")) {
      return Optional.empty();
    }
    return jdbc.queryOne("SELECT * FROM workspaces WHERE item_id = ?", SqlWorkspaceStore::record, itemId);
  }

  /** The run's spend so far (its jobs' reported cost), or empty when this state records no cost. */
  @Override
  public Optional<Spend> runSpend(long runId) {
    if (!hasColumn("jobs", "cost_usd")) {
      return Optional.empty();
    }
    boolean budget = hasColumn("runs", "max_cost_usd");
    Object[] params = budget ? new Object[] {runId, runId} : new Object[] {runId};
    return jdbc.queryOne("SELECT COALESCE(SUM(cost_usd), 0), COUNT(cost_usd), "
        + (budget ? "(SELECT max_cost_usd FROM runs WHERE id = ?)" : "NULL") + " FROM jobs WHERE run_id = ?",
        rs -> {
          Double limitUsd = Columns.doubleOrNull(rs, 3);
          return new Spend(rs.getDouble(1), rs.getLong(2), limitUsd);
        }, params);
  }

  /** The reported cost of each of these jobs that has one, or empty when this state records no cost. */
  @Override
  public Map<Long, Double> jobCosts(List<Long> jobIds) {
    Map<Long, Double> costs = new LinkedHashMap<>();
    if (jobIds.isEmpty() || !hasColumn("jobs", "cost_usd")) {
      return costs;
    }
    String marks = String.join(", ", Collections.nCopies(jobIds.size(), "?"));
    jdbc.query("SELECT id, cost_usd FROM jobs WHERE cost_usd IS NOT NULL AND id IN (" + marks + ")",
        rs -> costs.put(rs.getLong(1), rs.getDouble(2)), jobIds.toArray());
    return costs;
  }

  @Override
  public Map<Long, OutcomeClass> jobOutcomes(List<Long> jobIds) {
    return StateRows.outcomes(jdbc, jobIds);
  }

  @Override
  public Map<Long, AgentSession> jobSessions(List<Long> jobIds) {
    return JobChecks.sessions(jdbc, jobIds);
  }

  @Override
  public Map<Long, List<CheckRecord>> jobChecks(List<Long> jobIds) {
    return JobChecks.checks(jdbc, jobIds);
  }

  @Override
  public List<AgentPauses.Pause> pauses() {
    return new SqlAgentPauses(jdbc).all();
  }

  /** Items done or blocked since {@code at} (their last change came after it): a run's pace. */
  @Override
  public long itemsFinishedSince(Instant at) {
    return jdbc.queryLong("SELECT COUNT(*) FROM items WHERE status IN ('done', 'blocked') AND updated_at >= ?",
        at.toEpochMilli());
  }

  /** Jobs of the run per result key ({@code running} for those without a result yet). */
  @Override
  public Map<String, Long> runJobResults(long runId) {
    Map<String, Long> results = new LinkedHashMap<>();
    jdbc.query("SELECT COALESCE(result, state), COUNT(*) FROM jobs WHERE run_id = ? GROUP BY 1 ORDER BY 1",
        rs -> results.put(rs.getString(1), rs.getLong(2)), runId);
    return results;
  }

  /** The figures {@code stats} reads, read the same way but without migrating or sampling. */
  @Override
  public StatsInput stats(Instant now) {
    return new SqlStats(jdbc).read(now);
  }

  /** The most recent {@code limit} stats samples, in time order. */
  @Override
  public List<Sample> samples(int limit) {
    // The newest by id (the primary key), drawn in time order: a sample recorded with a clock set back stays on the axis.
    return jdbc.query("""
        SELECT at, source, db_bytes, rows FROM (SELECT * FROM stats_samples ORDER BY id DESC LIMIT ?) AS newest
         ORDER BY at, id""",
        rs -> new Sample(Instant.ofEpochMilli(rs.getLong(1)), rs.getString(2), rs.getLong(3),
            SqlStats.counts(rs.getString(4))),
        limit);
  }

  /** The summary-map and job-table bounds of the last {@code limit} runs, newest first. */
  @Override
  public List<RunBounds> runBounds(int limit) {
    return jdbc.query("""
        SELECT id, started_at, ended_at, halt_reason, summary_map_peak, summary_map_final, job_table_peak_active,
               job_table_peak_inactive, job_table_final FROM runs ORDER BY id DESC LIMIT ?""",
        rs -> new RunBounds(rs.getLong(1), Instant.ofEpochMilli(rs.getLong(2)), Columns.longOrNull(rs, 3),
            rs.getString(4), Columns.longOrNull(rs, 5), Columns.longOrNull(rs, 6), Columns.longOrNull(rs, 7),
            Columns.longOrNull(rs, 8),
            Columns.longOrNull(rs, 9)),
        limit);
  }

  /**
   * The load-bearing items, the most recent prunable ones and what {@code compact --keep-recent
   * keepRecent} would delete: {@link SqlMemoryRepository#preview}, the dry run itself.
   */
  @Override
  public MemoryView memory(int keepRecent, int limit) {
    SqlMemoryRepository memories = new SqlMemoryRepository(jdbc, false);
    List<MemoryItem> loadBearing = memories.activeLoadBearing();
    return new MemoryView(loadBearing.subList(0, Math.min(limit, loadBearing.size())),
        memories.recentPrunable(limit), memories.preview(keepRecent, limit), keepRecent);
  }

  /** The keep_recent the last run or compact recorded, or the default. */
  @Override
  public int recordedKeepRecent() {
    return new SqlStateReader(jdbc).recordedPolicies().memoryKeepRecent();
  }

}
