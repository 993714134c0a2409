package dev.orchestrate.cli;

import dev.orchestrate.config.Ranges;
import dev.orchestrate.config.Config;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.GitException;
import dev.orchestrate.workspace.WorktreeRetention;
import dev.orchestrate.context.ContextHistory;
import dev.orchestrate.context.SummarizationListener;
import dev.orchestrate.memory.CompactionPolicy;
import dev.orchestrate.memory.MemoryCompaction;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.scheduler.EventLog;
import dev.orchestrate.state.sqlite.Database;
import dev.orchestrate.state.sqlite.OrphanJobDirectories;
import dev.orchestrate.state.RecordedPolicies;
import dev.orchestrate.state.sqlite.SqliteEventLog;
import dev.orchestrate.state.sqlite.SqliteMemoryRepository;
import dev.orchestrate.state.sqlite.SqliteRetention;
import dev.orchestrate.state.sqlite.SqliteStateReader;
import dev.orchestrate.state.sqlite.SqliteStateRepository;
import dev.orchestrate.state.StateDirectory;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code orchestrate compact}: prune old episodic memories and routine events; optionally shrink the file. */
@Command(name = "compact", mixinStandardHelpOptions = true,
    description = {"Delete old episodic memories (keeping the --keep-recent newest) and routine event-log "
            + "rows (keeping retention.events.max_rows), then apply every retention policy in full: job "
            + "history and its log directories, turns (finished items' turns summarized first), events, "
            + "stats samples; and delete job log directories no job row refers to (left by a crash or a "
            + "failed delete). Without a config file, the policies the last run or compact recorded in "
            + "the state apply. Load-bearing memories (semantic, procedural, tagged rejected-path), "
            + "load-bearing events and running jobs are never deleted. Safe while a run is active; "
            + "idempotent."})
final class CompactCommand implements Callable<Integer> {
  /** Ids listed by a dry run (text and JSON); -v lists them all. */
  static final int DRY_RUN_SAMPLE = 100;

  @ParentCommand
  OrchestrateCommand root;

  @Spec
  CommandSpec spec;

  @Option(names = "--keep-recent", paramLabel = "K",
      description = "Prunable memories to keep, newest first (default: memory.keep_recent, 50)")
  Integer keepRecent;

  @Option(names = "--dry-run", description = "Show what would be deleted and why the rest stays; change nothing")
  boolean dryRun;

  @Option(names = "--vacuum", description = "Afterwards rewrite the database file so it shrinks (VACUUM)")
  boolean vacuum;

  @Option(names = "--json", description = "Print one JSON document (kind \"compact\") on stdout")
  boolean json;

  @Option(names = "--incremental", description = "Only one budgeted retention pass, what a run does once per "
      + "retention.maintenance_interval: at most retention.budget rows per structure, resuming where the last "
      + "pass stopped, so its cost does not grow with the database (for frequent cron jobs). No memory compaction.")
  boolean incremental;

  @Override
  public Integer call() {
    if (keepRecent != null && keepRecent < 0) {
      throw CliException.usage("--keep-recent must be 0 or more, got " + keepRecent);
    }
    Flags.atMost("--keep-recent", keepRecent, Ranges.KEEP_RECENT);
    if (incremental && (dryRun || vacuum || keepRecent != null)) {
      throw CliException.usage("--incremental runs one retention pass only; it does not combine with "
          + "--dry-run, --vacuum or --keep-recent");
    }
    StateDirectory dir = root.stateDirectory();
    Config config = withRecordedPolicies(root.loadConfig(null), dir);
    int keep = keepRecent != null ? keepRecent : config.memoryKeepRecent();
    if (incremental) {
      return incremental(config);
    }
    int eventsKeep = config.retention().events().rows().orElse(Integer.MAX_VALUE);
    boolean verbose = root.verbose.length > 0;

    MemoryCompaction memory;
    EventLog.EventCompaction events;
    List<MemoryItem> protectedItems = List.of();
    long bytesBefore = Database.bytes(dir.database());
    if (dir.hasDatabase()) {
      try (SqliteMemoryRepository memories = SqliteMemoryRepository.open(dir.database());
          SqliteEventLog log = SqliteEventLog.open(dir.database())) {
        if (dryRun) {
          memory = memories.preview(keep, verbose ? Integer.MAX_VALUE : DRY_RUN_SAMPLE);
          protectedItems = verbose ? memories.activeLoadBearing() : List.of();
        } else {
          memory = memories.compact(keep, Clock.systemUTC().instant());
        }
        events = log.compact(eventsKeep, dryRun);
      }
    } else {
      memory = new MemoryCompaction(dryRun, 0, 0, 0, 0, Map.of(), List.of());
      events = new EventLog.EventCompaction(0, 0, 0);
    }
    Map<String, Long> retained = dryRun || !dir.hasDatabase() ? Map.of()
        : retention(config, dir, memory.deleted() > 0, events.deleted() > 0);
    // After retention, so that a log directory whose delete failed just now is tried again.
    OrphanJobDirectories.Sweep orphans = OrphanJobDirectories.sweep(dir, dryRun);
    long[] vacuumed = vacuum && !dryRun && dir.hasDatabase() ? Database.vacuum(dir.database()) : null;
    long bytesAfter = Database.bytes(dir.database());

    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> doc = toJson(keep, eventsKeep, memory, events, protectedItems, vacuumed, bytesBefore,
          bytesAfter);
      Map<String, Object> retention = retentionJson(retained);
      retention.put("applied", !dryRun && dir.hasDatabase());
      Map<String, Object> orphanDirs = new LinkedHashMap<>();
      orphanDirs.put("found", orphans.found());
      orphanDirs.put("deleted", orphans.deleted());
      retention.put("orphan_job_dirs", orphanDirs);
      doc.put("retention", retention);
      Json.print(out, doc);
    } else {
      printText(out, keep, eventsKeep, memory, events, protectedItems, vacuumed);
      printRetention(out, retained);
      printOrphans(out, orphans);
    }
    return ExitCode.OK;
  }

  /**
   * Without a config file (none given, none in the current directory), the retention policies and
   * memory keep_recent the last run or compact recorded in the state, not the built-in defaults: a
   * cron job run from elsewhere must not prune a project that chose {@code none} or larger
   * limits down to the defaults (nor record the defaults as its policies). A structure with
   * nothing recorded takes its default. Said in one line on stderr, unless --quiet.
   */
  private Config withRecordedPolicies(Config config, StateDirectory dir) {
    if (config.source().isPresent() || !dir.hasDatabase()) {
      return config;
    }
    RecordedPolicies recorded;
    try (SqliteStateReader reader = SqliteStateReader.open(dir.database())) {
      recorded = reader.recordedPolicies();
    }
    if (!root.quiet()) {
      PrintWriter err = spec.commandLine().getErr();
      err.println(recordedNote(recorded, keepRecent != null));
      err.flush();
    }
    return new Config(config.source(), config.agent(), config.execution(), config.defaultPipeline(),
        config.pipelines(), config.context(), recorded.memoryKeepRecent(), config.memoryBootContextChars(),
        recorded.retention());
  }

  static String recordedNote(RecordedPolicies recorded, boolean keepRecentGiven) {
    String start = "orchestrate: note: no config file (--config, $ORCHESTRATE_CONFIG, orchestrate.yaml here or above)";
    List<String> defaulted = recorded.defaulted().stream()
        .filter(s -> !(keepRecentGiven && s.equals("memory"))).toList();
    if (recorded.nothingRecorded()) {
      return start + " and no policies recorded in the state yet: applying the built-in retention defaults";
    }
    return start + ": applying the retention policies the last run or compact recorded in the state"
        + (defaulted.isEmpty() ? "" : "; built-in defaults for " + String.join(", ", defaulted)
        + " (nothing recorded)");
  }

  private void printOrphans(PrintWriter out, OrphanJobDirectories.Sweep orphans) {
    String what = "job log directories no job row refers to: ";
    if (dryRun) {
      out.println(what + "would delete " + orphans.found());
    } else if (orphans.deleted() == orphans.found()) {
      out.println(what + "deleted " + orphans.deleted());
    } else {
      out.println(what + "deleted " + orphans.deleted() + " of " + orphans.found()
          + " (the rest could not be deleted: see the warnings; the next compact tries again)");
    }
    out.flush();
  }

  private int incremental(Config config) {
    StateDirectory dir = root.stateDirectory();
    Map<String, Long> deleted = Map.of();
    boolean more = false;
    long elapsedMs = 0;
    if (dir.hasDatabase()) {
      Clock clock = Clock.systemUTC();
      try (SqliteStateRepository store = SqliteStateRepository.open(dir.database())) {
        long started = System.nanoTime();
        SqliteRetention.Pass pass = store.retention().pass(config.retention(), config.memoryKeepRecent(),
            clock.instant(),
            condenser(config, store, clock));
        elapsedMs = (System.nanoTime() - started) / 1_000_000;
        store.recordSample("compact", clock.instant());
        deleted = pass.deleted();
        more = !pass.finished();
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Map<String, Object> doc = Json.envelope("compact");
      doc.put("incremental", true);
      Map<String, Object> retention = retentionJson(deleted);
      retention.put("applied", dir.hasDatabase());
      retention.put("more_to_do", more);
      retention.put("pass_ms", elapsedMs);
      doc.put("retention", retention);
      Json.print(out, doc);
    } else {
      printRetention(out, deleted);
      if (more) {
        out.println("  more is beyond the policies: the next pass (or a full compact) goes on from here");
      }
      out.flush();
    }
    return ExitCode.OK;
  }

  /**
   * Every retention policy, in full (budgeted passes until nothing is beyond a policy), with the
   * configured summarizer condensing finished items' turns; then one stats sample. The policy
   * recorded for memory is the configured (or recorded) keep_recent, never a one-off --keep-recent:
   * a later compact without a config would keep applying it (--keep-recent 0 once, and every cron
   * compact after it would delete every episode).
   */
  private static Map<String, Long> retention(Config config, StateDirectory dir, boolean memoryPruned,
      boolean eventsPruned) {
    Clock clock = Clock.systemUTC();
    try (SqliteStateRepository store = SqliteStateRepository.open(dir.database())) {
      if (memoryPruned) {
        store.retention().markPruned("memory", clock.instant());
      }
      if (eventsPruned) {
        store.retention().markPruned("events", clock.instant());
      }
      SqliteRetention.Pass pass = store.retention().full(config.retention(), config.memoryKeepRecent(), clock.instant(),
          condenser(config, store, clock), n -> { });
      Map<String, Long> deleted = new LinkedHashMap<>(pass.deleted());
      deleted.put("worktrees", worktrees(config, store, clock));
      store.recordSample("compact", clock.instant());
      return deleted;
    }
  }

  /**
   * Summarize-then-prune with the configured summarizer (a {@code command} summarizer runs in the
   * config file's directory), as the run does it.
   */
  private static SqliteRetention.Condenser condenser(Config config, SqliteStateRepository store, Clock clock) {
    Path workDir = config.source().map(p -> p.toAbsolutePath().getParent()).orElse(Path.of("").toAbsolutePath());
    return ContextHistory.create(store.turnRepository(), config.context(), workDir, clock,
        SummarizationListener.NONE, System::getenv)::condense;
  }

  /**
   * Worktrees of finished items past retention.worktrees, removed from disk (their branches stay);
   * never one with uncommitted work unless discard_uncommitted. Returns how many were removed.
   */
  private static long worktrees(Config config, SqliteStateRepository store, Clock clock) {
    try {
      return new WorktreeRetention(new Git(), store.workspaceStore(), config.retention().worktrees(), clock)
          .sweep(clock.instant()).removed();
    } catch (GitException e) {
      org.slf4j.LoggerFactory.getLogger(CompactCommand.class).warn("worktrees were left as they are: {}",
          e.getMessage());
      return 0;
    }
  }

  private static Map<String, Object> retentionJson(Map<String, Long> deleted) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String structure : SqliteRetention.STRUCTURES) {
      out.put(structure, Map.of("deleted", deleted.getOrDefault(structure, 0L)));
    }
    out.put("worktrees", Map.of("removed", deleted.getOrDefault("worktrees", 0L)));
    return out;
  }

  private void printRetention(PrintWriter out, Map<String, Long> deleted) {
    if (dryRun) {
      out.println("retention: not applied in a dry run (orchestrate stats shows what is over its policy)");
    } else {
      out.println("retention: deleted " + deleted.getOrDefault("jobs", 0L) + " jobs (with their log directories), "
          + deleted.getOrDefault("turns", 0L) + " turns, " + deleted.getOrDefault("events", 0L) + " events, "
          + deleted.getOrDefault("stats_samples", 0L) + " stats samples");
      if (deleted.getOrDefault("worktrees", 0L) > 0) {
        out.println("retention: removed " + deleted.get("worktrees") + " worktrees of finished items (branches kept)");
      }
    }
    out.flush();
  }

  private Map<String, Object> toJson(int keep, int eventsKeep, MemoryCompaction m, EventLog.EventCompaction e,
      List<MemoryItem> protectedItems, long[] vacuumed, long bytesBefore, long bytesAfter) {
    Map<String, Object> doc = Json.envelope("compact");
    doc.put("dry_run", dryRun);
    Map<String, Object> memory = new LinkedHashMap<>();
    memory.put("deleted", m.deleted());
    memory.put("kept_load_bearing", m.keptLoadBearing());
    memory.put("kept_recent", m.keptRecent());
    memory.put("keep_recent", keep);
    memory.put("superseded_untouched", m.superseded());
    memory.put("protected_by", new TreeMap<>(m.protectedBy()));
    if (dryRun) {
      memory.put("would_delete_ids", m.deletedIds());
      if (!protectedItems.isEmpty()) {
        memory.put("protected_items", protectedItems.stream().map(i -> {
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("id", i.id());
          row.put("because", CompactionPolicy.protectedBecause(i));
          return row;
        }).toList());
      }
    }
    doc.put("memory", memory);
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("deleted", e.deleted());
    ev.put("kept_load_bearing", e.keptLoadBearing());
    ev.put("kept_recent", e.keptRecent());
    ev.put("keep_recent", eventsKeep);
    doc.put("events", ev);
    Map<String, Object> database = new LinkedHashMap<>();
    database.put("bytes_before", bytesBefore);
    database.put("bytes_after", bytesAfter);
    database.put("vacuumed", vacuumed != null);
    doc.put("database", database);
    return doc;
  }

  private void printText(PrintWriter out, int keep, int eventsKeep, MemoryCompaction m, EventLog.EventCompaction e,
      List<MemoryItem> protectedItems, long[] vacuumed) {
    String verb = dryRun ? "would delete " : "deleted ";
    // The flag's name when the flag set it, the config key's otherwise.
    String keepSource = keepRecent != null ? "--keep-recent " : "memory.keep_recent ";
    out.println("memory: " + verb + m.deleted() + " episodic; kept " + m.keptRecent() + " recent (" + keepSource
        + keep + ") and " + m.keptLoadBearing() + " load-bearing" + (m.superseded() > 0
        ? "; " + m.superseded() + " superseded left as they are" : ""));
    if (m.keptLoadBearing() > 0) {
      StringBuilder why = new StringBuilder("  load-bearing, never deleted:");
      new TreeMap<>(m.protectedBy()).forEach((reason, n) -> why.append(' ').append(n).append(' ').append(reason));
      out.println(why);
    }
    for (MemoryItem item : protectedItems) {
      out.println(TerminalText.safe("    " + item.id() + " (" + CompactionPolicy.protectedBecause(item) + ")"));
    }
    if (dryRun && !m.deletedIds().isEmpty()) {
      out.println("  would delete (oldest first): " + TerminalText.safe(String.join(", ", m.deletedIds()))
          + (m.deleted() > m.deletedIds().size() ? ", … " + (m.deleted() - m.deletedIds().size())
          + " more (-v lists all)" : ""));
    }
    out.println("events: " + verb + e.deleted() + " routine; kept " + e.keptRecent() + " recent ("
        + (eventsKeep == Integer.MAX_VALUE ? "retention.events.max_rows none" : "retention.events.max_rows " + eventsKeep)
        + ") and " + e.keptLoadBearing() + " load-bearing");
    if (vacuumed != null) {
      out.println("vacuum: " + vacuumed[0] + " -> " + vacuumed[1] + " bytes");
    }
    out.flush();
  }
}
