package dev.orchestrate.state.sql;

import dev.orchestrate.context.TurnRepository;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.BacklogHooks;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.memory.MemoryRepository;
import dev.orchestrate.retention.RetentionStore;
import dev.orchestrate.state.AgentActivity;
import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.ItemHistory;
import dev.orchestrate.state.RecordedPolicies;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.StatusRows;
import dev.orchestrate.stats.StatsSource;
import dev.orchestrate.workspace.WorkspaceStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * The {@link StateStore} of every SQL backend: one connection, opened by the backend as the mode
 * asks (read-only, read-write and migrated, maintenance) and wrapped in a {@link Jdbc} that speaks
 * the backend's {@link Dialect}. Every part shares that one {@link Jdbc}, so they share its
 * transactions, busy waiting and commit checks; the read models read on the same connection.
 * Parts are made when first asked for: a command pays only for what it uses.
 */
public final class SqlStateStore implements StateStore {
  private final Jdbc jdbc;
  private final Path root;
  /** Where this runner's job directories are: {@code root/jobs}, or a directory of its own. */
  private final Path jobs;
  private final SqlStateRepository items;
  private final SqlStateReader reader;
  private RetentionStore retention;
  private SqlEventLog events;
  private SqlStats stats;
  private SqlItemHistory history;
  private SqlDashboard dashboard;
  private SqlAgentPauses pauses;
  private SqlBacklogHooks backlogHooks;

  private SqlStateStore(Jdbc jdbc, Path root, Path jobs) {
    this.jdbc = jdbc;
    this.root = root;
    this.jobs = jobs;
    this.items = new SqlStateRepository(jdbc, root, jobs);
    this.reader = items.reader();
  }

  /**
   * The store over {@code jdbc}'s connection, which it closes (at once when it cannot be opened).
   *
   * @param root the local state directory, whose job logs are in its {@code jobs/}: their paths are
   *             stored relative to it, and retention deletes only job directories in that
   *             {@code jobs/}
   */
  public static SqlStateStore open(Jdbc jdbc, Path root) {
    return open(jdbc, root, root.resolve("jobs"));
  }

  /**
   * The store over {@code jdbc}'s connection, whose runner keeps its job logs in {@code jobs}
   * ({@code --logs}, a PostgreSQL state): paths there are stored absolute, and retention and the
   * orphan sweep delete job directories only in it.
   */
  public static SqlStateStore open(Jdbc jdbc, Path root, Path jobs) {
    try {
      return new SqlStateStore(jdbc, root.toAbsolutePath().normalize(), jobs.toAbsolutePath().normalize());
    } catch (RuntimeException e) {
      jdbc.close();
      throw e;
    }
  }

  /** The helper every part uses. */
  Jdbc jdbc() {
    return jdbc;
  }

  /** The items repository as its own class, with what the port does not show. */
  SqlStateRepository repository() {
    return items;
  }

  /**
   * The item leases of runner {@code runnerId} on this store, or {@link ItemLeases#SOLE} when it is
   * null (one runner at a time). Once made, every item write of this store is fenced by them.
   */
  @Override
  public ItemLeases leases(String runnerId, String host, java.time.Duration timeout) {
    if (runnerId == null) {
      return ItemLeases.SOLE;
    }
    SqlItemLeases leases = new SqlItemLeases(jdbc, runnerId, host, timeout);
    items.fencedBy(leases);
    return leases;
  }

  @Override
  public int schemaVersion() {
    return reader.schemaVersion();
  }

  @Override
  public int latestSchemaVersion() {
    return jdbc.dialect().latestSchemaVersion();
  }

  @Override
  public StateRepository items() {
    return items;
  }

  @Override
  public MemoryRepository memory() {
    // on this store's connection, for the run: no second connection, no second migration check;
    // closing it leaves the connection open, closing the store closes it
    return new SqlMemoryRepository(jdbc, false);
  }

  @Override
  public TurnRepository turns() {
    return new SqlTurnRepository(jdbc);
  }

  @Override
  public EventLog events() {
    if (events == null) {
      events = new SqlEventLog(jdbc);
    }
    return events;
  }

  @Override
  public AgentPauses pauses() {
    if (pauses == null) {
      pauses = new SqlAgentPauses(jdbc);
    }
    return pauses;
  }

  @Override
  public BacklogHooks backlogHooks() {
    if (backlogHooks == null) {
      backlogHooks = new SqlBacklogHooks(jdbc);
    }
    return backlogHooks;
  }

  @Override
  public AgentActivity agentActivity() {
    return new SqlAgentActivity(jdbc);
  }

  @Override
  public WorkspaceStore workspaces() {
    return new SqlWorkspaceStore(jdbc);
  }

  @Override
  public RetentionStore retention() {
    if (retention == null) {
      retention = new SqlRetention(jdbc, root, jobs);
    }
    return retention;
  }

  @Override
  public StatsSource stats() {
    if (stats == null) {
      stats = new SqlStats(jdbc);
    }
    return stats;
  }

  @Override
  public ItemHistory history() {
    if (history == null) {
      history = new SqlItemHistory(jdbc, root);
    }
    return history;
  }

  @Override
  public StatusRows statusRows() {
    return new SqlStatusRows(jdbc, reader.schemaVersion());
  }

  @Override
  public DashboardQueries dashboard() {
    if (dashboard == null) {
      dashboard = new SqlDashboard(jdbc, root, reader.schemaVersion());
    }
    return dashboard;
  }

  @Override
  public Set<String> itemIds() {
    return reader.itemIds();
  }

  @Override
  public List<String> idsNear(String id, int perSide) {
    return reader.idsNear(id, perSide);
  }

  @Override
  public RecordedPolicies recordedPolicies() {
    return reader.recordedPolicies();
  }

  @Override
  public void busyWait(BusyWait wait) {
    jdbc.busyWait(wait);
  }

  @Override
  public Vacuum vacuum() {
    return jdbc.dialect().vacuum(jdbc);
  }

  @Override
  public void close() {
    jdbc.close();
  }
}
