package dev.orchestrate.state.sql;

import dev.orchestrate.backlog.BacklogItem;
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
import dev.orchestrate.limits.SizeCap;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.StoreException;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
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

  @Override
  public Synced syncAndRead(List<BacklogItem> backlog, Instant now) {
    return new BacklogSync(jdbc, reader).syncAndRead(backlog, now);
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
  public Claim queueDecisions(List<ReviewDecision> decisions, Instant now) {
    return DecisionClaims.queue(jdbc, decisions, now);
  }

  @Override
  public List<Taken> decideAllIf(List<Step> steps, ItemStatus expected, Instant now) {
    // As DecisionClaims.queue: the check and the writes in the state's write transaction.
    return jdbc.inTransaction(() -> {
      List<Taken> taken = DecisionClaims.taken(jdbc, steps.stream().map(step -> step.next().id()).toList(), expected);
      if (taken.isEmpty() && !applyAllIf(steps, expected, now)) {
        throw new StoreException("an item decided on is not in the state database"); // rolls back every write
      }
      return taken;
    });
  }

  @Override
  public List<Taken> taken(List<String> ids, ItemStatus expected) {
    return DecisionClaims.taken(jdbc, ids, expected);
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
      if (end.logBytes() != null) {
        jdbc.execute("UPDATE jobs SET log_bytes = ? WHERE id = ?", end.logBytes(), jobId);
      }
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
      followUps.forEach(followUp -> addFollowUp(followUp, now.toEpochMilli()).ifPresent(added::add));
      return added;
    };
    return followUps.isEmpty() ? rowWrite(work) : jdbc.inTransaction(work);
  }

  @Override // the next backlog position (MAX(seq) + 1) under the state's write lock, as jobEnded's follow-ups
  public Optional<ItemState> add(FollowUpItem item, Instant now) {
    return jdbc.inTransaction(() -> addFollowUp(item, now.toEpochMilli()));
  }

  /** Appends a follow-up item to backlog order, unless an item with its id already exists. */
  private Optional<ItemState> addFollowUp(FollowUpItem followUp, long at) {
    if (jdbc.queryLong("SELECT count(*) FROM items WHERE id = ?", followUp.id()) > 0) {
      return Optional.empty();
    }
    long seq = jdbc.queryLong("SELECT COALESCE(MAX(seq), 0) FROM items") + 1;
    BacklogSync.insert(jdbc, followUp.definition(), followUp.origin(), seq, at);
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

  @Override
  public Map<Long, Usage> jobUsage(List<Long> jobIds) {
    return UsageRows.ofJobs(jdbc, jobIds);
  }

  @Override
  public List<Usage> recentUsage(int jobs) {
    return UsageRows.recent(jdbc, jobs);
  }

  @Override
  public Usage usageSince(Instant since) {
    return UsageRows.since(jdbc, since);
  }

  @Override
  public Usage sessionUsage(String sessionId) {
    return UsageRows.ofSession(jdbc, sessionId);
  }

  @Override
  public Map<String, Usage> itemUsage() {
    return UsageRows.ofItems(jdbc);
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
