package dev.orchestrate.cli;

import dev.orchestrate.app.JobDetails;
import dev.orchestrate.app.JobsQuery;
import dev.orchestrate.app.JobsQuery.RunView;
import dev.orchestrate.config.Ranges;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code orchestrate jobs}: the job history, newest first, and the current or last run. */
@Command(name = "jobs", mixinStandardHelpOptions = true,
    description = {"Show the job history (one job per agent attempt), newest first, and the current or last "
        + "run. Reads only the state directory (no backlog or config needed); safe while a run is "
        + "active."})
final class JobsCommand implements Callable<Integer>, FastPath.Command {
  static final int DEFAULT_LIMIT = 50;

  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Option(names = "--limit", paramLabel = "N", defaultValue = "" + DEFAULT_LIMIT,
      description = "Newest jobs shown (default: ${DEFAULT-VALUE})")
  int limit;

  @Mixin
  JsonOutput output = new JsonOutput();

  @Override
  public Integer call() {
    return run(spec.commandLine().getOut(), spec.commandLine().getErr());
  }

  /** The command with its options set, writing to {@code out} (picocli's, or {@link FastPath}'s). */
  @Override
  public int run(PrintWriter out, PrintWriter err) {
    if (limit < 1) {
      throw CliException.usage("--limit must be at least 1, got " + limit);
    }
    Flags.atMost("--limit", limit, Ranges.JOBS_LIMIT);
    StateBackend backend = root.command().backend();
    StateDirectory dir = backend.directory();
    JobsQuery.Jobs found = JobsQuery.recent(backend, limit);
    List<JobRecord> jobs = found.jobs();
    JobDetails details = found.details();
    Optional<RunView> run = found.run();
    Instant now = Clock.systemUTC().instant();
    if (output.json) {
      Json.print(out, toJson(run, jobs, now, dir, details));
    } else {
      printText(out, dir, run, jobs, details, now);
    }
    return ExitCode.OK;
  }

  private static Map<String, Object> toJson(Optional<RunView> run, List<JobRecord> jobs, Instant now,
      StateDirectory dir, JobDetails details) {
    Map<String, Object> doc = Json.envelope("jobs");
    doc.put("run", run.map(JobsCommand::toJson).orElse(null));
    doc.put("jobs", jobs.stream().map(job -> toJson(job, details, now, dir)).toList());
    return doc;
  }

  /**
   * One job as {@code jobs --json} and {@code status ID --json} show it: its outcome class
   * (docs/agents.md; null while it runs or when recorded before they were), the agent profile that
   * ran it (null when recorded before profiles were), its session and its set-up steps and gates
   * from {@code details}, then its phase commit, the commit that landed for it and its usage (tokens
   * and cost as the agent reported them, null when it did not).
   */
  static Map<String, Object> toJson(JobRecord job, JobDetails details, Instant now, StateDirectory dir) {
    OutcomeClass outcome = details.outcome(job);
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", job.id());
    row.put("run_id", job.runId());
    row.put("item_id", job.itemId());
    row.put("phase", job.phase());
    row.put("attempt", job.attempt());
    row.put("state", JobDetails.state(job));
    row.put("result", job.result());
    row.put("outcome", outcome == null ? null : outcome.key());
    row.put("agent", details.agent(job));
    row.put("started_at", Json.timestamp(job.startedAt()));
    row.put("ended_at", Json.timestamp(job.endedAt()));
    row.put("duration_ms", duration(job, now).toMillis());
    row.put("exit_code", job.exitCode());
    row.put("log_path", job.logPath() == null ? null : logPath(dir, job.logPath()));
    row.put("reason", job.reason());
    JobDetailsView.putJson(row, details, job, dir);
    row.put("commit", details.commit(job)); // the phase commit (execution.workspace: worktree)
    row.put("landed_commit", details.landed(job));
    row.put("pull_request", details.pullRequest(job)); // the item's (execution.merge: push)
    row.put("usage", UsageView.json(details.usage(job)));
    return row;
  }

  /** The cells of one job row of a table ({@code jobs}, {@code status ID}), after its ID column. */
  static String[] cells(JobRecord job, OutcomeClass outcome, Instant now, StateDirectory dir) {
    return new String[] {job.phase(), Integer.toString(job.attempt()), JobDetails.state(job),
        job.result() == null ? "-" : job.result(), outcome == null ? "-" : outcome.key(), iso(job.startedAt()),
        human(duration(job, now)) + (job.endedAt() == null ? "+" : ""),
        job.exitCode() == null ? "-" : job.exitCode().toString(),
        job.logPath() == null ? "-" : logPath(dir, job.logPath())};
  }

  static final String[] JOB_COLUMNS = {"PHASE", "ATTEMPT", "STATE", "RESULT", "OUTCOME", "STARTED", "DURATION", "EXIT",
      "LOG"};

  /**
   * A job's log as a path relative to the state directory ({@code jobs/17/output.log}), whether
   * the store keeps it absolute (schema before relative job paths) or relative to the state
   * directory; a path outside the state directory stays as stored.
   */
  static String logPath(StateDirectory dir, Path stored) {
    Path absolute = dir.root().resolve(stored).normalize();
    return absolute.startsWith(dir.root()) ? dir.root().relativize(absolute).toString() : stored.toString();
  }

  private static Map<String, Object> toJson(RunView view) {
    RunRecord r = view.run();
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("id", r.id());
    run.put("state", view.state());
    run.put("started_at", Json.timestamp(r.startedAt()));
    run.put("ended_at", Json.timestamp(r.endedAt()));
    run.put("pid", r.pid());
    run.put("halt_reason", r.haltReason());
    return run;
  }

  private static void printText(PrintWriter out, StateDirectory dir, Optional<RunView> run, List<JobRecord> jobs,
      JobDetails details, Instant now) {
    run.ifPresent(view -> out.println(header(view, now)));
    if (jobs.isEmpty()) {
      out.println("No jobs yet in " + dir.root() + " (start with: orchestrate run [BACKLOG])");
      out.flush();
      return;
    }
    table(jobs, true, details, dir, now, false).print(out);
    out.println("LOG is relative to " + dir.root() + "; print one with: orchestrate logs ITEM");
    out.flush();
  }

  /**
   * The job table of {@code jobs} ({@code withItem}: ID, ITEM, …) and {@code status ID} (JOB, …):
   * TOKENS and COST before LOG, COMMIT when any job has one (the commit that landed on the base
   * branch once integrated, else the phase commit), AGENT when several profiles ran them, and under
   * each row its session ({@code freshToo}: also a plain fresh start), set-up steps and gates.
   */
  static Table table(List<JobRecord> jobs, boolean withItem, JobDetails details, StateDirectory dir, Instant now,
      boolean freshToo) {
    List<String> header = new ArrayList<>(withItem ? List.of("ID", "ITEM") : List.of("JOB"));
    header.addAll(List.of(JOB_COLUMNS));
    header.addAll(header.size() - 1, List.of("TOKENS", "COST")); // before LOG
    boolean commits = jobs.stream().anyMatch(j -> details.commit(j) != null);
    if (commits) {
      header.add("COMMIT"); // phase commits (execution.workspace: worktree) only
    }
    boolean byAgent = new java.util.HashSet<>(details.agents().values()).size() > 1; // several agent profiles only
    if (byAgent) {
      header.add("AGENT");
    }
    Table table = new Table(header.toArray(String[]::new));
    java.util.Set<String> pullRequestShown = new java.util.HashSet<>();
    for (JobRecord job : jobs) {
      List<String> row = new ArrayList<>(withItem ? List.of(Long.toString(job.id()), job.itemId())
          : List.of(Long.toString(job.id())));
      row.addAll(List.of(cells(job, details.outcome(job), now, dir)));
      Usage spent = details.usage(job);
      row.addAll(row.size() - 1, List.of(UsageView.tokens(spent.totalTokens()),
          spent.costUsd() == null ? "-" : UsageView.cost(spent.costUsd())));
      if (commits) {
        row.add(commitCell(details, job));
      }
      if (byAgent) {
        row.add(details.agents().getOrDefault(job.id(), "-"));
      }
      table.add(row.toArray(String[]::new));
      JobDetailsView.lines(details, job, dir, freshToo).forEach(table::note); // its session, the set-up steps and gates
      if (details.pullRequest(job) != null && pullRequestShown.add(job.itemId())) {
        table.note("pull request: " + details.pullRequest(job)); // under the item's first row shown
      }
    }
    return table;
  }

  /** The commit that landed for the job (12 digits), else its phase commit, else "-". */
  private static String commitCell(JobDetails details, JobRecord job) {
    String landed = details.landed(job);
    String commit = landed != null ? landed : details.commit(job);
    return commit == null ? "-" : commit.substring(0, Math.min(12, commit.length()));
  }

  private static String header(RunView view, Instant now) {
    RunRecord r = view.run();
    String head = "Run " + r.id() + " (pid " + r.pid() + "), started " + iso(r.startedAt()) + ": ";
    return switch (view.state()) {
      case "running" -> head + "running for " + human(Duration.between(r.startedAt(), now));
      case "ended" -> head + "ended " + iso(r.endedAt()) + " after " + human(Duration.between(r.startedAt(),
          r.endedAt())) + (r.haltReason() == null ? "" : ", " + r.haltReason());
      default -> head + "died without recording its end (its running jobs become interrupted on the next run)";
    };
  }

  /** A job's duration; a running one is measured up to now. */
  private static Duration duration(JobRecord job, Instant now) {
    Duration d = Duration.between(job.startedAt(), job.endedAt() == null ? now : job.endedAt());
    return d.isNegative() ? Duration.ZERO : d;
  }

  /** For text: ISO-8601 UTC to the millisecond, trailing zeros of the fraction left out; or null. */
  static String iso(Instant at) {
    return at == null ? null : at.truncatedTo(ChronoUnit.MILLIS).toString();
  }

  /** 850ms, 12.3s, 4m05s, 2h03m. */
  static String human(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    long s = ms / 1000;
    if (s < 3600) {
      return String.format("%dm%02ds", s / 60, s % 60);
    }
    return String.format("%dh%02dm", s / 3600, (s % 3600) / 60);
  }
}
