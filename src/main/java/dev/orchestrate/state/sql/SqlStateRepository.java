package dev.orchestrate.state.sql;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.context.TurnRepository;
import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.Event;
import dev.orchestrate.item.FollowUpItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobEnd;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.JobStart;
import dev.orchestrate.item.LeaseLostException;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.ReviewDecision;
import dev.orchestrate.item.RunFigures;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.jobs.AgentSession;
import dev.orchestrate.jobs.CommandRun;
import dev.orchestrate.jobs.JobState;
import dev.orchestrate.jobs.OutcomeClass;
import dev.orchestrate.jobs.Usage;
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.state.StoreException;
import dev.orchestrate.workspace.WorkspaceStore;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The {@link StateRepository} of the SQL backends. One instance works on its store's connection. */
final class SqlStateRepository implements StateRepository, AutoCloseable {
  private final Jdbc jdbc;

  /** The state directory: job log paths are stored relative to it. */
  private final Path root;

  /** Where this runner's job directories are: {@code root/jobs}, or a directory of its own. */
  private final Path jobs;

  /** Reads items as the schema found allows (a read-only store may hold an older one). */
  private final SqlStateReader reader;

  /** The item leases every item write is conditional on, when several runners share the state. */
  private SqlItemLeases leases;

  SqlStateRepository(Jdbc jdbc, Path root, Path jobs) {
    this.root = root;
    this.jobs = jobs;
    this.jdbc = jdbc;
    this.reader = new SqlStateReader(jdbc);
  }

  SqlStateReader reader() {
    return reader;
  }

  /** From now on, every item write is fenced by {@code leases}, and jobs and runs name its runner. */
  void fencedBy(SqlItemLeases leases) {
    this.leases = leases;
  }

  /**
   * Project memory on this repository's connection, for the run: no second connection, no second
   * migration check. Closing it leaves the connection open; closing this repository closes it.
   */
  SqlMemoryRepository memoryRepository() {
    return new SqlMemoryRepository(jdbc, false);
  }

  /** Retention maintenance on this repository's connection (the run's scheduler thread). */
  SqlRetention retention() {
    return new SqlRetention(jdbc, root, jobs);
  }

  @Override
  public void jobLogBytes(long jobId, long bytes) {
    rowStatement(() -> jdbc.execute("UPDATE jobs SET log_bytes = ? WHERE id = ?", bytes, jobId));
  }

  /**
   * {@code work} in a transaction of its own, as a row write when the state is shared
   * ({@link Jdbc#inRowTransaction}): it writes only rows this runner may write alone — an item
   * through its fence ({@link #update}), this runner's own job and run rows, new events — so other
   * runners' row writes may run beside it. Without leases (SQLite, or a command that holds no item)
   * it is the state's write transaction, as every other write.
   */
  private <T> T rowWrite(java.util.function.Supplier<T> work) {
    return leases == null ? jdbc.inTransaction(work) : jdbc.inRowTransaction(false, work);
  }

  /** One statement as {@link #rowWrite}; without leases, a write of its own as before. */
  private <T> T rowStatement(java.util.function.Supplier<T> work) {
    return leases == null ? work.get() : jdbc.inRowTransaction(false, work);
  }

  /** The items' git worktrees (execution.workspace: worktree), on this repository's connection. */
  WorkspaceStore workspaceStore() {
    return new SqlWorkspaceStore(jdbc);
  }

  /** Turn history and summaries, on this repository's connection. */
  TurnRepository turnRepository() {
    return new SqlTurnRepository(jdbc);
  }

  /**
   * One transaction; new items and events are inserted a hundred to a statement ({@link
   * Jdbc#inserts}), updates run one prepared statement in batches ({@link Jdbc#batch}): a first
   * sync of a million items prepares a few statements, not two million. A sync that adds {@link
   * #BULK_ROWS} items or more to SQLite counts its rows in {@code structures} once, not per row
   * ({@link CountersPaused}).
   */
  @Override
  public Synced syncAndRead(List<BacklogItem> backlog, Instant now) {
    return jdbc.inTransaction(() -> {
      // Every stored item, read once: what the sync compares the file with, and what it returns.
      List<ItemState> after = new ArrayList<>(reader.items());
      int stored = after.size();
      Map<String, Integer> known = new HashMap<>(stored * 4 / 3 + 1);
      for (int i = 0; i < stored; i++) {
        known.put(after.get(i).id(), i);
      }
      long firstSeq = stored == 0 ? 1 : after.get(stored - 1).seq() + 1;
      long nextSeq = firstSeq;
      long at = now.toEpochMilli();
      List<String> added = new ArrayList<>();
      List<String> returned = new ArrayList<>();
      List<String> vanished = new ArrayList<>();
      int fresh = 0;
      for (BacklogItem item : backlog) {
        fresh += known.containsKey(item.id()) ? 0 : 1;
      }
      CountersPaused paused = fresh >= BULK_ROWS ? CountersPaused.pause(jdbc) : null;
      EventCount counted = new EventCount();
      boolean[] listed = new boolean[stored];
      try (Jdbc.Inserts inserts = jdbc.inserts(INSERT_ITEM_HEAD, INSERT_ITEM_ROW);
          Jdbc.Batch updates = jdbc.batch("""
              UPDATE items SET title = ?, pipeline = ?, priority = ?, depends_on = ?, tags = ?,
                     description = ?, in_backlog = 1, updated_at = ?
              WHERE id = ?""");
          Jdbc.Inserts events = jdbc.inserts(Events.INSERT_HEAD, Events.INSERT_ROW)) {
        for (BacklogItem item : backlog) {
          Integer index = known.get(item.id());
          if (index == null) {
            inserts.add(itemRow(item, null, nextSeq, at));
            after.add(new ItemState(item, nextSeq++, true, initialProgress(item)));
            added.add(item.id());
            continue;
          }
          ItemState was = after.get(index);
          listed[index] = true;
          boolean same = sameDefinition(was.definition(), item);
          if (!same || !was.inBacklog()) {
            updates.add(item.title(), item.pipeline(), item.priority().key(), JsonText.array(item.dependsOn()),
                JsonText.array(item.tags()), item.description(), at, item.id());
          }
          if (!was.inBacklog()) {
            returned.add(item.id());
            events.add(counted.of(Events.row(at, item.id(), Event.ITEM_RETURNED, Map.of())));
          }
          // The backlog's copy, unless the stored one must stay (its status hint applied once).
          BacklogItem definition = same ? was.definition()
              : item.initialStatus() == was.definition().initialStatus() ? item
                  : new BacklogItem(item.id(), item.title(), item.pipeline(), item.priority(), item.dependsOn(),
                      item.tags(), item.description(), was.definition().initialStatus());
          after.set(index, new ItemState(definition, was.seq(), true, was.progress(), was.origin()));
        }
        for (int i = 0; i < stored; i++) {
          ItemState item = after.get(i);
          // A follow-up item lives only in the state: the file not listing it is no news.
          if (item.inBacklog() && !listed[i] && item.origin() == null) {
            vanished.add(item.id());
            after.set(i, new ItemState(item.definition(), item.seq(), false, item.progress(), null));
          }
        }
        if (!added.isEmpty()) {
          // The items' rows first; the returned items' events too, so that this sync's events go
          // in one order: returned (in file order), added (in backlog order), vanished.
          inserts.flush();
          events.flush();
          counted.rows += jdbc.execute(ADDED_EVENTS, at, Event.ITEM_ADDED, firstSeq);
        }
        vanished.sort(null);
        try (Jdbc.Batch gone = jdbc.batch("UPDATE items SET in_backlog = 0, updated_at = ? WHERE id = ?")) {
          for (String id : vanished) {
            gone.add(at, id);
            events.add(counted.of(Events.row(at, id, Event.ITEM_VANISHED, Map.of())));
          }
        }
      }
      if (paused != null) {
        paused.resume(added.size(), counted.rows, counted.loadBearing);
        jdbc.bulkWritten();
      }
      return new Synced(new SyncResult(added, vanished, returned), after);
    });
  }

  /**
   * Whether the file's entry leaves a stored definition as it is: every field the sync writes
   * (the status hint applies once, so it is not one of them). Field by field, not the record's
   * {@code equals} (docs/architecture.md, "Start-up rules").
   */
  private static boolean sameDefinition(BacklogItem stored, BacklogItem file) {
    return stored.title().equals(file.title()) && stored.pipeline().equals(file.pipeline())
        && stored.priority() == file.priority() && stored.dependsOn().equals(file.dependsOn())
        && stored.tags().equals(file.tags()) && stored.description().equals(file.description());
  }

  /** New items from which a sync counts its rows once ({@link CountersPaused}) instead of per row. */
  static final int BULK_ROWS = 1000;

  /** The events a sync inserts, and how many of them are load-bearing, for {@link CountersPaused}. */
  private static final class EventCount {
    long rows;
    long loadBearing;

    Object[] of(Object[] row) {
      rows++;
      loadBearing += ((Number) row[row.length - 1]).intValue();
      return row;
    }
  }

  /**
   * The SQLite triggers that count inserted items and events in {@code structures}, dropped for a
   * bulk sync and created again from their own text when it has inserted its rows, with the
   * counters raised by the rows inserted, all in the sync's transaction: the counters stay exact
   * (a failure rolls the drop back with the rest), and a million-item first sync is spared two
   * million trigger runs (about a third of its insert time). PostgreSQL's counting triggers run
   * once per statement already: nothing to pause there.
   */
  private static final class CountersPaused {
    private static final List<String> TRIGGERS = List.of("items_written", "events_written", "events_kept");
    private final Jdbc jdbc;
    private final List<String> definitions;

    private CountersPaused(Jdbc jdbc, List<String> definitions) {
      this.jdbc = jdbc;
      this.definitions = definitions;
    }

    /** Drops the counting triggers; null (nothing paused) unless the database is SQLite with all three. */
    static CountersPaused pause(Jdbc jdbc) {
      try {
        if (!"SQLite".equals(jdbc.connection().getMetaData().getDatabaseProductName())) {
          return null;
        }
      } catch (SQLException e) {
        throw jdbc.failure("database product", e);
      }
      List<String> definitions = new ArrayList<>();
      for (String name : TRIGGERS) {
        jdbc.queryOne("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", rs -> rs.getString(1), name)
            .ifPresent(definitions::add);
      }
      if (definitions.size() != TRIGGERS.size()) {
        return null;
      }
      TRIGGERS.forEach(name -> jdbc.execute("DROP TRIGGER " + name));
      return new CountersPaused(jdbc, definitions);
    }

    /** Counts what the triggers would have counted, and creates them again. */
    void resume(long items, long events, long loadBearingEvents) {
      jdbc.execute("UPDATE structures SET rows_written = rows_written + ? WHERE name = 'items'", items);
      jdbc.execute("UPDATE structures SET rows_written = rows_written + ?, kept_rows = kept_rows + ? "
          + "WHERE name = 'events'", events, loadBearingEvents);
      definitions.forEach(jdbc::execute);
    }
  }

  /**
   * The {@code item.added} event of every item a sync inserted, made from the rows in one
   * statement rather than sent row by row (a million items' events cost 1.6 s of CPU that way); the
   * payload is the one {@link Events#row} writes, {@code {"status":"<initial status>"}}, and the
   * event is routine (not load-bearing).
   */
  private static final String ADDED_EVENTS = """
      INSERT INTO events (at, item_id, kind, payload, load_bearing)
      SELECT CAST(? AS BIGINT), id, CAST(? AS TEXT), '{"status":"' || status || '"}', 0
      FROM items WHERE seq >= ? ORDER BY seq""";

  private static final String INSERT_ITEM_HEAD = """
      INSERT INTO items (id, seq, title, pipeline, priority, depends_on, tags, description,
                         initial_status, in_backlog, status, phase, attempts, blocked_reason,
                         blocked_from, origin, created_at, updated_at)
      VALUES""";
  private static final String INSERT_ITEM_ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, NULL, 0, ?, ?, ?, ?, ?)";
  private static final String INSERT_ITEM = INSERT_ITEM_HEAD + " " + INSERT_ITEM_ROW;

  private void insert(BacklogItem item, String origin, long seq, long at) {
    jdbc.execute(INSERT_ITEM, itemRow(item, origin, seq, at));
  }

  private static Object[] itemRow(BacklogItem item, String origin, long seq, long at) {
    Progress p = initialProgress(item);
    return new Object[] {item.id(), seq, item.title(), item.pipeline(), item.priority().key(),
        JsonText.array(item.dependsOn()), JsonText.array(item.tags()), item.description(),
        item.initialStatus().key(), p.status().key(), p.blockedReason(),
        p.blockedFrom() == null ? null : p.blockedFrom().key(), origin, at, at};
  }

  /** The status hint of the backlog applies once, when the item is first seen. */
  static Progress initialProgress(BacklogItem item) {
    return Progress.initial(item.initialStatus());
  }

  @Override
  public List<ItemState> items() {
    return reader.items();
  }

  @Override
  public Optional<ItemState> item(String id) {
    return jdbc.queryOne("SELECT * FROM items WHERE id = ?", StateRows::item, id);
  }

  @Override
  public Map<String, Instant> reviewWaits() {
    Map<String, Instant> waits = new java.util.LinkedHashMap<>();
    jdbc.query("SELECT id, review_since FROM items WHERE status = ? ORDER BY seq", rs -> {
      waits.put(rs.getString(1), Columns.instantOrNull(rs, 2));
      return null;
    }, ItemStatus.AWAITING_REVIEW.key());
    return waits;
  }

  @Override
  public void apply(Step step, Instant now) {
    rowWrite(() -> {
      write(step, now.toEpochMilli());
      return null;
    });
  }

  @Override
  public boolean applyIf(Step step, ItemStatus expected, Instant now) {
    return rowWrite(() -> {
      if (update(step, expected, now.toEpochMilli()) == 0) {
        return false;
      }
      TruncatedWrites.countIf(jdbc, "items", step.truncatedValues() > 0);
      events(step, now.toEpochMilli());
      return true;
    });
  }

  @Override
  public List<Long> queueDecisions(List<ReviewDecision> decisions, Instant now) {
    return jdbc.inTransaction(() -> {
      List<Long> ids = new ArrayList<>();
      for (ReviewDecision d : decisions) {
        ids.add(jdbc.insert("INSERT INTO review_decisions (item_id, decision, notes, phase, requested_at)"
            + " VALUES (?, ?, ?, ?, ?)", d.itemId(), d.kind(), d.notes(), d.phase(), now.toEpochMilli()));
      }
      return ids;
    });
  }

  @Override
  public List<ReviewDecision> reviewDecisions(int limit) {
    return jdbc.query("SELECT id, item_id, decision, notes, phase, requested_at FROM review_decisions"
        + " ORDER BY id LIMIT " + Math.max(0, limit),
        rs -> new ReviewDecision(rs.getLong(1),
            rs.getString(2), "approve".equals(rs.getString(3)), rs.getString(4), rs.getString(5),
            Instant.ofEpochMilli(rs.getLong(6))));
  }

  @Override
  public boolean applyDecision(long decisionId, Step step, Instant now) {
    return jdbc.inTransaction(() -> {
      if (jdbc.execute("DELETE FROM review_decisions WHERE id = ?", decisionId) == 0) {
        return false; // applied (or dropped) by another runner
      }
      long at = now.toEpochMilli();
      if (update(step, ItemStatus.AWAITING_REVIEW, at) == 0) {
        // Thrown, so that the delete is rolled back with it: the decision stays queued.
        throw new LeaseLostException(step.next().id(), "item " + step.next().id()
            + " changed since it was read (it no longer awaits review, or another runner holds it)");
      }
      TruncatedWrites.countIf(jdbc, "items", step.truncatedValues() > 0);
      events(step, at);
      return true;
    });
  }

  @Override
  public void dropDecision(ReviewDecision decision, String why, Instant now) {
    jdbc.inTransaction(() -> {
      if (jdbc.execute("DELETE FROM review_decisions WHERE id = ?", decision.id()) == 1) {
        event(new Event(decision.itemId(), DECISION_DROPPED, Map.of("decision", decision.kind(), "reason", why)),
            now.toEpochMilli());
      }
    });
  }

  @Override
  public boolean decisionDropped(String itemId, Instant since) {
    return jdbc.queryLong("SELECT count(*) FROM (SELECT 1 FROM events WHERE item_id = ? AND kind = ? AND at >= ?"
        + " LIMIT 1) d", itemId, DECISION_DROPPED, since.toEpochMilli()) > 0;
  }

  /**
   * Applies every step, each only while its item's status is {@code expected}, in one
   * transaction: all of them or, when one item's status changed meanwhile, none (returns false).
   */
  @Override
  public boolean applyAllIf(List<Step> steps, ItemStatus expected, Instant now) {
    final class Changed extends RuntimeException {
      Changed() {
        super(null, null, false, false);
      }
    }
    try {
      jdbc.inTransaction(() -> {
        for (Step step : steps) {
          if (update(step, expected, now.toEpochMilli()) == 0) {
            throw new Changed();
          }
          TruncatedWrites.countIf(jdbc, "items", step.truncatedValues() > 0);
          events(step, now.toEpochMilli());
        }
      });
      return true;
    } catch (Changed e) {
      return false;
    }
  }

  private void write(Step step, long at) {
    if (update(step, null, at) != 1) {
      if (leases != null && item(step.next().id()).isPresent()) {
        throw lost(step.next().id());
      }
      throw new StoreException("item " + step.next().id() + " is not in the state database");
    }
    TruncatedWrites.countIf(jdbc, "items", step.truncatedValues() > 0);
    events(step, at);
  }

  /**
   * Writes the item's progress, only while its status is {@code expected} when one is given, and,
   * when the state is shared, only while the lease is as this runner holds it ({@link SqlItemLeases#fence}).
   */
  private int update(Step step, ItemStatus expected, long at) {
    Progress p = step.next().progress();
    List<Object> values = new ArrayList<>(java.util.Arrays.asList(p.status().key(), p.phase(), p.attempts(),
        p.blockedReason(), p.blockedFrom() == null ? null : p.blockedFrom().key(), p.lastFailure(),
        p.phaseSummary(), p.unblockNotes(), at, p.resume() == null ? null : p.resume().profile(),
        p.resume() == null ? null : p.resume().session()));
    StringBuilder sql = new StringBuilder("""
        UPDATE items SET status = ?, phase = ?, attempts = ?, blocked_reason = ?, blocked_from = ?,
               last_failure = ?, phase_summary = ?, unblock_notes = ?, updated_at = ?, resume_profile = ?,
               resume_session = ?""");
    // The wait for a review starts when the item enters awaiting_review and is kept while it stays.
    if (p.status() == ItemStatus.AWAITING_REVIEW) {
      sql.append(", review_since = COALESCE(review_since, ?)");
      values.add(at);
    } else {
      sql.append(", review_since = NULL");
    }
    SqlItemLeases.Fence fence = leases == null ? null : leases.fence(step);
    if (fence != null) {
      sql.append(", lease_owner = ?, version = version + 1");
      values.add(fence.owner());
    }
    sql.append(" WHERE id = ?");
    values.add(step.next().id());
    // Separate conditions rather than "? IS NULL OR status = ?": a parameter only ever compared with
    // NULL has no type, which PostgreSQL refuses.
    if (expected != null) {
      sql.append(" AND status = ?");
      values.add(expected.key());
    }
    if (fence != null && fence.heldHere()) {
      sql.append(" AND lease_owner = ? AND version = ?");
      values.add(leases.runnerId());
      values.add(fence.version());
    } else if (fence != null) {
      sql.append(" AND lease_owner IS NULL");
    }
    int n = jdbc.execute(sql.toString(), values.toArray());
    if (fence != null) {
      if (n == 1) {
        leases.wrote(fence);
      } else if (fence.heldHere()) {
        leases.lost(fence.itemId());
      }
    }
    return n;
  }

  private LeaseLostException lost(String itemId) {
    return new LeaseLostException(itemId, "item " + itemId
        + " is no longer held by runner " + leases.runnerId() + ": another runner took it over or changed it");
  }

  private void events(Step step, long at) {
    for (Event e : step.events()) {
      event(e, at);
    }
  }

  private void event(Event e, long at) {
    Events.insert(jdbc, at, e.itemId(), e.kind(), e.payload());
  }

  @Override
  public long jobStarted(JobStart start) {
    String logPath = start.logPath() == null ? null : leases != null
        ? start.logPath().toAbsolutePath().normalize().toString() // a runner's own disk: see JobLogPaths
        : JobLogPaths.relative(root, start.logPath());
    if (leases != null) {
      return rowStatement(() -> jdbc.insert("""
          INSERT INTO jobs (run_id, item_id, phase, attempt, state, started_at, log_path, runner_id, agent)
          VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?)""",
          start.runId(), start.itemId(), start.phase(), start.attempt(), start.startedAt().toEpochMilli(),
          logPath, leases.runnerId(), start.agent()));
    }
    return jdbc.insert("""
        INSERT INTO jobs (run_id, item_id, phase, attempt, state, started_at, log_path, agent)
        VALUES (?, ?, ?, ?, 'running', ?, ?, ?)""",
        start.runId(), start.itemId(), start.phase(), start.attempt(), start.startedAt().toEpochMilli(), logPath,
        start.agent());
  }

  @Override
  public List<ItemState> jobEnded(long jobId, JobEnd end, Step step, List<FollowUpItem> followUps, Instant now) {
    // New items take the next backlog position (MAX(seq) + 1): with follow-ups, the state's write lock.
    java.util.function.Supplier<List<ItemState>> work = () -> {
      jdbc.execute("UPDATE jobs SET state = ?, result = ?, exit_code = ?, reason = ?, ended_at = ?, outcome = ?"
          + " WHERE id = ?", end.state().key(), end.result(), end.exitCode(), end.reason(),
          end.endedAt().toEpochMilli(), end.outcome() == null ? null : end.outcome().key(), jobId);
      TruncatedWrites.countIf(jdbc, "jobs", end.truncatedValues() > 0);
      // Every ended job says how its agent's conversation began (and which it was, if the CLI said).
      jdbc.execute("UPDATE jobs SET session_id = ?, session_start = ? WHERE id = ?", end.session().id(),
          end.session().start().key(), jobId);
      int seq = 0;
      for (CommandRun run : end.checks()) {
        jdbc.execute("INSERT INTO job_checks (job_id, seq, kind, name, exit_code, ending, duration_ms, log_file)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", jobId, ++seq, run.kind().key(), run.name(), run.exitCode(),
            run.ending().key(), run.elapsed().toMillis(),
            run.log() == null || run.log().getFileName() == null ? null : run.log().getFileName().toString());
      }
      if (!end.usage().isUnknown()) { // a trigger adds it to the item's and the lifetime totals
        jdbc.execute(
            "UPDATE jobs SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ?,"
                + " cost_usd = ? WHERE id = ?",
            withId(UsageRows.values(end.usage()), jobId));
      }
      if (step != null) {
        write(step, now.toEpochMilli());
      }
      List<ItemState> added = new ArrayList<>();
      for (FollowUpItem followUp : followUps) {
        addFollowUp(followUp, now.toEpochMilli()).ifPresent(added::add);
      }
      return added;
    };
    return followUps.isEmpty() ? rowWrite(work) : jdbc.inTransaction(work);
  }

  /** Appends a follow-up item to backlog order, unless an item with its id already exists. */
  private Optional<ItemState> addFollowUp(FollowUpItem followUp, long at) {
    if (jdbc.queryLong("SELECT count(*) FROM items WHERE id = ?", followUp.id()) > 0) {
      return Optional.empty();
    }
    long seq = jdbc.queryLong("SELECT COALESCE(MAX(seq), 0) FROM items") + 1;
    insert(followUp.definition(), followUp.origin(), seq, at);
    TruncatedWrites.countIf(jdbc, "items", followUp.truncatedValues() > 0);
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("status", ItemStatus.NEW.key());
    payload.put("origin", followUp.origin());
    event(new Event(followUp.id(), Event.ITEM_ADDED, payload), at);
    return item(followUp.id());
  }

  @Override
  public int interruptRunningJobs(Instant now) {
    if (leases != null) {
      // Only jobs no live runner owns: a dead one's are taken over by SqlItemLeases.refresh.
      return jdbc.execute("""
          UPDATE jobs SET state = ?, ended_at = ?, reason = 'the run that started it ended without recording the end'
          WHERE state = 'running' AND (runner_id IS NULL OR runner_id NOT IN (SELECT id FROM runners))""",
          JobState.INTERRUPTED.key(), now.toEpochMilli());
    }
    return jdbc.execute("""
        UPDATE jobs SET state = ?, ended_at = ?, reason = 'the run that started it ended without recording the end'
        WHERE state = 'running'""", JobState.INTERRUPTED.key(), now.toEpochMilli());
  }

  @Override
  public List<JobRecord> recentJobs(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1, got " + limit);
    }
    return jdbc.query("SELECT " + StateRows.JOB_COLUMNS + " FROM jobs ORDER BY id DESC LIMIT ?", this::job, limit);
  }

  @Override
  public Map<Long, OutcomeClass> outcomes(Collection<Long> jobIds) {
    return StateRows.outcomes(jdbc, jobIds);
  }

  @Override
  public Map<Long, String> agents(Collection<Long> jobIds) {
    return StateRows.jobColumn(jdbc, "agent", jobIds);
  }

  @Override
  public Map<Long, AgentSession> sessions(Collection<Long> jobIds) {
    return JobChecks.sessions(jdbc, jobIds);
  }

  @Override
  public Map<Long, List<CheckRecord>> checks(Collection<Long> jobIds) {
    return JobChecks.checks(jdbc, jobIds);
  }

  private JobRecord job(ResultSet rs) throws SQLException {
    return StateRows.job(rs, root);
  }

  @Override
  public Optional<RunRecord> lastRun() {
    return StateRows.lastRun(jdbc);
  }

  @Override
  public long runStarted(Instant now, long pid) {
    if (leases != null) {
      return rowStatement(() -> jdbc.insert("INSERT INTO runs (started_at, pid, runner_id) VALUES (?, ?, ?)",
          now.toEpochMilli(), pid, leases.runnerId()));
    }
    return jdbc.insert("INSERT INTO runs (started_at, pid) VALUES (?, ?)", now.toEpochMilli(), pid);
  }

  @Override
  public void runEnded(long runId, Instant now, String haltReason, RunFigures f) {
    rowStatement(() -> jdbc.execute("""
        UPDATE runs SET ended_at = ?, halt_reason = ?, summary_map_final = ?, summary_map_peak = ?,
          job_table_peak_active = ?, job_table_peak_inactive = ?, job_table_final = ?
        WHERE id = ?""", now.toEpochMilli(), haltReason, f.summaryMapFinal(), f.summaryMapPeak(),
        f.jobTablePeakActive(), f.jobTablePeakInactive(), f.jobTableFinal(), runId));
  }

  @Override
  public void runSpend(long runId, Usage spend, Double maxCostUsd, Long maxTokens) {
    Object[] values = UsageRows.values(spend);
    rowStatement(() -> jdbc.execute("UPDATE runs SET input_tokens = ?, output_tokens = ?, cache_read_tokens = ?,"
        + " cache_write_tokens = ?, cost_usd = ?, max_cost_usd = ?, max_tokens = ? WHERE id = ?",
        values[0], values[1], values[2], values[3], values[4], maxCostUsd, maxTokens, runId));
  }

  @Override
  public void runNotified(long runId, long delivered, long failed, long lost, String lastError) {
    rowStatement(() -> jdbc.execute(
        "UPDATE runs SET notify_delivered = ?, notify_failed = ?, notify_lost = ?, notify_error = ? WHERE id = ?",
        delivered, failed, lost, SizeCap.cap(lastError, NOTIFY_ERROR_CHARS), runId));
  }

  /** The longest failure text a run's notification figures keep. */
  static final int NOTIFY_ERROR_CHARS = 500;

  /** The usage recorded for each of these jobs (unknown figures null); jobs not found are left out. */
  @Override
  public Map<Long, Usage> jobUsage(List<Long> jobIds) {
    Map<Long, Usage> out = new LinkedHashMap<>();
    for (Long id : jobIds) {
      jdbc.queryOne("SELECT " + UsageRows.COLUMNS + " FROM jobs WHERE id = ?", UsageRows::readJob, id)
          .ifPresent(u -> out.put(id, u));
    }
    return out;
  }

  @Override
  public List<Usage> recentUsage(int jobs) {
    List<Usage> out = new ArrayList<>();
    jdbc.query("SELECT " + UsageRows.COLUMNS + " FROM jobs WHERE ended_at IS NOT NULL AND (input_tokens IS NOT NULL"
        + " OR output_tokens IS NOT NULL OR cache_read_tokens IS NOT NULL OR cache_write_tokens IS NOT NULL"
        + " OR cost_usd IS NOT NULL) ORDER BY id DESC LIMIT ?", rs -> out.add(UsageRows.readJob(rs)), jobs);
    return out;
  }

  @Override
  public Usage usageSince(Instant since) {
    // SUM of only NULLs is NULL: a figure no job reported stays unknown.
    return jdbc.queryOne("SELECT SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,"
        + " SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,"
        + " SUM(cost_usd) AS cost_usd FROM jobs WHERE ended_at >= ?", UsageRows::read, since.toEpochMilli())
        .orElse(Usage.UNKNOWN);
  }

  @Override
  public Usage sessionUsage(String sessionId) {
    return jdbc.queryOne("SELECT SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,"
        + " SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,"
        + " SUM(cost_usd) AS cost_usd FROM jobs WHERE session_id = ? AND ended_at IS NOT NULL", UsageRows::read,
        sessionId).orElse(Usage.UNKNOWN);
  }

  /** Each item's usage over all its jobs, pruned ones included (kept by a trigger since schema 8). */
  @Override
  public Map<String, Usage> itemUsage() {
    Map<String, Usage> out = new LinkedHashMap<>();
    jdbc.query("SELECT id, " + UsageRows.COLUMNS + " FROM items",
        rs -> out.put(rs.getString("id"), UsageRows.read(rs)));
    return out;
  }

  private static Object[] withId(Object[] values, long id) {
    Object[] all = java.util.Arrays.copyOf(values, values.length + 1);
    all[values.length] = id;
    return all;
  }

  /** Closes the store's connection: for tests that work on a repository alone. */
  @Override
  public void close() {
    jdbc.close();
  }
}
