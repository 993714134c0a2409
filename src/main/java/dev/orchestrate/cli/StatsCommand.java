package dev.orchestrate.cli;

import dev.orchestrate.app.StatsQuery;
import dev.orchestrate.app.StatsQuery.WindowSpend;
import dev.orchestrate.cli.live.RunProgress;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.config.Durations;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.scheduler.Budget;
import dev.orchestrate.scheduler.BudgetWindow;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.stats.LastRun;
import dev.orchestrate.stats.RunnerLease;
import dev.orchestrate.stats.Spending;
import dev.orchestrate.stats.StatsInput;
import dev.orchestrate.stats.StatsReport;
import dev.orchestrate.stats.Structure;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code orchestrate stats}: how much every bounded structure has grown, its limit, and how close it is. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = {"Show the growth of every bounded structure: rows now, rows ever written, rows pruned, "
        + "last pruned, the retention limit, utilisation (rows retention may delete / max_rows) and "
        + "a status: ok below 85%%, warn from 85%%, over above 100%% (retention keeps a structure "
        + "at 60%% of max_rows, so warn means growth outpaces maintenance). Also the database file "
        + "(bytes, pages, free pages reclaimable with `compact --vacuum`, WAL), episodic memories "
        + "over keep_recent, the last run's in-memory figures, a trend (rows per hour over the "
        + "samples of the last 24 h; run, stats and compact each record one), and the pressure: "
        + "normal, elevated (>= 70%%), high (>= 85%%), critical (>= 95%%) of the fullest structure.",
        "Warnings name every structure from 70%% with a remedy, at level elevated (70-85%%, "
            + "status still ok), warn or over; memory gets an elevated warning when the episodic "
            + "memories over keep_recent are at least as many as keep_recent (and at least 50).",
        "Reads only the state directory (no backlog or config needed); safe while a run is active; "
            + "reads counters, never counts the rows of a large table. Not a pure read: it records one sample "
            + "for the trend and prunes the oldest beyond retention.stats_samples as last applied (skipped if a "
            + "run holds the write lock for more than 200 ms: stats never waits for it; and on a state directory "
            + "it cannot write, which it reads read-only). --no-sample makes it a pure read: the state is opened "
            + "read-only and nothing is written.",
        "",
        "Exit codes with --check: 0 every structure ok, 4 some at warn, 5 some over its limit, 2 no state "
            + "database where it looked (a check never passes on a state it could not find)."})
final class StatsCommand implements Callable<Integer>, FastPath.Command {
  private static final Logger LOG = LoggerFactory.getLogger(StatsCommand.class);

  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Mixin
  JsonOutput output = new JsonOutput();

  @Option(names = "--check", description = "Exit 0 when every structure is ok, 4 when one is at warn, 5 when one "
      + "is over its limit (the report is printed as usual)")
  boolean check;

  @Option(names = "--no-sample", description = "Record no trend sample: open the state read-only and write nothing "
      + "(for scripts that poll; the trend then has only the samples run, compact and plain stats record)")
  boolean noSample;

  @Override
  public Integer call() {
    return run(spec.commandLine().getOut(), spec.commandLine().getErr());
  }

  /** The command with its options set, writing to {@code out} (picocli's, or {@link FastPath}'s). */
  @Override
  public int run(PrintWriter out, PrintWriter err) {
    StateBackend backend = root.command().backend();
    // The state directory, or a shared state's URL (shown without a password: none is accepted).
    String where = backend.shared() ? backend.toString() : backend.directory().root().toString();
    if (check && !backend.exists()) {
      // A check of a mistyped path must fail, not pass for ever as "nothing has grown".
      throw CliException.usage("no state database in " + where + ": nothing to check; point --state (or "
          + "ORCHESTRATE_STATE) at the state directory of a project that has run");
    }
    Instant now = Clock.systemUTC().instant();
    StatsQuery.Stats stats = StatsQuery.read(backend, root.command().budgetConfig(), now, !noSample);
    if (stats.sample() instanceof StatsQuery.NotAsked) {
      LOG.debug("no stats sample recorded: --no-sample");
    } else if (stats.sample() instanceof StatsQuery.ReadOnly) {
      if (root.command().verbose.length > 0) {
        err.println("orchestrate: note: no stats sample recorded: the state directory is read-only");
        err.flush();
      }
    } else if (stats.sample() instanceof StatsQuery.Recorded recorded) {
      LOG.debug("stats sample recorded, {} old samples pruned", recorded.pruned());
    } else if (stats.sample() instanceof StatsQuery.Busy busy) {
      LOG.debug("no stats sample recorded: {}", busy.message());
    }
    StatsInput input = stats.input();
    Spending spending = stats.spending();
    List<RunnerLease> runners = stats.runners();
    List<AgentPauses.Pause> pauses = stats.pauses();
    List<WindowSpend> windows = stats.windows();
    StatsReport report = StatsReport.of(input);
    if (output.json) {
      Map<String, Object> doc = toJson(report, where);
      Map<String, Object> usage = usageJson(spending);
      usage.put("windows", windows.stream().map(StatsCommand::windowJson).toList());
      doc.put("usage", usage);
      doc.put("runners", runners.stream().map(StatsCommand::runner).toList());
      doc.put("agent_pauses", PauseView.json(pauses, now));
      Json.print(out, doc);
    } else {
      printText(out, report, where);
      printSpending(out, spending);
      printWindows(out, windows);
      printRunners(out, runners);
      PauseView.print(out, pauses, now, java.time.ZoneId.systemDefault());
    }
    return check ? report.status().exitCode() : ExitCode.OK;
  }

  static Map<String, Object> toJson(StatsReport r, String where) {
    Map<String, Object> doc = Json.envelope("stats");
    doc.put("generated_at", Json.timestamp(r.generatedAt()));
    doc.put("state", where);
    doc.put("database_exists", r.databaseExists());
    doc.put("status", r.status().key());
    doc.put("pressure", r.pressure().key());
    doc.put("structures", r.structures().stream().map(StatsCommand::structure).toList());
    Map<String, Object> db = new LinkedHashMap<>();
    db.put("file_bytes", r.database().fileBytes());
    db.put("wal_bytes", r.database().walBytes());
    db.put("page_size", r.database().pageSize());
    db.put("page_count", r.database().pageCount());
    db.put("freelist_bytes", r.database().freelistBytes());
    doc.put("database", db);
    Map<String, Object> memory = new LinkedHashMap<>();
    memory.put("prunable", r.memory().prunable());
    memory.put("keep_recent", r.memory().keepRecent());
    memory.put("over_keep_recent", r.memory().overKeepRecent());
    doc.put("memory", memory);
    doc.put("last_run", lastRun(r.lastRun()));
    Map<String, Object> trend = new LinkedHashMap<>();
    trend.put("window_hours", StatsReport.TREND_WINDOW.toHours());
    trend.put("samples", r.trend() == null ? 0 : r.trend().samples());
    trend.put("from", r.trend() == null ? null : Json.timestamp(r.trend().from()));
    doc.put("trend", trend);
    doc.put("warnings", r.warnings().stream().map(w -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("structure", w.structure());
      m.put("level", w.level().key());
      m.put("message", w.message());
      return m;
    }).toList());
    return doc;
  }

  private static Map<String, Object> structure(StatsReport.Row row) {
    Structure s = row.figures();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", s.name());
    m.put("rows", s.rowsNow());
    m.put("rows_ever", s.rowsWritten());
    m.put("rows_pruned", s.rowsPruned());
    m.put("rows_kept_always", s.keptRows());
    m.put("last_pruned_at", Json.timestamp(s.lastPrunedAt()));
    Map<String, Object> limit = new LinkedHashMap<>();
    limit.put(s.name().equals("memory") ? "keep_recent" : "max_rows", s.maxRows());
    limit.put("max_age", s.maxAgeMs() == null ? null : Durations.format(Duration.ofMillis(s.maxAgeMs())));
    m.put("limit", limit);
    m.put("utilisation", row.utilisation() == null ? null : round(row.utilisation()));
    m.put("status", row.status().key());
    m.put("rows_per_hour", row.perHour() == null ? null : round(row.perHour()));
    m.put("truncated_writes", s.truncatedWrites());
    if (s.name().equals(StructureName.JOB_LOGS.key()) || s.name().equals(StructureName.WORKTREES.key())) {
      m.put("bytes", s.bytes());
    }
    return m;
  }

  private static Map<String, Object> lastRun(LastRun run) {
    if (run == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", run.id());
    m.put("started_at", Json.timestamp(run.startedAt()));
    m.put("ended_at", Json.timestamp(run.endedAt()));
    m.put("halt_reason", run.haltReason());
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("peak", run.summaryMapPeak());
    map.put("final", run.summaryMapFinal());
    m.put("summary_map", map);
    Map<String, Object> table = new LinkedHashMap<>();
    table.put("peak_active", run.jobTablePeakActive());
    table.put("peak_inactive", run.jobTablePeakInactive());
    table.put("final", run.jobTableFinal());
    m.put("job_table", table);
    LastRun.Notifications n = run.notifications();
    if (n == null) {
      m.put("notifications", null);
    } else {
      Map<String, Object> notified = new LinkedHashMap<>();
      notified.put("delivered", n.delivered());
      notified.put("failed", n.failed());
      notified.put("lost", n.lost());
      notified.put("last_error", n.lastError());
      m.put("notifications", notified);
    }
    return m;
  }

  private static double round(double v) {
    return Double.isInfinite(v) ? 999.9999 : Math.round(v * 10_000) / 10_000.0;
  }

  private static void printText(PrintWriter out, StatsReport r, String where) {
    if (!r.databaseExists()) {
      out.println("no state database in " + where + " yet: nothing has grown (status ok)");
      out.flush();
      return;
    }
    out.println("pressure: " + r.pressure().key() + ", status: " + r.status().key());
    Table table = new Table("STRUCTURE", "ROWS", "EVER", "PRUNED", "LIMIT", "USED", "STATUS", "PER HOUR",
        "LAST PRUNED");
    for (StatsReport.Row row : r.structures()) {
      Structure s = row.figures();
      table.add(s.name(), Long.toString(s.rowsNow()), Long.toString(s.rowsWritten()), Long.toString(s.rowsPruned()),
          limit(s), row.utilisation() == null ? "-" : percent(row.utilisation()), row.status().key(),
          row.perHour() == null ? "-" : String.format(UsageView.NUMBERS, "%+.0f", row.perHour()),
          s.lastPrunedAt() == null ? "never" : s.lastPrunedAt().toString());
    }
    table.print(out);
    var db = r.database();
    out.println("database: " + db.fileBytes() + " bytes (" + db.pageCount() + " pages of " + db.pageSize()
        + "), WAL " + db.walBytes() + " bytes"
        + (db.freelistBytes() > 0 ? ", " + db.freelistBytes() + " bytes free (compact --vacuum reclaims them)" : ""));
    r.structures().stream().filter(row -> row.name().equals(StructureName.JOB_LOGS.key())).findFirst()
        .ifPresent(row -> out.println("job logs on disk: " + row.figures().rowsNow() + " directories, "
            + row.figures().bytes() + " bytes"));
    r.structures().stream()
        .filter(row -> row.name().equals(StructureName.WORKTREES.key()) && row.figures().rowsWritten() > 0)
        .findFirst().ifPresent(row -> out.println("worktrees on disk: " + row.figures().rowsNow() + ", "
            + row.figures().bytes() + " bytes (measured at creation and at each phase commit)"));
    out.println("memory: " + r.memory().prunable() + " prunable episodic, " + r.memory().overKeepRecent()
        + " over keep_recent " + r.memory().keepRecent()
        + (r.memory().overKeepRecent() > 0 ? " (orchestrate compact deletes them)" : ""));
    long truncated = r.structures().stream().mapToLong(row -> row.figures().truncatedWrites()).sum();
    if (truncated > 0) {
      out.println("truncated writes: " + truncated + " values cut to their size cap");
    }
    LastRun run = r.lastRun();
    if (run != null) {
      out.println("last run " + run.id() + (run.endedAt() == null ? " (running, or it died)" : " ("
          + run.haltReason() + ")") + " held in memory: summaries of " + orDash(run.summaryMapPeak())
          + " item(s) at most, " + orDash(run.summaryMapFinal()) + " at the end; jobs: at most "
          + orDash(run.jobTablePeakActive()) + " running and " + orDash(run.jobTablePeakInactive()) + " finished, "
          + orDash(run.jobTableFinal()) + " at the end");
      LastRun.Notifications n = run.notifications();
      if (n != null) {
        out.println("notifications, last run: " + n.delivered() + " delivered, " + n.failed() + " failed, " + n.lost()
            + " lost" + (n.lastError() == null ? "" : " (last error: " + TerminalText.safe(n.lastError()) + ")"));
      }
    }
    out.println(r.trend() == null || r.trend().samples() < 1 ? "trend: not enough samples yet"
        : "trend: over " + r.trend().samples() + " samples since " + r.trend().from());
    List<StatsReport.Warning> warnings = r.warnings();
    for (StatsReport.Warning w : warnings) {
      out.println(w.level().key() + ": " + w.message());
    }
    out.flush();
  }

  /** Lifetime totals, and the last run's spend against its budget (null pressure: no budget or nothing reported). */
  static Map<String, Object> usageJson(Spending s) {
    Map<String, Object> usage = new LinkedHashMap<>();
    Map<String, Object> lifetime = UsageView.json(s.lifetime());
    lifetime.put("jobs_reported", s.jobsReported());
    usage.put("lifetime", lifetime);
    Map<String, Object> last = new LinkedHashMap<>();
    last.put("run_id", s.lastRunId());
    last.put("spend", UsageView.json(s.lastRun()));
    Map<String, Object> budget = new LinkedHashMap<>();
    budget.put("max_cost_usd", s.maxCostUsd());
    budget.put("max_tokens", s.maxTokens());
    budget.put("cost_pressure", s.costPressure());
    budget.put("token_pressure", s.tokenPressure());
    Integer costWarning = Budget.warning(s.costPressure());
    Integer tokenWarning = Budget.warning(s.tokenPressure());
    budget.put("warning_percent", costWarning == null ? tokenWarning
        : tokenWarning == null ? costWarning : Integer.valueOf(Math.max(costWarning, tokenWarning)));
    last.put("budget", budget);
    usage.put("last_run", last);
    return usage;
  }

  static Map<String, Object> windowJson(WindowSpend w) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("window", w.window().costKey().substring("budget.".length()));
    m.put("from", Json.timestamp(w.from()));
    m.put("reopens_at", Json.timestamp(w.reopensAt()));
    m.put("max_cost_usd", w.budget().maxCostUsd());
    m.put("max_tokens", w.budget().maxTokens());
    m.put("spend", UsageView.json(w.spent()));
    m.put("cost_pressure", w.costPressure());
    m.put("token_pressure", w.tokenPressure());
    Integer cost = Budget.warning(w.costPressure());
    Integer tokens = Budget.warning(w.tokenPressure());
    m.put("warning_percent", cost == null ? tokens : tokens == null ? cost : Integer.valueOf(Math.max(cost, tokens)));
    return m;
  }

  /** {@code budget per-day since 2026-11-26 00:00 UTC: …; budget $20.00 (82% spent, …); reopens at …}. */
  static void printWindows(PrintWriter out, List<WindowSpend> windows) {
    for (WindowSpend w : windows) {
      out.println("budget " + w.window().label() + " since " + BudgetWindow.show(w.from()) + ": "
          + UsageView.text(w.spent()) + UsageView.budgetText(w.spent(), w.budget()) + "; reopens at "
          + BudgetWindow.show(w.reopensAt()));
    }
    out.flush();
  }

  /** A registered runner of a shared state and the items it holds. */
  static Map<String, Object> runner(RunnerLease r) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", r.id());
    row.put("host", r.host());
    row.put("pid", r.pid());
    row.put("started_at", Json.timestamp(r.startedAt()));
    row.put("heartbeat_at", Json.timestamp(r.heartbeatAt()));
    row.put("heartbeat_age_ms", r.heartbeatAgeMs());
    row.put("items_held", r.items());
    return row;
  }

  private static void printRunners(PrintWriter out, List<RunnerLease> runners) {
    if (runners.isEmpty()) {
      return; // one run at a time (SQLite), or no runner now
    }
    out.println("runners: " + runners.size());
    for (RunnerLease r : runners) {
      out.println(
          "  " + r.id() + "  heartbeat " + RunProgress.seconds(Duration.ofMillis(Math.max(0, r.heartbeatAgeMs())))
              + " ago, " + r.items() + (r.items() == 1 ? " item" : " items") + " held");
    }
    out.flush();
  }

  private static void printSpending(PrintWriter out, Spending s) {
    if (s.jobsReported() == 0 && s.maxCostUsd() == null && s.maxTokens() == null) {
      return; // no agent ever reported usage, no budget: nothing to say
    }
    out.println("usage, lifetime: " + UsageView.text(s.lifetime()) + " over " + s.jobsReported()
        + (s.jobsReported() == 1 ? " job" : " jobs") + " that reported it");
    if (s.lastRunId() != null) {
      out.println("usage, last run " + s.lastRunId() + ": " + UsageView.text(s.lastRun())
          + UsageView.budgetText(s.lastRun(), new Budget(s.maxCostUsd(), s.maxTokens())));
    }
    out.flush();
  }

  private static String limit(Structure s) {
    if (s.name().equals("memory")) {
      return s.maxRows() == null ? "-" : "keep " + s.maxRows();
    }
    String rows = s.maxRows() == null ? null : s.maxRows() + " rows";
    String age = s.maxAgeMs() == null ? null : Durations.format(Duration.ofMillis(s.maxAgeMs()));
    if (rows == null && age == null) {
      return "-";
    }
    return rows == null ? age : age == null ? rows : rows + ", " + age;
  }

  private static String percent(double utilisation) {
    return Double.isInfinite(utilisation) ? "over" : String.format(UsageView.NUMBERS, "%.0f%%", utilisation * 100);
  }

  private static String orDash(Integer v) {
    return v == null ? "-" : v.toString();
  }
}
