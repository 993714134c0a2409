package dev.orchestrate.cli;

import dev.orchestrate.app.RunPreflight;
import dev.orchestrate.app.RunSession;
import dev.orchestrate.backlog.BacklogSource;
import dev.orchestrate.cli.live.LineSink;
import dev.orchestrate.cli.live.LiveView;
import dev.orchestrate.cli.live.ProgressMode;
import dev.orchestrate.cli.live.RunProgress;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ExecutionConfig;
import dev.orchestrate.config.Ranges;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.jobs.Preflight;
import dev.orchestrate.notify.Notifier;
import dev.orchestrate.scheduler.HaltReason;
import dev.orchestrate.scheduler.ItemFilter;
import dev.orchestrate.scheduler.ItemFilterException;
import dev.orchestrate.scheduler.RunListener;
import dev.orchestrate.scheduler.RunOptions;
import dev.orchestrate.scheduler.RunReport;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.workspace.Repository;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code orchestrate run}: validate, lock the state, run the scheduler, report. */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = {"Run the backlog until every item (or every --target) is done or blocked.",
        "Up to execution.max_concurrent agents run at once, on at most execution.max_wip items in progress. "
            + "Stops early at the phase cap, when the circuit breaker trips, or on Ctrl-C. The backlog, config "
            + "and flags are validated first: any problem exits 2 before work starts. Every state change is "
            + "committed at once, so running it again continues where it stopped. --dry-run shows the plan."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    stopped normally (with --strict-exit: its work is done; items may",
        "       await review or their checks)",
        "  1    completed no item and blocked at least one, or an agent's provider",
        "       refused it", "  2    bad flag, backlog or config",
        "  3    another run holds the state directory (never on PostgreSQL)",
        "  6    with --strict-exit: stopped with work it could not finish (an item",
        "       blocked, or a limit or budget halt with items left)",
        "  130  interrupted (Ctrl-C or SIGTERM)"})
final class RunCommand implements Callable<Integer> {
  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", arity = "0..1", paramLabel = "BACKLOG", defaultValue = "backlog.yaml",
      description = "Backlog file (default: ./backlog.yaml). Agents run in its directory.")
  Path backlogFile;

  @Option(names = "--cap", paramLabel = "N",
      description = "Phase executions allowed in this run (default: execution.phase_cap of the config)")
  Integer cap;

  @Option(names = "--target", paramLabel = "ID", split = ",",
      description = "Work only towards these items, in order: the first unfinished target and its unmet "
          + "dependencies, then the next. The run stops when every target is done or blocked. Repeatable.")
  List<String> targets = new ArrayList<>();

  @Option(names = "--only", paramLabel = "KEY=V[,V]",
      description = "Work only on items matching KEY (status, priority, tag, pipeline); values of one flag are "
          + "alternatives, repeated flags must all hold, e.g. --only priority=high --only tag=api,db. "
          + "status matches the status an item had when the run started.")
  List<String> only = new ArrayList<>();

  @Option(names = "--max-wip", paramLabel = "N", description = "Items in progress at once (default: execution.max_wip)")
  Integer maxWip;

  @Option(names = "--max-concurrent", paramLabel = "N",
      description = "Agents running at once (default: execution.max_concurrent)")
  Integer maxConcurrent;

  @Option(names = "--max-cost", paramLabel = "USD",
      description = "The run's budget in US dollars: no job starts that could pass it (Claude Code gets "
          + "--max-budget-usd); then the run halts (reason budget) once running jobs finish. Needs an agent that "
          + "reports cost (default: execution.max_cost_usd, none)")
  Double maxCost;

  @Option(names = "--max-tokens", paramLabel = "N",
      description = "The run's budget in tokens (input, output and cache): no job starts that could pass it; "
          + "then the run halts (reason budget) (default: execution.max_tokens, none)")
  Long maxTokens;

  @Option(names = "--dry-run", description = "Print the plan (which phases would run, in which order, if every "
      + "phase succeeded at once) and change nothing: no lock, no agent, no write to the state")
  boolean dryRun;

  @Option(names = "--json", description = "Print the run report as one JSON document (kind \"run\") on stdout")
  boolean json;

  @Option(names = "--strict-exit", description = "Exit 6 when the run stops with work it could not finish: an item "
      + "it works on blocked, or a limit (phase cap, circuit breaker, budget, usage limit) halting it with items left "
      + "(default: such a run exits 0, as it always did; run --json says it in halt_kind either way)")
  boolean strictExit;

  @Option(names = "--no-live", description = "Plain progress lines instead of the live status area on a terminal "
      + "(also: ORCHESTRATE_NO_LIVE=1)")
  boolean noLive;

  @Override
  @SuppressWarnings("try") // the RunLock is held, never read: closing it releases the run lease
  public Integer call() {
    checkFlags();
    ItemFilter filter = parseFilter();
    // With backlog.source the items come from a command: the file need not exist, its directory is the project's.
    if (!Files.isRegularFile(backlogFile) && root.command().loadConfig(backlogFile).backlogSource() == null) {
      throw CliException.usage("backlog file " + backlogFile + " " + InputFiles.whyNotAFile(backlogFile)
          + " (create one with 'orchestrate init')");
    }
    Config config = withOverrides(root.command().loadConfig(backlogFile));
    RunPreflight.costBudget(config, costBudget(config)); // every agent profile is held to it, before the state
    RunPreflight.tokenBudget(config, tokenBudget(config));
    BacklogSource backlogs = BacklogSource.open(backlogFile, config);
    filter = checkFilter(filter, config);
    StateBackend backend = root.command().backend(backlogFile, config);
    Optional<Preflight.Found> agentProgram = RunPreflight.agents(config,
        root.command().env().getOrDefault("PATH", System.getenv("PATH")), backlogs.current().directory());
    // What was checked is what runs: relative program and script paths are the checkout's, also for an
    // agent in an item's worktree (which has only tracked files).
    Path projectDir = backlogs.current().directory();
    config = config.withProfiles(profile -> Preflight.anchored(profile, projectDir));
    if (dryRun) {
      return DryRun.print(spec.commandLine().getOut(), spec.commandLine().getErr(), root.command().quiet(), json,
          backend,
          config, backlogs.current(), filter, cap != null ? cap : config.execution().phaseCap(), agentProgram);
    }
    RunPreflight.agentConfigured(config);
    int phaseCap = cap != null ? cap : config.execution().phaseCap();
    // Before the lock and the database: a mistyped --target must leave nothing behind.
    Clock clock = Clock.systemUTC();
    RunSession session = new RunSession(backend, config, clock);
    filter = targetsKnown(filter, session.knownIds(backlogs, filter.targets()));
    Repository repository = RunPreflight.repository(config, backlogs.current().directory());

    PrintWriter err = spec.commandLine().getErr();
    ProgressMode mode = ProgressMode.choose(root.command().quiet(), json, noLive, ProgressMode.stderrIsTerminal(),
        root.command().env());
    Notifier notifier = session.startNotifier(root.command().env(), projectDir); // before the lock
    RunReport report;
    try (backlogs) { // a refresh of backlog.source's command under way never outlives the run
      report = session.run(backlogs, repository, new RunOptions(phaseCap, filter,
          costKey(config), maxTokens != null ? "--max-tokens" : null),
          new TerminalUi(mode, err, clock, config, root.command().env(), root.command().quiet()), notifier);
    }
    PrintWriter out = spec.commandLine().getOut();
    int code = exitCode(report, strictExit);
    if (json) {
      Json.print(out, withOutcome(withSelection(toJson(report), only), report, code));
    } else {
      RunReportText.print(out, report, only, root.command().verbose.length > 0,
          config.execution().workspace().worktrees());
      out.println("  details: " + statusHint());
      out.flush();
    }
    return code;
  }

  /** The numeric flags in their ranges; each mistake a usage error naming the flag. */
  private void checkFlags() {
    if (cap != null && cap < 1) {
      throw CliException.usage("--cap must be at least 1, got " + cap);
    }
    if (maxWip != null && maxWip < 1) {
      throw CliException.usage("--max-wip must be at least 1, got " + maxWip);
    }
    if (maxConcurrent != null && maxConcurrent < 1) {
      throw CliException.usage("--max-concurrent must be at least 1, got " + maxConcurrent);
    }
    Flags.atMost("--cap", cap, Ranges.PHASE_CAP);
    Flags.atMost("--max-wip", maxWip, Ranges.MAX_WIP);
    Flags.atMost("--max-concurrent", maxConcurrent, Ranges.MAX_CONCURRENT);
    if (maxCost != null && !(maxCost > 0 && maxCost <= 1_000_000)) {
      throw CliException.usage("--max-cost must be more than 0 and at most 1000000 (US dollars), got " + maxCost);
    }
    if (maxTokens != null && (maxTokens < 1 || maxTokens > 1_000_000_000_000L)) {
      throw CliException.usage("--max-tokens must be at least 1 and at most 1000000000000, got " + maxTokens);
    }
  }

  private ItemFilter parseFilter() {
    try {
      return ItemFilter.parse(only, targets);
    } catch (ItemFilterException e) {
      throw Flags.filterError(e);
    }
  }

  private ItemFilter checkFilter(ItemFilter filter, Config config) {
    try {
      return filter.checkPipelines(config.pipelines().keySet());
    } catch (ItemFilterException e) {
      throw Flags.filterError(e);
    }
  }

  private static ItemFilter targetsKnown(ItemFilter filter, Set<String> ids) {
    try {
      return filter.checkTargets(ids);
    } catch (ItemFilterException e) {
      throw Flags.filterError(e);
    }
  }

  /** The flag or key that set a token budget of the run or of the day or week; null when there is none. */
  private String tokenBudget(Config config) {
    if (maxTokens != null) {
      return "--max-tokens";
    }
    if (config.execution().maxTokens() != null) {
      return "execution.max_tokens";
    }
    return config.budget().tokensPerDay() != null ? "budget.tokens_per_day"
        : config.budget().tokensPerWeek() != null ? "budget.tokens_per_week" : null;
  }

  /** The flag or key that set a cost budget of the run or of the day or week; null when there is none. */
  private String costBudget(Config config) {
    String run = costKey(config);
    if (run != null) {
      return run;
    }
    return config.budget().perDayUsd() != null ? "budget.per_day"
        : config.budget().perWeekUsd() != null ? "budget.per_week" : null;
  }

  /** The flag or key that set the run's cost budget; null when it has none. */
  private String costKey(Config config) {
    if (maxCost != null) {
      return "--max-cost";
    }
    return config.execution().maxCostUsd() != null ? "execution.max_cost_usd" : null;
  }

  private Config withOverrides(Config config) {
    ExecutionConfig execution = config.execution();
    if (maxWip != null) {
      execution = execution.withMaxWip(maxWip);
    }
    if (maxConcurrent != null) {
      execution = execution.withMaxConcurrent(maxConcurrent);
    }
    if (maxCost != null) {
      execution = execution.withMaxCostUsd(maxCost);
    }
    if (maxTokens != null) {
      execution = execution.withMaxTokens(maxTokens);
    }
    return config.withExecution(execution);
  }

  /** The terminal's side of a run: progress on stderr as {@code mode} says, and Ctrl-C. */
  private static final class TerminalUi implements RunSession.Ui {
    private final ProgressMode mode;
    private final PrintWriter err;
    private final Clock clock;
    private final Config config;
    private final Map<String, String> env;
    private final boolean quiet;
    /** The live view once it is open: what {@link #notice} prints through. */
    private volatile LineSink above;

    TerminalUi(ProgressMode mode, PrintWriter err, Clock clock, Config config, Map<String, String> env,
        boolean quiet) {
      this.mode = mode;
      this.err = err;
      this.clock = clock;
      this.config = config;
      this.env = env;
      this.quiet = quiet;
    }

    /**
     * The listener for {@code mode}. The live view is named only inside this method body (never in
     * a signature, not even a lambda's, that picocli's reflection would load), so jline is loaded
     * only when it is chosen; if the terminal cannot keep a status area, plain lines it is.
     */
    @Override
    public RunListener progress(StateRepository items) {
      return switch (mode) {
        case NONE -> RunListener.NONE;
        case PLAIN -> new RunProgress(err, clock, nameProfiles());
        case LIVE -> {
          Optional<? extends RunListener> live = LiveView.open(clock, items::items, config.pipelines(),
              config.execution().maxConcurrent(), nameProfiles(), env);
          live.ifPresent(view -> above = (LineSink) view);
          yield live.isPresent() ? live.get() : new RunProgress(err, clock, nameProfiles());
        }
      };
    }

    /** Each job's lines name its agent profile when there is more than one (a fallback at work is seen). */
    private boolean nameProfiles() {
      return config.profiles().size() > 1;
    }

    @Override
    public RunListener withNotices(RunListener progress) {
      return new BacklogNotices(progress, err, clock, quiet);
    }

    /**
     * The line above the live status area while there is one (so neither garbles the other: a
     * transition command's warning was lost under it), else on stderr.
     */
    @Override
    public void notice(String line) {
      LineSink sink = above;
      if (sink == null || !sink.offer(line)) {
        err.println(line);
        err.flush();
      }
    }

    @Override
    public RunSession.StopHook onStop(Runnable requestStop) {
      StopSignals signals = StopSignals.install(requestStop);
      if (signals.interruptIgnored() && !quiet) {
        notice("orchestrate: Ctrl-C (SIGINT) is ignored by this run, as it was when it started (a script's"
            + " background job, or nohup); stop it with SIGTERM: kill " + ProcessHandle.current().pid());
      }
      return signals::close;
    }
  }

  /** {@code orchestrate status}, with the {@code --state} and {@code --config} this run was given. */
  private String statusHint() {
    StringBuilder hint = new StringBuilder("orchestrate");
    if (root.command().state != null) {
      hint.append(" --state ").append(shellWord(root.command().state));
    }
    if (root.command().config != null) {
      hint.append(" --config ").append(shellWord(root.command().config.toString()));
    }
    return TerminalText.safe(hint.append(" status").toString());
  }

  /** {@code word} as a shell reads it back: as it is when it is plain, else in single quotes. */
  static String shellWord(String word) {
    return word.matches("[A-Za-z0-9_./:@%+=,-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
  }

  /** The halts that end a run before its work is done when items are left: a limit, not the end of the work. */
  private static final Set<HaltReason> LIMITS = java.util.EnumSet.of(HaltReason.PHASE_CAP,
      HaltReason.CIRCUIT_BREAKER, HaltReason.BUDGET, HaltReason.USAGE_LIMIT);

  /** The exit code of a run that ended with {@code report}; with {@code strict}, 6 for an incomplete one. */
  static int exitCode(RunReport report, boolean strict) {
    int code = exitCode(report);
    return code == ExitCode.OK && strict && incomplete(report) ? ExitCode.INCOMPLETE : code;
  }

  /** The exit code without {@code --strict-exit}: 0, 1 or 130. */
  static int exitCode(RunReport report) {
    if (report.haltReason() == HaltReason.INTERRUPTED) {
      return ExitCode.INTERRUPTED;
    }
    if (report.doneThisRun() == 0 && report.blockedThisRun() > 0) {
      return ExitCode.WORK_FAILED;
    }
    if (report.haltReason() == HaltReason.AGENT_AUTH || report.haltReason() == HaltReason.AGENT_SANDBOX) {
      return ExitCode.WORK_FAILED; // nothing can work until the key or the billing is fixed: cron must notice
    }
    return ExitCode.OK;
  }

  /**
   * Whether the run leaves work it could not finish (README, "Exit codes"): an item it may work on
   * is blocked, its remaining items wait on a blocked one, or a limit halted it with its own items
   * left (remaining ones it selects, or items still awaiting their checks or landing). Items
   * awaiting review wait for a person's decision, a step of their pipeline: they do not count.
   */
  static boolean incomplete(RunReport r) {
    if (r.blockedSelected() > 0 || r.waitsOn().stream().anyMatch(w -> w.endsWith(" (blocked)"))) {
      return true;
    }
    return LIMITS.contains(r.haltReason())
        && (!todo(r).isEmpty() || !r.awaitingChecks().isEmpty() || !r.landing().isEmpty());
  }

  /** The remaining items the run selects (without the ones --only leaves out). */
  static List<String> todo(RunReport r) {
    return r.waiting().stream().filter(id -> !r.unselected().contains(id)).toList();
  }

  /**
   * How the run ended, for scripts: the blocked items, its kind ({@code finished}, {@code incomplete},
   * {@code failed}, {@code interrupted}: whatever {@code --strict-exit} says) and its exit code (added last).
   */
  private static Map<String, Object> withOutcome(Map<String, Object> doc, RunReport r, int code) {
    doc.put("blocked_ids", r.blockedIds());
    int plain = exitCode(r);
    doc.put("halt_kind", plain == ExitCode.INTERRUPTED ? "interrupted" : plain != ExitCode.OK ? "failed"
        : incomplete(r) ? "incomplete" : "finished");
    doc.put("exit_code", code);
    return doc;
  }

  private static Map<String, Object> toJson(RunReport r) {
    Map<String, Object> doc = Json.envelope("run");
    doc.put("run_id", r.runId());
    doc.put("halt_reason", r.haltReason().key());
    doc.put("halt_detail", r.haltDetail());
    doc.put("duration_ms", r.duration().toMillis());
    doc.put("phases_run", r.phasesRun());
    Map<String, Object> items = new LinkedHashMap<>();
    items.put("total", r.total());
    items.put("done", r.done());
    items.put("blocked", r.blocked());
    items.put("remaining", r.remaining());
    items.put("awaiting_review", r.awaitingReview().size());
    items.put("done_this_run", r.doneThisRun());
    items.put("blocked_this_run", r.blockedThisRun());
    items.put("awaiting_checks", r.awaitingChecks().size());
    items.put("landing", r.landing().size());
    doc.put("items", items);
    doc.put("remaining_ids", r.waiting());
    doc.put("unselected_ids", r.unselected());
    doc.put("awaiting_review_ids", r.awaitingReview());
    Map<String, Object> backlog = new LinkedHashMap<>();
    backlog.put("added", r.sync().added());
    backlog.put("vanished", r.sync().vanished());
    backlog.put("returned", r.sync().returned());
    doc.put("backlog", backlog);
    doc.put("interrupted_jobs", r.interruptedJobs());
    doc.put("limited_attempts", new java.util.TreeMap<>(r.limited()));
    Map<String, Object> summaryMap = new LinkedHashMap<>();
    summaryMap.put("final", r.figures().summaryMapFinal());
    summaryMap.put("peak", r.figures().summaryMapPeak());
    doc.put("summary_map", summaryMap);
    Map<String, Object> jobTable = new LinkedHashMap<>();
    jobTable.put("peak_active", r.figures().jobTablePeakActive());
    jobTable.put("peak_inactive", r.figures().jobTablePeakInactive());
    jobTable.put("final", r.figures().jobTableFinal());
    doc.put("job_table", jobTable);
    doc.put("usage", UsageView.json(r.usage()));
    Map<String, Object> budget = new LinkedHashMap<>();
    budget.put("max_cost_usd", r.budget().maxCostUsd());
    budget.put("max_tokens", r.budget().maxTokens());
    doc.put("budget", budget);
    doc.put("runner_id", r.runnerId());
    doc.put("awaiting_checks_ids", r.awaitingChecks());
    doc.put("landing_ids", r.landing());
    return doc;
  }

  /** The --only criteria as given, after the run's figures: the remaining ones include items they left out. */
  private static Map<String, Object> withSelection(Map<String, Object> doc, List<String> only) {
    doc.put("only", List.copyOf(only));
    return doc;
  }

  static String onlyFlags(List<String> only) {
    return String.join(" ", only.stream().map(o -> "--only " + o).toList());
  }

  /** Ids for a report line: the first {@value #IDS_SHOWN}, then how many more (`--json` has them all). */
  static String ids(List<String> ids) {
    if (ids.size() <= IDS_SHOWN) {
      return TerminalText.safe(String.join(", ", ids));
    }
    return TerminalText.safe(String.join(", ", ids.subList(0, IDS_SHOWN))) + " and " + (ids.size() - IDS_SHOWN)
        + " more (all in --json)";
  }

  private static final int IDS_SHOWN = 10;
}
