package dev.orchestrate.cli;

import dev.orchestrate.app.Compaction;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Ranges;
import dev.orchestrate.item.EventLog;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.memory.CompactionPolicy;
import dev.orchestrate.memory.MemoryCompaction;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.retention.RetentionStore.OrphanSweep;
import dev.orchestrate.state.RecordedPolicies;
import dev.orchestrate.state.StateBackend;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
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
final class CompactCommand implements Callable<Integer>, FastPath.Command {
  /** Ids listed by a dry run (text and JSON); -v lists them all. */
  static final int DRY_RUN_SAMPLE = 100;

  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Option(names = "--keep-recent", paramLabel = "K",
      description = "Prunable memories to keep, newest first (default: memory.keep_recent, 50)")
  Integer keepRecent;

  @Option(names = "--dry-run", description = "Show what would be deleted and why the rest stays; change nothing")
  boolean dryRun;

  @Option(names = "--vacuum", description = "Afterwards rewrite the database file so it shrinks (VACUUM)")
  boolean vacuum;

  @Mixin
  JsonOutput output = new JsonOutput();

  @Option(names = "--incremental", description = "Only one budgeted retention pass, what a run does once per "
      + "retention.maintenance_interval: at most retention.budget rows per structure, resuming where the last "
      + "pass stopped, so its cost does not grow with the database (for frequent cron jobs). No memory compaction.")
  boolean incremental;

  @Override
  public Integer call() {
    return run(spec.commandLine().getOut(), spec.commandLine().getErr());
  }

  /**
   * The command with its options set, writing its report to {@code out} and its note to
   * {@code err} (picocli's streams, or {@link FastPath}'s).
   */
  @Override
  public int run(PrintWriter out, PrintWriter err) {
    Flags.inRange("--keep-recent", keepRecent, 0, Ranges.KEEP_RECENT);
    if (incremental && (dryRun || vacuum || keepRecent != null)) {
      throw CliException.usage("--incremental runs one retention pass only; it does not combine with "
          + "--dry-run, --vacuum or --keep-recent");
    }
    Config config = root.command().loadMaintenanceConfig();
    StateBackend backend = root.command().backend(null, config); // state.url from the config just read, not read again
    Clock clock = Clock.systemUTC();
    if (config.source().isEmpty()) {
      Optional<RecordedPolicies> recorded = new Compaction(backend, config, clock).recordedPolicies();
      if (recorded.isPresent()) {
        config = Compaction.withRecorded(config, recorded.get());
        if (!root.command().quiet()) {
          err.println(recordedNote(recorded.get(), keepRecent != null));
          err.flush();
        }
      }
    }
    Compaction compaction = new Compaction(backend, config, clock);
    if (incremental) {
      return incremental(out, compaction.incremental());
    }
    int keep = keepRecent != null ? keepRecent : config.memoryKeepRecent();
    boolean verbose = root.command().verbose.length > 0;
    Compaction.Report report = compaction.compact(new Compaction.Request(keep, dryRun, vacuum,
        verbose ? Integer.MAX_VALUE : DRY_RUN_SAMPLE, verbose));
    if (output.json) {
      Map<String, Object> doc = toJson(keep, report);
      Map<String, Object> retention = retentionJson(report.retention());
      retention.put("applied", report.applied());
      Map<String, Object> orphanDirs = new LinkedHashMap<>();
      orphanDirs.put("found", report.orphans().found());
      orphanDirs.put("deleted", report.orphans().deleted());
      retention.put("orphan_job_dirs", orphanDirs);
      doc.put("retention", retention);
      Json.print(out, doc);
    } else {
      printText(out, keep, report);
      printRetention(out, report.retention());
      printOrphans(out, report.orphans());
    }
    return ExitCode.OK;
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

  private void printOrphans(PrintWriter out, OrphanSweep orphans) {
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

  private int incremental(PrintWriter out, Compaction.IncrementalReport report) {
    if (output.json) {
      Map<String, Object> doc = Json.envelope("compact");
      doc.put("incremental", true);
      Map<String, Object> retention = retentionJson(report.deleted());
      retention.put("applied", report.applied());
      retention.put("more_to_do", report.moreToDo());
      retention.put("pass_ms", report.passMs());
      doc.put("retention", retention);
      Json.print(out, doc);
    } else {
      printRetention(out, report.deleted());
      if (report.moreToDo()) {
        out.println("  more is beyond the policies: the next pass (or a full compact) goes on from here");
      }
      out.flush();
    }
    return ExitCode.OK;
  }

  private static Map<String, Object> retentionJson(Map<StructureName, Long> deleted) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (StructureName structure : StructureName.RETAINED) {
      out.put(structure.key(), Map.of("deleted", deleted.getOrDefault(structure, 0L)));
    }
    out.put("worktrees", Map.of("removed", deleted.getOrDefault(StructureName.WORKTREES, 0L)));
    return out;
  }

  private void printRetention(PrintWriter out, Map<StructureName, Long> deleted) {
    if (dryRun) {
      out.println("retention: not applied in a dry run (orchestrate stats shows what is over its policy)");
    } else {
      out.println(
          "retention: deleted " + deleted.getOrDefault(StructureName.JOBS, 0L) + " jobs (with their log directories), "
              + deleted.getOrDefault(StructureName.TURNS, 0L) + " turns, "
              + deleted.getOrDefault(StructureName.EVENTS, 0L) + " events, "
              + deleted.getOrDefault(StructureName.STATS_SAMPLES, 0L) + " stats samples");
      if (deleted.getOrDefault(StructureName.WORKTREES, 0L) > 0) {
        out.println("retention: removed " + deleted.get(StructureName.WORKTREES)
            + " worktrees of finished items (branches kept)");
      }
    }
    out.flush();
  }

  private Map<String, Object> toJson(int keep, Compaction.Report report) {
    MemoryCompaction m = report.memory();
    EventLog.EventCompaction e = report.events();
    int eventsKeep = report.eventsKeep();
    List<MemoryItem> protectedItems = report.protectedItems();
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
    database.put("bytes_before", report.bytesBefore());
    database.put("bytes_after", report.bytesAfter());
    database.put("vacuumed", report.vacuumed().isPresent());
    doc.put("database", database);
    return doc;
  }

  private void printText(PrintWriter out, int keep, Compaction.Report report) {
    MemoryCompaction m = report.memory();
    EventLog.EventCompaction e = report.events();
    int eventsKeep = report.eventsKeep();
    List<MemoryItem> protectedItems = report.protectedItems();
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
        + (eventsKeep == Integer.MAX_VALUE ? "retention.events.max_rows none"
            : "retention.events.max_rows " + eventsKeep)
        + ") and " + e.keptLoadBearing() + " load-bearing");
    report.vacuumed().ifPresent(v -> out.println("vacuum: " + v.bytesBefore() + " -> " + v.bytesAfter() + " bytes"));
    out.flush();
  }
}
