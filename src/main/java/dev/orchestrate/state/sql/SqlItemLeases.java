package dev.orchestrate.state.sql;

import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.Step;
import dev.orchestrate.outcome.JobState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The item leases of a state that several runners share (PostgreSQL): {@code items.lease_owner}
 * names the runner holding an item, {@code items.version} counts its changes, {@code runners}
 * holds each runner's heartbeat (renewed by the backend's run lease on a connection of its own).
 *
 * <p>A claim is one conditional {@code UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED)}: it
 * takes the item only when it is free or already this runner's, never waits for another runner's
 * row lock, and reads back the stored item and its version. Every later write to the item (made
 * by {@link SqlStateRepository} while this object is its fence) is conditional on that version and
 * on the owner, and bumps the version: a write that finds either changed writes nothing and
 * throws {@link dev.orchestrate.item.LeaseLostException}.
 *
 * <p>Claims and releases are row writes ({@link Jdbc#inRowTransaction}): a claim locks only its
 * item's row, and never waits for it; the take-over of a dead runner takes the state's write lock.
 *
 * <p>Times here are the database server's ({@code clock_timestamp()}), so that runners on hosts
 * whose clocks disagree still agree on whose heartbeat is old.
 *
 * <p>Held versions are kept for the items this runner holds: at most the items it works on
 * (bounded by {@code max_wip} plus those scoping under it), dropped at each release.
 */
final class SqlItemLeases implements ItemLeases {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SqlItemLeases.class);
  /** Which item a claim may take: this one, free or already this runner's (parameters: the item, the runner). */
  private static final String FREE_HERE = "i.id = ? AND (i.lease_owner IS NULL OR i.lease_owner = ?)";
  /** A claim's condition under {@code max_wip}: fewer other items in progress (or being promoted) than the limit. */
  private static final String WIP_BELOW = """
      AND (SELECT count(*) FROM items o WHERE o.id <> i.id AND o.in_backlog = 1
           AND (o.status = 'in_progress' OR (o.status = 'ready' AND o.lease_owner IS NOT NULL))) < ?""";
  /** Frees every item the runner given as the parameter holds (its end, or its take-over). */
  private static final String FREE_ITEMS_OF_RUNNER = "UPDATE items SET lease_owner = NULL, version = version + 1 WHERE lease_owner = ?";

  private final Jdbc jdbc;
  private final String me;
  private final String host;
  private final Duration timeout;
  /** The database server's clock, in epoch milliseconds ({@link Dialect#clockMillis()}). */
  private final String now;
  /** Item id → the version this runner last read or wrote, for the items it holds. */
  private final Map<String, Long> held = new HashMap<>();
  /** What {@link #refusalWasTransient} says of the last claim. */
  private boolean lastRefusalTransient;

  SqlItemLeases(Jdbc jdbc, String runnerId, String host, Duration timeout) {
    this.jdbc = jdbc;
    this.me = runnerId;
    this.host = host;
    this.timeout = timeout;
    this.now = jdbc.dialect().clockMillis();
  }

  @Override
  public boolean shared() {
    return true;
  }

  @Override
  public String runnerId() {
    return me;
  }

  @Override
  public boolean holds(String itemId) {
    return held.containsKey(itemId);
  }

  /** How many items this runner holds now (for tests of the bound). */
  int heldCount() {
    return held.size();
  }

  @Override
  public Refresh refresh() {
    // A plain read first: the take-over's transaction takes the state's write lock, which a refresh
    // every 250 ms of every runner must not do while all runners are alive.
    List<DeadRunner> dead = jdbc
        .queryLong("SELECT count(*) FROM (SELECT 1 FROM runners WHERE id <> ? AND heartbeat_at < "
            + now + " - ? LIMIT 1) d", me, timeout.toMillis()) == 0 ? List.of()
                : jdbc.inTransaction(this::takeOverDead);
    Set<String> elsewhere = new HashSet<>();
    Map<String, Long> mine = new HashMap<>();
    jdbc.query("SELECT id, lease_owner, version FROM items WHERE lease_owner IS NOT NULL", rs -> {
      if (me.equals(rs.getString(2))) {
        mine.put(rs.getString(1), rs.getLong(3));
      } else {
        elsewhere.add(rs.getString(1));
      }
      return null;
    });
    // An item this runner thinks it holds but no longer does was taken over: its next write fails.
    held.keySet().retainAll(mine.keySet());
    return new Refresh(elsewhere, dead);
  }

  private List<DeadRunner> takeOverDead() {
    record Row(String id, String host, String logs) {
    }
    List<Row> rows = jdbc.query("SELECT id, host, logs_dir FROM runners WHERE id <> ? AND heartbeat_at < " + now
        + " - ? ORDER BY id FOR UPDATE SKIP LOCKED",
        rs -> new Row(rs.getString(1), rs.getString(2), rs.getString(3)), me, timeout.toMillis());
    List<DeadRunner> out = new ArrayList<>();
    for (Row r : rows) {
      // a phase commit whose job completed counts, though the runner died before it confirmed it
      // (between the job's write and the commit's): the item continues from it, as after a restart
      List<String> completed = jdbc.query("SELECT w.item_id FROM workspaces w JOIN jobs j ON j.id = w.pending_job_id"
          + " WHERE w.pending_commit IS NOT NULL AND j.state = 'completed' AND j.runner_id = ?", rs -> rs.getString(1),
          r.id());
      completed.forEach(id -> SqlWorkspaceStore.confirm(jdbc, id, java.time.Instant.now()));
      // a phase commit its interrupted jobs left pending never counts: dropped before the jobs end
      jdbc.execute("UPDATE workspaces SET pending_commit = NULL, pending_job_id = NULL WHERE pending_job_id IN"
          + " (SELECT id FROM jobs WHERE runner_id = ? AND state = 'running')", r.id());
      int jobs = jdbc.execute("UPDATE jobs SET state = ?, ended_at = " + now
          + ", reason = ? WHERE runner_id = ? AND state = 'running'", JobState.INTERRUPTED.key(),
          "its runner " + r.id() + " stopped renewing its heartbeat; runner " + me + " took its items over", r.id());
      int items = jdbc.execute(FREE_ITEMS_OF_RUNNER,
          r.id());
      jdbc.execute("DELETE FROM runners WHERE id = ?", r.id());
      Events.insert(jdbc, System.currentTimeMillis(), null, "runner.taken_over",
          Map.of("runner", r.id(), "by", me, "jobs", jobs, "items", items));
      out.add(new DeadRunner(r.id(), r.host(), Path.of(r.logs()), jobs, items, r.host().equals(host)));
    }
    return out;
  }

  @Override
  public Optional<ItemState> claim(String itemId, int wipLimit) {
    String wip = wipLimit <= 0 ? "" : WIP_BELOW;
    String sql = "UPDATE items SET lease_owner = ?, version = version + 1 WHERE id = (SELECT i.id FROM items i WHERE "
        + FREE_HERE + wip + " FOR UPDATE SKIP LOCKED) RETURNING *";
    Object[] params = wipLimit <= 0 ? new Object[] {me, itemId, me} : new Object[] {me, itemId, me, wipLimit};
    long start = System.nanoTime();
    // A row write: claims of different items never wait for each other; those under max_wip
    // exclude each other's count (and the rows they lock are skipped, never waited for).
    Optional<Claimed> claimed = jdbc.inRowTransaction(wipLimit > 0, () -> jdbc.queryOne(sql,
        rs -> new Claimed(StateRows.item(rs), rs.getLong("version")), params));
    claimed.ifPresent(c -> held.put(itemId, c.version()));
    long tookUs = (System.nanoTime() - start) / 1_000; // the claim's, not the check's after a refusal
    // Refused: was it the item, the WIP, or only a row lock of another runner's write at that moment?
    // (the claim's own condition, read without a lock: its parameters but the owner it would set)
    lastRefusalTransient = claimed.isEmpty() && jdbc.queryLong("SELECT count(*) FROM items i WHERE " + FREE_HERE + wip,
        Arrays.copyOfRange(params, 1, params.length)) > 0;
    // src/bench/multirunner.sh reads these lines for the claim latency
    LOG.debug("claim {} {} in {} us", itemId, claimed.isPresent() ? "taken" : "refused", tookUs);
    return claimed.map(Claimed::item);
  }

  private record Claimed(ItemState item, long version) {
  }

  @Override
  public boolean refusalWasTransient() {
    return lastRefusalTransient;
  }

  @Override
  public void release(String itemId) {
    jdbc.inRowTransaction(false, () -> jdbc.execute(
        "UPDATE items SET lease_owner = NULL, version = version + 1 WHERE id = ? AND lease_owner = ?", itemId, me));
    held.remove(itemId);
  }

  @Override
  public void releaseAll() {
    jdbc.execute(FREE_ITEMS_OF_RUNNER, me);
    held.clear();
  }

  /**
   * The condition and the lease columns of a write of {@code step}: for an item this runner holds,
   * its version and owner must be as claimed; for any other, nobody may hold it (and the write
   * leaves it free). A status out of running phases releases the item in the same write.
   */
  Fence fence(Step step) {
    String id = step.next().id();
    Long version = held.get(id);
    boolean keep = version != null && step.next().status().isRunningPhases();
    return new Fence(id, version, keep ? me : null);
  }

  /** After a fenced write succeeded. */
  void wrote(Fence fence) {
    if (fence.owner() == null) {
      held.remove(fence.itemId());
    } else {
      held.put(fence.itemId(), fence.version() + 1);
    }
  }

  /** After a fenced write found the item changed: this runner holds it no longer. */
  void lost(String itemId) {
    held.remove(itemId);
  }

  /**
   * One conditional write: the version this runner holds the item at (null: it does not hold it,
   * and nobody may), and the owner to leave (null: released).
   */
  record Fence(String itemId, Long version, String owner) {
    boolean heldHere() {
      return version != null;
    }
  }
}
