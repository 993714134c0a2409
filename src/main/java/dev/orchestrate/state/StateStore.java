package dev.orchestrate.state;

import dev.orchestrate.context.TurnRepository;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.BacklogHooks;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.item.ItemLeases;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.memory.MemoryRepository;
import dev.orchestrate.retention.RetentionStore;
import dev.orchestrate.stats.StatsSource;
import dev.orchestrate.workspace.WorkspaceStore;
import java.util.List;
import java.util.Set;

/**
 * The one port between orchestrate and where its state is kept: everything the domain reads or
 * writes goes through a store opened by a {@link StateBackend}. The repositories it hands out share
 * the store's connection (and its transactions, busy waiting and file checks) and are closed with
 * it: close the store, never one of its parts.
 *
 * <p>A backend implements this interface once and passes the store contract test suite
 * ({@code StateStoreContract} in the tests); docs/architecture.md shows where each part is used.
 */
public interface StateStore extends AutoCloseable {
  /** How a store is opened; a command opens the least it needs. */
  enum Mode {
    /** Reads only, never migrates or writes; for commands that only look ({@code logs}, {@code serve}, dry runs). */
    READ_ONLY,
    /** Reads and writes (migrating an older schema first); what a run and the editing commands open. */
    READ_WRITE,
    /** Read-write, tuned for large batch deletes and imports ({@code compact}, {@code memory import}). */
    MAINTENANCE
  }

  /**
   * The item leases a run works under: {@link ItemLeases#SOLE} for a runner that holds the whole
   * state (its run lease names no runner), else claims by {@code runnerId}, whose heartbeat older
   * than {@code timeout} marks it dead. Once made, the store's item writes are fenced by them.
   */
  ItemLeases leases(String runnerId, String host, java.time.Duration timeout);

  /** The schema version of the state as it was found; 0 for a state nothing has been written to yet. */
  int schemaVersion();

  /** The schema version this orchestrate writes; a state at an older one is migrated when opened for writing. */
  int latestSchemaVersion();

  /** Items, jobs and runs: what the scheduler writes. */
  StateRepository items();

  /** Project memory (semantic, procedural and episodic items). */
  MemoryRepository memory();

  /** Turn history and the rolling summaries of prior context. */
  TurnRepository turns();

  /** The event log (transitions and other events), and its compaction. */
  EventLog events();

  /** The agent profiles a provider's limit paused. */
  AgentPauses pauses();

  /** The transition commands of {@code backlog.source} called for each item's present status. */
  BacklogHooks backlogHooks();

  /** What each agent profile spent and how its last jobs ended ({@code orchestrate agents}). */
  AgentActivity agentActivity();

  /** Per-item git worktrees. */
  WorkspaceStore workspaces();

  /** What retention scans and deletes, batch by batch, as {@code retention/} decides. */
  RetentionStore retention();

  /** The figures {@code stats} reports, and its trend samples. */
  StatsSource stats();

  /** Read models of one item's history: its jobs, answers and summary. */
  ItemHistory history();

  /** The read-only views of the dashboard ({@code orchestrate serve}). */
  DashboardQueries dashboard();

  /** The rows of {@code status}, streamed a page at a time. */
  StatusRows statusRows();

  /** Every item id the state knows, in no particular order (for completion and dry runs). */
  Set<String> itemIds();

  /**
   * The candidates of a did-you-mean for an id the state may not know: the ids nearest to it in
   * sort order, {@code perSide} before it and {@code perSide} from it on (so the id itself when
   * known), and as many around its upper-cased form. Read through the ids' index, so an unknown
   * id costs the same in a state of ten items or a million (where {@link #itemIds} reads them all).
   */
  List<String> idsNear(String id, int perSide);

  /**
   * The retention policies and {@code memory.keep_recent} the last run or compact recorded, for a
   * command that runs without a config file.
   */
  RecordedPolicies recordedPolicies();

  /** How a write waits while another process holds the state's write lock. */
  void busyWait(BusyWait wait);

  /** Rewrites the storage so that it shrinks to its live data; returns the bytes before and after. */
  Vacuum vacuum();

  @Override
  void close();

  /** Bytes of the state's storage before and after a {@link #vacuum()}. */
  record Vacuum(long bytesBefore, long bytesAfter) {
  }
}
