package dev.orchestrate.state.sqlite;

import dev.orchestrate.context.TurnRepository;
import dev.orchestrate.memory.MemoryRepository;
import dev.orchestrate.retention.RetentionStore;
import dev.orchestrate.scheduler.EventLog;
import dev.orchestrate.scheduler.StateRepository;
import dev.orchestrate.state.BusyWait;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.ItemHistory;
import dev.orchestrate.state.RecordedPolicies;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.state.sql.Jdbc;
import dev.orchestrate.stats.StatsSource;
import dev.orchestrate.workspace.WorkspaceStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Set;

/**
 * The SQLite {@link StateStore}: one connection to {@code state.db}, opened as the mode asks
 * (read-only: no migration, no file created; read-write: created and migrated; maintenance: with
 * the bulk settings). The writing repositories share one {@link Jdbc}, so they share its
 * transactions, busy waiting and the check that the file is still the one opened; the read models
 * read on the same connection. Parts are made when first asked for: a command pays only for what it uses.
 */
final class SqliteStateStore implements StateStore {
  private final Path file;
  private final Connection connection;
  private final SqliteStateRepository items;
  private final SqliteStateReader reader;
  private RetentionStore retention;
  private SqliteEventLog events;
  private SqliteStats stats;
  private SqliteItemHistory history;
  private SqliteDashboard dashboard;

  private SqliteStateStore(Connection connection, Path file) {
    this.file = file;
    this.connection = connection;
    this.items = new SqliteStateRepository(connection, file);
    this.reader = items.reader();
  }

  static SqliteStateStore open(Path file, Mode mode) {
    Connection connection = switch (mode) {
      case READ_ONLY -> Database.openReadOnly(file);
      case READ_WRITE -> Database.open(file);
      case MAINTENANCE -> Database.openForMaintenance(file);
    };
    try {
      return new SqliteStateStore(connection, file);
    } catch (RuntimeException e) {
      Database.closeQuietly(connection);
      throw e;
    }
  }

  @Override
  public int schemaVersion() {
    return reader.schemaVersion();
  }

  @Override
  public int latestSchemaVersion() {
    return Database.latestSchemaVersion();
  }

  @Override
  public StateRepository items() {
    return items;
  }

  @Override
  public MemoryRepository memory() {
    return items.memoryRepository();
  }

  @Override
  public TurnRepository turns() {
    return items.turnRepository();
  }

  @Override
  public EventLog events() {
    if (events == null) {
      events = new SqliteEventLog(connection, file);
    }
    return events;
  }

  @Override
  public WorkspaceStore workspaces() {
    return items.workspaceStore();
  }

  @Override
  public RetentionStore retention() {
    if (retention == null) {
      retention = items.retention();
    }
    return retention;
  }

  @Override
  public StatsSource stats() {
    if (stats == null) {
      stats = new SqliteStats(connection, file);
    }
    return stats;
  }

  @Override
  public ItemHistory history() {
    if (history == null) {
      history = new SqliteItemHistory(connection, file);
    }
    return history;
  }

  @Override
  public DashboardQueries dashboard() {
    if (dashboard == null) {
      dashboard = new SqliteDashboard(connection, file);
    }
    return dashboard;
  }

  @Override
  public Set<String> itemIds() {
    return reader.itemIds();
  }

  @Override
  public RecordedPolicies recordedPolicies() {
    return reader.recordedPolicies();
  }

  @Override
  public void busyWait(BusyWait wait) {
    items.busyWait(wait);
  }

  @Override
  public Vacuum vacuum() {
    long[] bytes = Database.vacuum(file);
    return new Vacuum(bytes[0], bytes[1]);
  }

  @Override
  public void close() {
    Database.closeQuietly(connection);
  }
}
