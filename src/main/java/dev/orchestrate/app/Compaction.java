package dev.orchestrate.app;

import dev.orchestrate.config.Config;
import dev.orchestrate.config.SecretEnv;
import dev.orchestrate.context.ContextHistory;
import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.jobs.Secrets;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.memory.MemoryCompaction;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.memory.MemoryRepository;
import dev.orchestrate.retention.Retention;
import dev.orchestrate.retention.RetentionPass;
import dev.orchestrate.retention.RetentionStore;
import dev.orchestrate.retention.RetentionStore.OrphanSweep;
import dev.orchestrate.state.RecordedPolicies;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitException;
import dev.orchestrate.workspace.WorktreeRetention;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * {@code orchestrate compact}: memory compaction, event-log compaction, every retention policy in
 * full (finished items' turns summarized first), worktrees of finished items, orphaned job log
 * directories and, on request, a vacuum; or, incrementally, the one budgeted retention pass a run
 * makes per maintenance interval. Load-bearing memories and events and running jobs are never
 * deleted, and it is safe beside a running {@code run}.
 */
public final class Compaction {
  private final StateBackend backend;
  private final Config config;
  private final Clock clock;

  /**
   * @param config the config whose policies apply; without a config file, {@link #withRecorded}
   *               of the policies the state recorded
   */
  public Compaction(StateBackend backend, Config config, Clock clock) {
    this.backend = backend;
    this.config = config;
    this.clock = clock;
  }

  /**
   * What one compact does.
   *
   * @param keepRecent     prunable memories to keep, newest first
   * @param dryRun         look only: what would be deleted and why the rest stays
   * @param vacuum         shrink the storage afterwards
   * @param sampleLimit    ids a dry run lists
   * @param listProtected  a dry run also lists every load-bearing memory it keeps
   */
  public record Request(int keepRecent, boolean dryRun, boolean vacuum, int sampleLimit, boolean listProtected) {
  }

  /**
   * What a compact did (or, dry, would do).
   *
   * @param applied   whether retention ran (never in a dry run, nor without state)
   * @param retention rows deleted per structure by retention, worktrees removed included
   */
  public record Report(MemoryCompaction memory, EventLog.EventCompaction events, int eventsKeep,
      List<MemoryItem> protectedItems, boolean applied, Map<StructureName, Long> retention, OrphanSweep orphans,
      Optional<StateStore.Vacuum> vacuumed, long bytesBefore, long bytesAfter) {
    public Report {
      protectedItems = List.copyOf(protectedItems);
      retention = Map.copyOf(retention);
    }
  }

  /**
   * One budgeted pass, what a run does per {@code retention.maintenance_interval}.
   *
   * @param moreToDo more is beyond the policies than the budget allowed
   */
  public record IncrementalReport(boolean applied, Map<StructureName, Long> deleted, boolean moreToDo, long passMs) {
    public IncrementalReport {
      deleted = Map.copyOf(deleted);
    }
  }

  /** The policies the last run or compact recorded, when there is a state. */
  public Optional<RecordedPolicies> recordedPolicies() {
    if (!backend.exists()) {
      return Optional.empty();
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      return Optional.of(store.recordedPolicies());
    }
  }

  /**
   * {@code config} with the retention policies and memory keep_recent the state recorded: a cron
   * job run without the project's config must not prune a project that chose larger limits down to
   * the defaults (nor record the defaults as its policies).
   */
  public static Config withRecorded(Config config, RecordedPolicies recorded) {
    return new Config(config.source(), config.agent(), config.execution(), config.defaultPipeline(),
        config.pipelines(), config.context(), recorded.memoryKeepRecent(), config.memoryBootContextChars(),
        recorded.retention());
  }

  /** Every retention policy in full, after memory and event-log compaction; see the class comment. */
  public Report compact(Request request) {
    int eventsKeep = config.retention().events().rows().orElse(Integer.MAX_VALUE);
    long bytesBefore = backend.bytes();
    if (!backend.exists()) {
      return new Report(new MemoryCompaction(request.dryRun(), 0, 0, 0, 0, Map.of(), List.of()),
          new EventLog.EventCompaction(0, 0, 0), eventsKeep, List.of(), false, Map.of(), OrphanSweep.NONE,
          Optional.empty(), bytesBefore, bytesBefore);
    }
    try (StateStore store = backend.open(StateStore.Mode.MAINTENANCE)) {
      MemoryRepository memories = store.memory();
      MemoryCompaction memory;
      List<MemoryItem> protectedItems = List.of();
      if (request.dryRun()) {
        memory = memories.preview(request.keepRecent(), request.sampleLimit());
        protectedItems = request.listProtected() ? memories.activeLoadBearing() : List.of();
      } else {
        memory = memories.compact(request.keepRecent(), clock.instant());
      }
      EventLog.EventCompaction events = store.events().compact(eventsKeep, request.dryRun());
      Map<StructureName, Long> retained = request.dryRun() ? Map.of()
          : retention(store, memory.deleted() > 0, events.deleted() > 0);
      // After retention, so that a log directory whose delete failed just now is tried again.
      OrphanSweep orphans = store.retention().sweepOrphanJobDirectories(request.dryRun());
      Optional<StateStore.Vacuum> vacuumed = request.vacuum() && !request.dryRun()
          ? Optional.of(store.vacuum()) : Optional.empty();
      return new Report(memory, events, eventsKeep, protectedItems, !request.dryRun(), retained, orphans, vacuumed,
          bytesBefore, backend.bytes());
    }
  }

  /** One budgeted retention pass from the saved cursors, then a stats sample; no memory compaction. */
  public IncrementalReport incremental() {
    if (!backend.exists()) {
      return new IncrementalReport(false, Map.of(), false, 0);
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_WRITE)) {
      long started = System.nanoTime();
      RetentionPass pass = new Retention(store.retention()).pass(config.retention(), config.memoryKeepRecent(),
          clock.instant(),
          condenser(store));
      long elapsedMs = (System.nanoTime() - started) / 1_000_000;
      store.stats().recordSample("compact", clock.instant());
      return new IncrementalReport(true, pass.deleted(), !pass.finished(), elapsedMs);
    }
  }

  /**
   * Every retention policy, in full (budgeted passes until nothing is beyond a policy), then the
   * worktrees and one stats sample. The policy recorded for memory is the configured (or recorded)
   * keep_recent, never a one-off {@code --keep-recent}: a later compact without a config would keep
   * applying it.
   */
  private Map<StructureName, Long> retention(StateStore store, boolean memoryPruned, boolean eventsPruned) {
    RetentionStore retention = store.retention();
    if (memoryPruned) {
      retention.markPruned(StructureName.MEMORY, clock.instant());
    }
    if (eventsPruned) {
      retention.markPruned(StructureName.EVENTS, clock.instant());
    }
    RetentionPass pass = new Retention(retention).full(config.retention(), config.memoryKeepRecent(), clock.instant(),
        condenser(store), n -> {});
    Map<StructureName, Long> deleted = new EnumMap<>(StructureName.class);
    deleted.putAll(pass.deleted());
    deleted.put(StructureName.WORKTREES, worktrees(store));
    store.stats().recordSample("compact", clock.instant());
    return deleted;
  }

  /**
   * Summarize-then-prune with the configured summarizer (a {@code command} summarizer runs in the
   * config file's directory), as the run does it.
   */
  private RetentionStore.Condenser condenser(StateStore store) {
    // Built at the first item to condense: most compacts condense none, and building the summarizer
    // and the secrets it masks was 5 % of a short compact's main-thread samples (docs/benchmarks.md,
    // "Sixth pass"; the whole command's time moved within the noise).
    return new RetentionStore.Condenser() {
      private RetentionStore.Condenser built;

      @Override
      public int condense(String itemId) {
        if (built == null) {
          Path workDir = config.source().map(p -> p.toAbsolutePath().getParent())
              .orElse(Path.of("").toAbsolutePath());
          Secrets secrets = Secrets.forAgent(System.getenv(), config.agent(), SecretEnv.of(config));
          built = ContextHistory.create(store.turns(), config.context(), workDir, clock,
              SummarizationListener.NONE, System::getenv, secrets::mask)::condense;
        }
        return built.condense(itemId);
      }
    };
  }

  /**
   * Worktrees of finished items past retention.worktrees, removed from disk (their branches stay);
   * never one with uncommitted work unless discard_uncommitted. Returns how many were removed.
   */
  private long worktrees(StateStore store) {
    try {
      return new WorktreeRetention(Git::new, store.workspaces(), config.retention().worktrees(), clock)
          .sweep(clock.instant()).removed();
    } catch (GitException e) {
      LoggerFactory.getLogger(Compaction.class).warn("worktrees were left as they are: {}", e.getMessage());
      return 0;
    }
  }
}
