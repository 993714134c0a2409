package dev.orchestrate.state.sql;

import dev.orchestrate.workspace.ChecksRecord;
import dev.orchestrate.workspace.PushRecord;
import dev.orchestrate.workspace.ReviewRecord;
import dev.orchestrate.workspace.WorkspacePlace;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceStore;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** The {@link WorkspaceStore} of the SQL backends, on the state repository's connection. */
final class SqlWorkspaceStore implements WorkspaceStore {
  private final Jdbc jdbc;

  SqlWorkspaceStore(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  @Override
  public Optional<WorkspaceRecord> workspace(String itemId) {
    return jdbc.queryOne("SELECT * FROM workspaces WHERE item_id = ?", SqlWorkspaceStore::record, itemId);
  }

  @Override
  public Optional<Instant> setUpAt(String itemId) {
    return jdbc.queryOne("SELECT setup_at FROM workspaces WHERE item_id = ? AND setup_at IS NOT NULL",
        rs -> Instant.ofEpochMilli(rs.getLong(1)), itemId);
  }

  @Override
  public void setUp(String itemId, Instant at) {
    jdbc.execute("UPDATE workspaces SET setup_at = ? WHERE item_id = ?", at == null ? null : at.toEpochMilli(), itemId);
  }

  @Override
  public Map<String, WorkspaceRecord> all() {
    Map<String, WorkspaceRecord> out = new LinkedHashMap<>();
    for (WorkspaceRecord r : jdbc.query("SELECT * FROM workspaces ORDER BY item_id", SqlWorkspaceStore::record)) {
      out.put(r.itemId(), r);
    }
    return out;
  }

  @Override
  public List<WorkspaceRecord> onDisk() {
    return jdbc.query("""
        SELECT * FROM workspaces WHERE removed_at IS NULL
         ORDER BY finished_at IS NULL, finished_at, created_at""", SqlWorkspaceStore::record);
  }

  @Override
  public void save(WorkspaceRecord r, Instant now) {
    jdbc.inTransaction(() -> {
      int updated = jdbc.execute("""
          UPDATE workspaces SET path = ?, branch = ?, base_branch = ?, git_dir = ?, base_commit = ?,
                 head_commit = ?, pending_commit = ?, pending_job_id = ?, integration = ?, note = ?, bytes = ?,
                 updated_at = ?, finished_at = ?, removed_at = ?
           WHERE item_id = ?""",
          r.path().toString(), r.branch(), r.baseBranch(), r.gitDir().toString(), r.baseCommit(), r.headCommit(),
          r.pendingCommit(), r.pendingJobId(), key(r.integration()), r.note(), r.bytes(), now.toEpochMilli(),
          millis(r.finishedAt()), millis(r.removedAt()), r.itemId());
      if (updated == 0) {
        jdbc.execute("""
            INSERT INTO workspaces (item_id, path, branch, base_branch, git_dir, base_commit, head_commit,
                   pending_commit, pending_job_id, integration, note, bytes, created_at, updated_at, finished_at,
                   removed_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            r.itemId(), r.path().toString(), r.branch(), r.baseBranch(), r.gitDir().toString(), r.baseCommit(),
            r.headCommit(), r.pendingCommit(), r.pendingJobId(), key(r.integration()), r.note(), r.bytes(),
            millis(r.createdAt() == null ? now : r.createdAt()), now.toEpochMilli(), millis(r.finishedAt()),
            millis(r.removedAt()));
      }
    });
  }

  @Override
  public void commitPending(String itemId, String commit, long jobId, long bytes, Instant now) {
    jdbc.execute("""
        UPDATE workspaces SET pending_commit = ?, pending_job_id = ?, bytes = ?, updated_at = ?
         WHERE item_id = ?""", commit, jobId, bytes, now.toEpochMilli(), itemId);
  }

  @Override
  public void commitConfirmed(String itemId, Instant now) {
    jdbc.inTransaction(() -> confirm(jdbc, itemId, now));
  }

  /**
   * The item's pending commit becomes its head and is written on its job: by its runner once the
   * job is recorded completed, at a start ({@link #settlePending}), or by the runner that takes a
   * dead one's items over ({@code SqlItemLeases}), for a runner killed between the two writes.
   */
  static void confirm(Jdbc jdbc, String itemId, Instant now) {
    {
      jdbc.execute("""
          UPDATE jobs SET commit_sha = (SELECT pending_commit FROM workspaces WHERE item_id = ?)
           WHERE id = (SELECT pending_job_id FROM workspaces WHERE item_id = ?)""", itemId, itemId);
      if (jdbc.dialect().hasColumn(jdbc, "workspaces", "landing_fold")) {
        // the folded commit is the head now: the next one is a phase commit of its own again
        jdbc.execute("UPDATE workspaces SET landing_fold = NULL WHERE item_id = ? AND pending_commit IS NOT NULL",
            itemId);
      }
      jdbc.execute("""
          UPDATE workspaces SET head_commit = COALESCE(pending_commit, head_commit), pending_commit = NULL,
                 pending_job_id = NULL, updated_at = ?
           WHERE item_id = ?""", now.toEpochMilli(), itemId);
    }
  }

  @Override
  public int settlePending(Instant now) {
    return jdbc.inTransaction(() -> {
      // Dropped first: the pending commits of jobs that did not complete. On a shared state a job
      // another live runner still runs keeps its pending commit, and one that completes while this
      // transaction runs is not dropped for it (statements see other commits as they land): it is
      // confirmed below, or by its own runner. A dead runner's are dropped at its takeover.
      String kept = !jdbc.dialect().sharedByRunners() ? "j.state = 'completed'"
          : "(j.state = 'completed' OR (j.state = 'running' AND j.runner_id IN (SELECT id FROM runners)))";
      int dropped = jdbc.execute("""
          UPDATE workspaces SET pending_commit = NULL, pending_job_id = NULL, updated_at = ?
           WHERE pending_commit IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = pending_job_id AND""" + " " + kept + ")",
          now.toEpochMilli());
      List<String> confirmed = jdbc.query("""
          SELECT w.item_id FROM workspaces w JOIN jobs j ON j.id = w.pending_job_id
           WHERE w.pending_commit IS NOT NULL AND j.state = 'completed'""", rs -> rs.getString(1));
      confirmed.forEach(id -> confirm(jdbc, id, now));
      return dropped;
    });
  }

  @Override
  public void headMoved(String itemId, String commit, Instant now) {
    jdbc.execute("UPDATE workspaces SET head_commit = ?, updated_at = ? WHERE item_id = ?", commit,
        now.toEpochMilli(), itemId);
  }

  @Override
  public void integration(String itemId, WorkspaceRecord.Integration integration, String note, Instant now) {
    jdbc.execute("UPDATE workspaces SET integration = ?, note = ?, updated_at = ? WHERE item_id = ?",
        key(integration), note, now.toEpochMilli(), itemId);
  }

  @Override
  public void finished(String itemId, Instant at, Instant now) {
    jdbc.execute("UPDATE workspaces SET finished_at = ?, updated_at = ? WHERE item_id = ?", millis(at),
        now.toEpochMilli(), itemId);
  }

  @Override
  public void removed(String itemId, Instant now) {
    jdbc.execute("UPDATE workspaces SET removed_at = ?, updated_at = ? WHERE item_id = ? AND removed_at IS NULL",
        now.toEpochMilli(), now.toEpochMilli(), itemId);
  }

  @Override
  public Map<Long, String> commits(Collection<Long> jobIds) {
    if (jobIds.isEmpty()) {
      return Map.of();
    }
    String ids = jobIds.stream().map(String::valueOf).collect(Collectors.joining(","));
    Map<Long, String> out = new LinkedHashMap<>();
    jdbc.query("SELECT id, commit_sha FROM jobs WHERE commit_sha IS NOT NULL AND id IN (" + ids + ")",
        rs -> out.put(rs.getLong(1), rs.getString(2)));
    return out;
  }

  @Override
  public Map<Long, String> landed(Collection<Long> jobIds) {
    if (jobIds.isEmpty() || !jdbc.dialect().hasColumn(jdbc, "jobs", "landed_sha")) {
      return Map.of(); // a state before schema 12, read without migrating
    }
    String ids = jobIds.stream().map(String::valueOf).collect(Collectors.joining(","));
    Map<Long, String> out = new LinkedHashMap<>();
    jdbc.query("SELECT id, landed_sha FROM jobs WHERE landed_sha IS NOT NULL AND id IN (" + ids + ")",
        rs -> out.put(rs.getLong(1), rs.getString(2)));
    return out;
  }

  @Override
  public void landed(Map<Long, String> commits, Instant now) {
    if (commits.isEmpty()) {
      return;
    }
    jdbc.inTransaction(() -> {
      commits.forEach((jobId, commit) -> jdbc.execute("UPDATE jobs SET landed_sha = ? WHERE id = ?", commit, jobId));
      return null;
    });
  }

  @Override
  public PushRecord push(String itemId) {
    if (!hasPush()) {
      return PushRecord.NONE;
    }
    return jdbc.queryOne("SELECT push_sha, push_url, push_failures, push_tried_at FROM workspaces WHERE item_id = ?",
        SqlWorkspaceStore::pushRecord, itemId).orElse(PushRecord.NONE);
  }

  @Override
  public Map<String, PushRecord> pushes() {
    Map<String, PushRecord> out = new LinkedHashMap<>();
    if (!hasPush()) {
      return out; // a state before the push schema, read without migrating
    }
    jdbc.query("""
        SELECT item_id, push_sha, push_url, push_failures, push_tried_at FROM workspaces
         WHERE push_tried_at IS NOT NULL ORDER BY item_id""",
        rs -> out.put(rs.getString("item_id"), pushRecord(rs)));
    return out;
  }

  @Override
  public void push(String itemId, PushRecord push, Instant now) {
    jdbc.execute("""
        UPDATE workspaces SET push_sha = ?, push_url = ?, push_failures = ?, push_tried_at = ?, updated_at = ?
         WHERE item_id = ?""", push.sha(), push.url(), push.failures(), millis(push.triedAt()), now.toEpochMilli(),
        itemId);
  }

  @Override
  public ChecksRecord checks(String itemId) {
    if (!hasChecks()) {
      return ChecksRecord.NONE;
    }
    return jdbc.queryOne("SELECT * FROM workspaces WHERE item_id = ?", SqlWorkspaceStore::checksRecord, itemId)
        .orElse(ChecksRecord.NONE);
  }

  @Override
  public Map<String, ChecksRecord> checksWaits() {
    Map<String, ChecksRecord> out = new LinkedHashMap<>();
    if (!hasChecks()) {
      return out; // a state before the checks schema, read without migrating
    }
    jdbc.query("""
        SELECT * FROM workspaces WHERE checks_since IS NOT NULL ORDER BY item_id""",
        rs -> out.put(rs.getString("item_id"), checksRecord(rs)));
    return out;
  }

  @Override
  public void checks(String itemId, ChecksRecord checks, Instant now) {
    jdbc.execute("""
        UPDATE workspaces SET checks_since = ?, checks_next_at = ?, checks_rounds = ?, updated_at = ?
         WHERE item_id = ?""", millis(checks.since()), millis(checks.nextAt()), checks.rounds(), now.toEpochMilli(),
        itemId);
  }

  @Override
  public void checksResume(String itemId, ChecksRecord.Resume resume, Instant now) {
    if (!jdbc.dialect().hasColumn(jdbc, "workspaces", "checks_resume_phase")) {
      return; // a state before the schema: the session stays the run's to remember
    }
    jdbc.execute("""
        UPDATE workspaces SET checks_resume_phase = ?, checks_resume_profile = ?, checks_resume_session = ?,
         updated_at = ? WHERE item_id = ?""", resume == null ? null : resume.phase(),
        resume == null ? null : resume.profile(), resume == null ? null : resume.session(), now.toEpochMilli(),
        itemId);
  }

  @Override
  public ReviewRecord review(String itemId) {
    if (!jdbc.dialect().hasColumn(jdbc, "workspaces", "review_rounds")) {
      return ReviewRecord.NONE; // a state before the schema, read without migrating
    }
    return jdbc.queryOne("SELECT review_sent, review_rounds, land_failures FROM workspaces WHERE item_id = ?",
        rs -> new ReviewRecord(ReviewRecord.sentOf(rs.getString(1)), rs.getInt(2), rs.getInt(3)), itemId)
        .orElse(ReviewRecord.NONE);
  }

  @Override
  public void review(String itemId, ReviewRecord review, Instant now) {
    jdbc.execute("""
        UPDATE workspaces SET review_sent = ?, review_rounds = ?, land_failures = ?, updated_at = ?
         WHERE item_id = ?""", review.sentText(), review.rounds(), review.landFailures(), now.toEpochMilli(), itemId);
  }

  @Override
  public int landingRounds(String itemId) {
    if (!jdbc.dialect().hasColumn(jdbc, "workspaces", "landing_rounds")) {
      return 0; // a state before the schema, read without migrating
    }
    return jdbc.queryOne("SELECT landing_rounds FROM workspaces WHERE item_id = ?", rs -> rs.getInt(1), itemId)
        .orElse(0);
  }

  @Override
  public java.util.Optional<String> landingFold(String itemId) {
    if (!jdbc.dialect().hasColumn(jdbc, "workspaces", "landing_fold")) {
      return java.util.Optional.empty();
    }
    return jdbc.queryOne("SELECT landing_fold FROM workspaces WHERE item_id = ?",
        rs -> java.util.Optional.ofNullable(rs.getString(1)), itemId).flatMap(fold -> fold);
  }

  @Override
  public void landingFold(String itemId, String base, Instant now) {
    jdbc.execute("UPDATE workspaces SET landing_fold = ?, updated_at = ? WHERE item_id = ?", base, now.toEpochMilli(),
        itemId);
  }

  @Override
  public void landingRounds(String itemId, int rounds, Instant now) {
    jdbc.execute("UPDATE workspaces SET landing_rounds = ?, updated_at = ? WHERE item_id = ?", rounds,
        now.toEpochMilli(), itemId);
  }

  @Override
  public WorkspacePlace place(String itemId) {
    if (!jdbc.dialect().hasColumn(jdbc, "workspaces", "remote_ref")) {
      return WorkspacePlace.NONE;
    }
    return jdbc.queryOne("SELECT checkout, remote_ref FROM workspaces WHERE item_id = ?",
        rs -> new WorkspacePlace(rs.getString(1), rs.getString(2)), itemId)
        .orElse(WorkspacePlace.NONE);
  }

  @Override
  public void place(String itemId, WorkspacePlace place, Instant now) {
    jdbc.execute("UPDATE workspaces SET checkout = ?, remote_ref = ?, updated_at = ? WHERE item_id = ?",
        place.checkout(), place.remoteRef(), now.toEpochMilli(), itemId);
  }

  private boolean hasChecks() {
    return jdbc.dialect().hasColumn(jdbc, "workspaces", "checks_since");
  }

  private static ChecksRecord checksRecord(ResultSet rs) throws SQLException {
    String phase = hasColumn(rs, "checks_resume_phase") ? rs.getString("checks_resume_phase") : null;
    ChecksRecord.Resume resume = phase == null ? null
        : new ChecksRecord.Resume(phase, rs.getString("checks_resume_profile"), rs.getString("checks_resume_session"));
    return new ChecksRecord(Columns.instantOrNull(rs, "checks_since"), Columns.instantOrNull(rs, "checks_next_at"),
        rs.getInt("checks_rounds"), resume);
  }

  private boolean hasPush() {
    return jdbc.dialect().hasColumn(jdbc, "workspaces", "push_sha");
  }

  private static PushRecord pushRecord(ResultSet rs) throws SQLException {
    return new PushRecord(rs.getString("push_sha"), rs.getString("push_url"), rs.getInt("push_failures"),
        Columns.instantOrNull(rs, "push_tried_at"));
  }

  static WorkspaceRecord record(ResultSet rs) throws SQLException {
    Long pending = Columns.longOrNull(rs, "pending_job_id");
    return new WorkspaceRecord(rs.getString("item_id"), Path.of(rs.getString("path")), rs.getString("branch"),
        rs.getString("base_branch"), Path.of(rs.getString("git_dir")), rs.getString("base_commit"),
        rs.getString("head_commit"), rs.getString("pending_commit"), pending,
        WorkspaceRecord.Integration.fromKey(rs.getString("integration")), rs.getString("note"), rs.getLong("bytes"),
        Columns.instantOrNull(rs, "created_at"), Columns.instantOrNull(rs, "finished_at"),
        Columns.instantOrNull(rs, "removed_at"), hasColumn(rs, "push_sha") ? pushRecord(rs) : PushRecord.NONE,
        hasColumn(rs, "checks_since") ? checksRecord(rs) : ChecksRecord.NONE);
  }

  /** Whether the row has the column (a state before the push schema, read without migrating, has not). */
  private static boolean hasColumn(ResultSet rs, String column) {
    try {
      rs.findColumn(column);
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  private static Long millis(Instant at) {
    return at == null ? null : at.toEpochMilli();
  }

  private static String key(WorkspaceRecord.Integration integration) {
    return integration == null ? null : integration.key();
  }
}
