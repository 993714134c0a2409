package dev.orchestrate.serve;

import static dev.orchestrate.serve.Html.esc;

import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.jobs.AgentSession;
import dev.orchestrate.jobs.CommandRun;
import dev.orchestrate.memory.CompactionPolicy;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.DashboardQueries.DashboardFilter;
import dev.orchestrate.state.DashboardQueries.Page;
import dev.orchestrate.state.DashboardQueries.RunBounds;
import dev.orchestrate.state.ItemHistory.KeptAnswer;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.stats.DatabaseFigures;
import dev.orchestrate.stats.Sample;
import dev.orchestrate.stats.StatsReport;
import dev.orchestrate.stats.Structure;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The dashboard's pages, rendered on the server. Each reads what it shows through one read-only
 * {@link DashboardQueries} and bounds every list; every value goes through {@link Html#esc}.
 */
final class Pages {
  static final int PAGE_SIZE = 50;
  static final int ITEM_JOBS = 20;
  /** Jobs whose log tail the item page shows inline (each is up to 64 KiB, and the page refreshes). */
  static final int ITEM_LOGS = 3;
  static final int ITEM_ANSWERS = 20;
  static final int SAMPLES = 500;
  static final int RUNS = 10;
  static final int MEMORY_ROWS = 50;
  private static final String[] STATUSES = {"new", "scoping", "ready", "in_progress", "done", "blocked"};
  private static final String[] PRIORITIES = {"high", "medium", "low"};
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'", Locale.ROOT)
      .withZone(java.time.ZoneOffset.UTC);

  private final StateDirectory dir;
  private final Clock clock;

  Pages(StateDirectory dir, Clock clock) {
    this.dir = dir;
    this.clock = clock;
  }

  /** A rendered page: its status code and HTML. */
  record Rendered(int status, String html) {
  }

  Rendered overview(DashboardQueries db) {
    StringBuilder b = new StringBuilder();
    Map<String, Long> counts = db.statusCounts();
    long total = counts.values().stream().mapToLong(Long::longValue).sum();
    long done = counts.getOrDefault("done", 0L);
    b.append("<h1>Overview</h1><section><h2>Items</h2>");
    b.append("<p>").append(done).append(" of <span data-figure=\"total\">").append(total).append("</span> done</p>");
    b.append(progressBar(counts, total));
    b.append("<table class=\"counts\"><tr>");
    for (String s : STATUSES) {
      b.append("<th>").append(esc(s)).append("</th>");
    }
    b.append("</tr><tr>");
    for (String s : STATUSES) {
      long n = counts.getOrDefault(s, 0L);
      b.append("<td><a href=\"/items?status=").append(s).append("\" data-count=\"").append(s).append("\">").append(n)
          .append("</a></td>");
    }
    b.append("</tr></table></section>");
    b.append("<section><h2>Run</h2>");
    Optional<RunRecord> last = db.lastRun();
    if (last.isEmpty()) {
      b.append("<p>No run yet.</p>");
    } else {
      run(b, db, last.get(), total - done - counts.getOrDefault("blocked", 0L));
    }
    b.append("</section>");
    Instant now = clock.instant();
    List<dev.orchestrate.item.AgentPauses.Pause> pauses = db.pauses().stream().filter(p -> p.activeAt(now))
        .toList();
    if (!pauses.isEmpty()) {
      b.append("<section><h2>Agents paused by a provider's limit</h2><ul>");
      for (dev.orchestrate.item.AgentPauses.Pause p : pauses) {
        b.append("<li data-figure=\"pause\"><strong>").append(esc(p.profile())).append("</strong> paused ")
            .append(
                p.until() == null ? "until its reset (not said; the run halted)" : "until " + TIME.format(p.until()))
            .append(", ").append(esc(p.kind().key().replace('_', ' '))).append(": ").append(esc(cut(p.message(), 200)))
            .append("</li>");
      }
      b.append("</ul></section>");
    }
    List<JobRecord> running = db.runningJobs(PAGE_SIZE);
    b.append("<section><h2>Running jobs</h2>");
    if (running.isEmpty()) {
      b.append("<p>None.</p>");
    } else {
      jobTable(b, db, running);
    }
    b.append("</section>");
    return ok("Overview", "/", b);
  }

  private void run(StringBuilder b, DashboardQueries db, RunRecord run, long remaining) {
    Instant now = clock.instant();
    boolean active = run.endedAt() == null;
    Duration elapsed = Duration.between(run.startedAt(), active ? now : run.endedAt());
    Map<String, Long> results = db.runJobResults(run.id());
    b.append("<dl class=\"run\"><dt>Run</dt><dd data-figure=\"run-id\">").append(run.id()).append("</dd>");
    b.append("<dt>State</dt><dd>").append(active ? "running (or ended without recording it)" : "ended").append("</dd>");
    b.append("<dt>Started</dt><dd>").append(TIME.format(run.startedAt())).append("</dd>");
    b.append("<dt>Elapsed</dt><dd>").append(esc(duration(elapsed))).append("</dd>");
    if (!active) {
      b.append("<dt>Halt reason</dt><dd data-figure=\"halt-reason\">").append(esc(run.haltReason())).append("</dd>");
    }
    long phases = results.getOrDefault("phase_complete", 0L) + results.getOrDefault("subphase_complete", 0L);
    b.append("<dt>Phases completed</dt><dd data-figure=\"phases\">").append(phases).append("</dd>");
    b.append("<dt>Jobs</dt><dd>");
    List<String> parts = new ArrayList<>();
    results.forEach((k, v) -> parts.add(esc(k) + " " + v));
    b.append(parts.isEmpty() ? "none yet" : String.join(", ", parts)).append("</dd>");
    db.runSpend(run.id()).filter(s -> s.jobsReported() > 0 || s.budgetUsd() != null).ifPresent(spend -> {
      b.append("<dt>Spend</dt><dd data-figure=\"spend\">").append(usd(spend.costUsd()));
      if (spend.budgetUsd() != null) {
        b.append(" of ").append(usd(spend.budgetUsd())).append(" budget (")
            .append(percent(spend.costUsd() / spend.budgetUsd())).append(')');
      }
      b.append(", reported by ").append(spend.jobsReported()).append(" jobs</dd>");
    });
    long finished = active && remaining > 0 ? db.itemsFinishedSince(run.startedAt()) : 0;
    if (finished > 0) {
      Duration eta = elapsed.multipliedBy(remaining).dividedBy(finished);
      b.append("<dt>ETA</dt><dd>about ").append(esc(duration(eta))).append(" (").append(remaining)
          .append(" items left at this run's pace)</dd>");
    }
    b.append("</dl>");
  }

  private static String progressBar(Map<String, Long> counts, long total) {
    StringBuilder svg = new StringBuilder("<svg class=\"progress\" viewBox=\"0 0 1000 16\" width=\"100%\" height=\"16\""
        + " preserveAspectRatio=\"none\" role=\"img\" aria-label=\"items by status\">");
    double x = 0;
    for (String s : new String[] {"done", "in_progress", "ready", "scoping", "new", "blocked"}) {
      long n = counts.getOrDefault(s, 0L);
      if (total == 0 || n == 0) {
        continue;
      }
      double w = n * 1000.0 / total;
      svg.append("<rect class=\"s-").append(s).append("\" x=\"").append(String.format(Locale.ROOT, "%.2f", x))
          .append("\" y=\"0\" height=\"16\" width=\"").append(String.format(Locale.ROOT, "%.2f", w))
          .append("\"><title>")
          .append(s).append(": ").append(n).append("</title></rect>");
      x += w;
    }
    return svg.append("</svg>").toString();
  }

  Rendered items(DashboardQueries db, Query q) {
    String status = oneOf(q.get("status"), STATUSES);
    String priority = oneOf(q.get("priority"), PRIORITIES);
    if (status == null && q.get("status") != null || priority == null && q.get("priority") != null) {
      // A filter that cannot match is not silently dropped: the page would list every item under it.
      String name = status == null && q.get("status") != null ? "status" : "priority";
      return new Rendered(400, layout("Bad request", "/items", new StringBuilder("<h1>Bad request</h1><p>")
          .append(esc(name)).append(" '").append(esc(cut(q.get(name), 60)))
          .append("' is not one of ").append(esc(String.join(", ", name.equals("status") ? STATUSES : PRIORITIES)))
          .append(": <a href=\"/items\">all items</a>.</p>")));
    }
    DashboardFilter filter = new DashboardFilter(status, priority, q.get("tag"), q.get("q"));
    long offset = q.number("offset", 0);
    Page<ItemState> page = db.items(filter, PAGE_SIZE, (int) Math.min(offset, Integer.MAX_VALUE));
    StringBuilder b = new StringBuilder("<h1>Items</h1>");
    b.append("<form class=\"filter\" method=\"get\" action=\"/items\">");
    select(b, "status", status, STATUSES);
    select(b, "priority", priority, PRIORITIES);
    b.append("<label>tag <input name=\"tag\" value=\"").append(esc(filter.tag())).append("\"></label>");
    b.append("<label>text <input name=\"q\" value=\"").append(esc(filter.text())).append("\"></label>");
    b.append("<button type=\"submit\">Filter</button></form>");
    Map<String, Integer> lastAttempts = db.latestAttempts(page.rows().stream().map(ItemState::id).toList());
    b.append("<p><span data-figure=\"matching\">").append(page.total()).append("</span> items match.</p>");
    b.append("<table class=\"list\"><thead><tr><th>ID</th><th>Status</th><th>Phase</th><th>Attempts</th>"
        + "<th>Priority</th><th>Title</th><th>Note</th></tr></thead><tbody>");
    for (ItemState item : page.rows()) {
      b.append("<tr><td><a href=\"/item?id=").append(esc(Query.encode(item.id()))).append("\">").append(esc(item.id()))
          .append("</a></td><td class=\"st s-").append(esc(item.status().key())).append("\">")
          .append(esc(item.status().key())).append("</td><td>").append(esc(item.progress().phase())).append("</td><td>")
          .append(attempts(item, lastAttempts.get(item.id()))).append("</td><td>")
          .append(esc(item.definition().priority().key()))
          .append("</td><td>").append(esc(item.definition().title())).append("</td><td>")
          .append(esc(item.status() == ItemStatus.BLOCKED ? cut(item.progress().blockedReason(), 120)
              : item.origin() == null ? "" : "follow-up of " + item.origin()))
          .append("</td></tr>");
    }
    b.append("</tbody></table>");
    StringBuilder base = new StringBuilder("/items?");
    param(base, "status", status);
    param(base, "priority", priority);
    param(base, "tag", filter.tag());
    param(base, "q", filter.text());
    b.append("<nav class=\"pager\">");
    if (offset > 0) {
      b.append("<a rel=\"prev\" href=\"").append(esc(base + "offset=" + Math.max(0, offset - PAGE_SIZE)))
          .append("\">previous</a> ");
    }
    b.append("<span>").append(page.total() == 0 ? 0 : offset + 1).append("–").append(offset + page.rows().size())
        .append(" of ").append(page.total()).append("</span>");
    if (offset + page.rows().size() < page.total()) {
      b.append(" <a rel=\"next\" href=\"").append(esc(base + "offset=" + (offset + PAGE_SIZE))).append("\">next</a>");
    }
    b.append("</nav>");
    return ok("Items", "/items", b);
  }

  Rendered item(DashboardQueries db, Query q) {
    String id = q.get("id");
    Optional<ItemState> found = id == null ? Optional.empty() : db.item(id);
    if (found.isEmpty()) {
      return new Rendered(404, layout("Not found", "/items",
          new StringBuilder("<h1>Not found</h1><p>No item ").append(esc(id)).append(".</p>")));
    }
    ItemState item = found.get();
    List<JobRecord> jobs = db.itemJobs(item.id(), ITEM_JOBS);
    StringBuilder b = new StringBuilder("<h1>").append(esc(item.id())).append("</h1>");
    b.append("<p class=\"title\">").append(esc(item.definition().title())).append("</p><dl class=\"item\">");
    dt(b, "Status", item.status().key());
    dt(b, "Phase", item.progress().phase());
    dt(b, "Attempts", Integer.toString(attempts(item, jobs.isEmpty() ? null : jobs.get(0).attempt())));
    dt(b, "Pipeline", item.definition().pipeline());
    dt(b, "Priority", item.definition().priority().key());
    dt(b, "Tags", String.join(", ", item.definition().tags()));
    dt(b, "Depends on", String.join(", ", item.definition().dependsOn()));
    if (item.origin() != null) {
      b.append("<dt>Follow-up of</dt><dd><a href=\"/item?id=").append(esc(Query.encode(item.origin().split("/")[0])))
          .append("\">").append(esc(item.origin())).append("</a></dd>");
    }
    if (!item.inBacklog()) {
      dt(b, "Backlog", "not in the backlog file");
    }
    db.workspace(item.id()).ifPresent(w -> {
      dt(b, "Branch", w.branch() + " (from " + w.baseBranch() + ")");
      dt(b, "Last phase commit", w.headCommit());
      dt(b, "Worktree", w.onDisk() ? w.path().toString() : "removed");
      if (w.integration() != null) {
        dt(b, "Integration", w.integration().key() + (w.note() == null ? "" : ": " + w.note()));
      }
    });
    b.append("</dl>");
    pre(b, "Description", item.definition().description());
    pre(b, "Blocked reason", item.progress().blockedReason());
    pre(b, "Last failure", item.progress().lastFailure());
    pre(b, "Unblock notes", item.progress().unblockNotes());
    pre(b, "Phase summary", item.progress().phaseSummary());
    pre(b, "Context summary", db.contextSummary(item.id()).orElse(null));
    List<KeptAnswer> answers = db.answers(item.id(), ITEM_ANSWERS);
    if (!answers.isEmpty()) {
      b.append("<section><h2>Summaries by phase and attempt</h2>");
      for (KeptAnswer a : answers) {
        b.append("<h3>").append(esc(a.phase())).append(", attempt ").append(a.attempt())
            .append("</h3><pre class=\"text\">")
            .append(esc(a.text())).append("</pre>");
      }
      b.append("</section>");
    }
    List<ItemState> followUps = db.followUps(item.id(), PAGE_SIZE);
    if (!followUps.isEmpty()) {
      b.append("<section><h2>Follow-ups</h2><ul>");
      for (ItemState f : followUps) {
        b.append("<li><a href=\"/item?id=").append(esc(Query.encode(f.id()))).append("\">").append(esc(f.id()))
            .append("</a> ").append(esc(f.status().key())).append(" — ").append(esc(f.definition().title()))
            .append("</li>");
      }
      b.append("</ul></section>");
    }
    b.append("<section><h2>Jobs</h2>");
    if (jobs.isEmpty()) {
      b.append("<p>None kept.</p>");
    } else {
      jobTable(b, db, jobs);
      List<JobRecord> shown = jobs.subList(0, Math.min(ITEM_LOGS, jobs.size()));
      Map<Long, List<CheckRecord>> checks = db.jobChecks(shown.stream().map(JobRecord::id).toList());
      for (JobRecord job : shown) {
        b.append("<details><summary>Log of job ").append(job.id()).append(" (").append(esc(job.phase()))
            .append(", attempt ").append(job.attempt()).append(")</summary><pre class=\"log\">")
            .append(esc(LogTail.read(dir.root(), job.logPath()))).append("</pre></details>");
        for (CheckRecord c : checks.getOrDefault(job.id(), List.of())) {
          if (c.ending() == CommandRun.Ending.PASSED) {
            continue; // what failed is what the reader looks for; the passed ones are a link away
          }
          Path log = c.log(job);
          b.append("<details data-check-log=\"").append(job.id()).append("\"><summary>Log of ")
              .append(esc(c.kind().key() + " " + c.name())).append(" of job ").append(job.id()).append(" (")
              .append(esc(ending(c))).append(")</summary><pre class=\"log\">")
              .append(esc(log == null ? "(no log)" : LogTail.read(dir.root(), log))).append("</pre></details>");
        }
      }
    }
    b.append("</section>");
    return ok(item.id(), "/items", b);
  }

  Rendered log(DashboardQueries db, Query q) {
    long id = q.number("job", -1);
    Optional<JobRecord> found = id < 0 ? Optional.empty() : db.job(id);
    if (found.isEmpty()) {
      return new Rendered(404, layout("Not found", "/jobs", new StringBuilder("<h1>Not found</h1><p>No job ")
          .append(esc(q.get("job"))).append(".</p>")));
    }
    JobRecord job = found.get();
    if (q.get("gate") != null || q.get("setup") != null) {
      return checkLog(db, job, q);
    }
    StringBuilder b = new StringBuilder("<h1>Log of job ").append(job.id()).append("</h1><p><a href=\"/item?id=")
        .append(esc(Query.encode(job.itemId()))).append("\">").append(esc(job.itemId())).append("</a>, ")
        .append(esc(job.phase())).append(", attempt ").append(job.attempt()).append(", ")
        .append(esc(job.state().name().toLowerCase(Locale.ROOT))).append(" (the last 64 KiB)</p>");
    b.append("<pre class=\"log\">").append(esc(LogTail.read(dir.root(), job.logPath()))).append("</pre>");
    return ok("Log of job " + job.id(), "/jobs", b);
  }

  /** The tail of one of the job's set-up steps or gates ({@code /log?job=12&gate=tests}, {@code &setup=deps}). */
  private Rendered checkLog(DashboardQueries db, JobRecord job, Query q) {
    CommandRun.Kind kind = q.get("gate") != null ? CommandRun.Kind.GATE : CommandRun.Kind.SETUP;
    String name = kind == CommandRun.Kind.GATE ? q.get("gate") : q.get("setup");
    CheckRecord check = null;
    for (CheckRecord c : db.jobChecks(List.of(job.id())).getOrDefault(job.id(), List.of())) {
      if (c.kind() == kind && c.name().equals(name)) {
        check = c;
      }
    }
    if (check == null) {
      return new Rendered(404, layout("Not found", "/jobs", new StringBuilder("<h1>Not found</h1><p>Job ")
          .append(job.id()).append(" ran no ").append(kind.key()).append(' ').append(esc(name)).append(".</p>")));
    }
    String title = "Log of " + kind.key() + " " + check.name() + " of job " + job.id();
    StringBuilder b = new StringBuilder("<h1>").append(esc(title)).append("</h1><p><a href=\"/item?id=")
        .append(esc(Query.encode(job.itemId()))).append("\">").append(esc(job.itemId())).append("</a>, ")
        .append(esc(job.phase())).append(", attempt ").append(job.attempt()).append(": <span data-figure=\"ending\">")
        .append(esc(ending(check))).append("</span> after ").append(esc(checkDuration(check.duration())))
        .append(" (the last 64 KiB)</p>");
    Path log = check.log(job);
    b.append("<pre class=\"log\">").append(esc(log == null ? "(no log)" : LogTail.read(dir.root(), log)))
        .append("</pre>");
    return ok(title, "/jobs", b);
  }

  /** One link per set-up step and gate to its log: {@code gate tests: failed (exit 1), 3.2s}. */
  private static void checkLinks(StringBuilder b, JobRecord job, List<CheckRecord> checks) {
    for (int i = 0; i < checks.size(); i++) {
      CheckRecord c = checks.get(i);
      b.append(i == 0 ? "" : "<br>").append("<a class=\"check c-").append(esc(c.ending().key()))
          .append("\" data-check=\"").append(esc(c.kind().key() + " " + c.name())).append("\" href=\"")
          .append(esc(checkHref(job, c))).append("\">").append(esc(c.kind().key() + " " + c.name() + ": " + ending(c)
              + ", " + checkDuration(c.duration())))
          .append("</a>");
    }
  }

  private static String checkHref(JobRecord job, CheckRecord c) {
    return "/log?job=" + job.id() + "&" + c.kind().key() + "=" + Query.encode(c.name());
  }

  /** passed, failed (exit 1), timed out, could not start, cancelled. */
  private static String ending(CheckRecord c) {
    return switch (c.ending()) {
      case PASSED -> "passed";
      case FAILED -> "failed" + (c.exitCode() == null ? "" : " (exit " + c.exitCode() + ")");
      case TIMED_OUT -> "timed out";
      case SPAWN_FAILED -> "could not start";
      case CANCELLED -> "cancelled";
    };
  }

  /** 850ms, 3.2s, then as {@link #duration}. */
  private static String checkDuration(Duration d) {
    long ms = Math.max(0, d.toMillis());
    return ms < 1000 ? ms + "ms" : ms < 60_000 ? String.format(Locale.ROOT, "%.1fs", ms / 1000.0) : duration(d);
  }

  Rendered jobs(DashboardQueries db, Query q) {
    long before = q.number("before", Long.MAX_VALUE);
    Page<JobRecord> page = db.jobs(before, PAGE_SIZE);
    StringBuilder b = new StringBuilder("<h1>Jobs</h1><p><span data-figure=\"jobs\">").append(page.total())
        .append("</span> jobs kept, newest first.</p>");
    jobTable(b, db, page.rows());
    b.append("<nav class=\"pager\">");
    if (before != Long.MAX_VALUE) {
      b.append("<a href=\"/jobs\">newest</a> ");
    }
    if (page.rows().size() == PAGE_SIZE) {
      b.append("<a rel=\"next\" href=\"/jobs?before=").append(page.rows().get(PAGE_SIZE - 1).id())
          .append("\">older</a>");
    }
    b.append("</nav>");
    return ok("Jobs", "/jobs", b);
  }

  private static void jobTable(StringBuilder b, DashboardQueries db, List<JobRecord> jobs) {
    Map<Long, Double> costs = db.jobCosts(jobs.stream().map(JobRecord::id).toList());
    List<Long> ids = jobs.stream().map(JobRecord::id).toList();
    Map<Long, dev.orchestrate.jobs.OutcomeClass> outcomes = db.jobOutcomes(ids);
    Map<Long, AgentSession> sessions = db.jobSessions(ids);
    Map<Long, List<CheckRecord>> checks = db.jobChecks(ids);
    boolean withCost = !costs.isEmpty(); // a column only when some agent reported a cost
    // Only when some job's conversation was more than a plain fresh start (an id, a resume), or ran a check.
    boolean withSession = sessions.values().stream()
        .anyMatch(x -> x.id() != null || x.start() != dev.orchestrate.jobs.AgentSession.Start.FRESH);
    boolean withChecks = !checks.isEmpty();
    b.append("<table class=\"list\"><thead><tr><th>Job</th><th>Run</th><th>Item</th><th>Phase</th><th>Attempt</th>"
        + "<th>State</th><th>Result</th><th>Outcome</th>")
        .append(withSession ? "<th>Session</th>" : "").append(withChecks ? "<th>Checks</th>" : "")
        .append("<th>Started</th><th>Took</th><th>Exit</th>")
        .append(withCost ? "<th>Cost</th>" : "").append("<th>Reason</th></tr></thead><tbody>");
    for (JobRecord j : jobs) {
      b.append("<tr><td><a href=\"/log?job=").append(j.id()).append("\" title=\"log\">").append(j.id())
          .append("</a></td><td>").append(j.runId()).append("</td><td><a href=\"/item?id=")
          .append(esc(Query.encode(j.itemId()))).append("\">").append(esc(j.itemId())).append("</a></td><td>")
          .append(esc(j.phase())).append("</td><td>").append(j.attempt()).append("</td><td>")
          .append(esc(j.state().name().toLowerCase(Locale.ROOT))).append("</td><td>").append(esc(j.result()))
          .append("</td><td>").append(outcomes.containsKey(j.id()) ? esc(outcomes.get(j.id()).key()) : "");
      if (withSession) {
        AgentSession session = sessions.get(j.id());
        b.append("</td><td");
        if (session != null && session.id() != null) {
          b.append(" title=\"session ").append(esc(session.id())).append('"');
        }
        b.append(" data-session=\"").append(j.id()).append("\">")
            .append(session == null ? "" : esc(session.start().key()));
      }
      if (withChecks) {
        b.append("</td><td class=\"wrap\">");
        checkLinks(b, j, checks.getOrDefault(j.id(), List.of()));
      }
      b.append("</td><td>").append(TIME.format(j.startedAt())).append("</td><td>")
          .append(j.endedAt() == null ? "" : esc(duration(Duration.between(j.startedAt(), j.endedAt()))))
          .append("</td><td>").append(j.exitCode() == null ? "" : j.exitCode()).append("</td><td>");
      if (withCost) {
        Double cost = costs.get(j.id());
        b.append(cost == null ? "" : usd(cost)).append("</td><td>");
      }
      b.append(esc(cut(j.reason(), 160))).append("</td></tr>");
    }
    b.append("</tbody></table>");
  }

  Rendered growth(DashboardQueries db) {
    StatsReport report = StatsReport.of(db.stats(clock.instant()));
    List<Sample> samples = db.samples(SAMPLES);
    StringBuilder b = new StringBuilder("<h1>Growth</h1>");
    b.append("<p>Status <strong data-figure=\"stats-status\">").append(esc(report.status().key()))
        .append("</strong>, pressure <strong data-figure=\"pressure\">").append(esc(report.pressure().key()))
        .append("</strong>; charts show the last ").append(samples.size()).append(" stats samples.</p>");
    for (StatsReport.Warning w : report.warnings()) {
      b.append("<p class=\"warning\">").append(esc(w.structure())).append(": ").append(esc(w.message())).append("</p>");
    }
    b.append("<table class=\"list\"><thead><tr><th>Structure</th><th>Rows</th><th>Limit</th><th>Utilisation</th>"
        + "<th>Status</th><th>Per hour</th><th>Pruned</th><th>Truncated writes</th></tr></thead><tbody>");
    for (StatsReport.Row row : report.structures()) {
      Structure s = row.figures();
      b.append("<tr data-structure=\"").append(esc(s.name())).append("\"><td>").append(esc(s.name()))
          .append("</td><td data-figure=\"rows\">").append(s.rowsNow()).append("</td><td>")
          .append(s.maxRows() == null ? "none" : (s.name().equals("memory") ? "keep " : "") + s.maxRows())
          .append("</td><td>").append(row.utilisation() == null ? "" : percent(row.utilisation())).append("</td><td>")
          .append(esc(row.status().key())).append("</td><td>")
          .append(row.perHour() == null ? "" : String.format(Locale.ROOT, "%+.1f", row.perHour()))
          .append("</td><td data-figure=\"pruned\">").append(s.rowsPruned()).append("</td><td>")
          .append(s.truncatedWrites())
          .append("</td></tr>");
    }
    b.append("</tbody></table>");
    b.append("<div class=\"charts\">");
    for (StatsReport.Row row : report.structures()) {
      Structure s = row.figures();
      List<Charts.Point> points = new ArrayList<>(samples.size());
      for (Sample sample : samples) {
        Long n = sample.rows().get(s.name());
        if (n != null) {
          points.add(new Charts.Point(sample.at(), n));
        }
      }
      Long limit = s.name().equals("memory") ? null : s.maxRows();
      b.append("<figure><figcaption>").append(esc(s.name())).append(": rows over time</figcaption>")
          .append(Charts.line(s.name() + " rows", points, limit)).append("</figure>");
    }
    List<Charts.Point> bytes = new ArrayList<>(samples.size());
    for (Sample sample : samples) {
      bytes.add(new Charts.Point(sample.at(), sample.dbBytes()));
    }
    b.append("<figure><figcaption>database bytes (file + WAL)</figcaption>")
        .append(Charts.line("database bytes", bytes, null))
        .append("</figure></div>");
    DatabaseFigures d = report.database();
    b.append("<h2>Database</h2><dl class=\"run\">");
    dt(b, "File bytes", Long.toString(d.fileBytes()));
    dt(b, "WAL bytes", Long.toString(d.walBytes()));
    dt(b, "Free pages bytes", Long.toString(d.freelistBytes()));
    b.append("</dl><h2>Summary map and job table of the last runs</h2>");
    b.append(
        "<table class=\"list\"><thead><tr><th>Run</th><th>Started</th><th>Halt reason</th><th>Summary map peak</th>"
            + "<th>final</th><th>Job table peak active</th><th>peak inactive</th><th>final</th></tr></thead><tbody>");
    for (RunBounds r : db.runBounds(RUNS)) {
      b.append("<tr><td>").append(r.id()).append("</td><td>").append(TIME.format(r.startedAt())).append("</td><td>")
          .append(esc(r.haltReason())).append("</td><td>").append(n(r.summaryMapPeak())).append("</td><td>")
          .append(n(r.summaryMapFinal())).append("</td><td>").append(n(r.jobTablePeakActive())).append("</td><td>")
          .append(n(r.jobTablePeakInactive())).append("</td><td>").append(n(r.jobTableFinal())).append("</td></tr>");
    }
    b.append("</tbody></table>");
    return ok("Growth", "/growth", b);
  }

  Rendered memory(DashboardQueries db, Query q) {
    int keep = (int) Math.min(Integer.MAX_VALUE, q.number("keep", db.recordedKeepRecent()));
    DashboardQueries.MemoryView m = db.memory(keep, MEMORY_ROWS);
    StringBuilder b = new StringBuilder("<h1>Memory</h1>");
    b.append(
        "<form class=\"filter\" method=\"get\" action=\"/memory\"><label>keep recent <input name=\"keep\" value=\"")
        .append(keep).append("\" inputmode=\"numeric\"></label><button type=\"submit\">Preview</button></form>");
    b.append("<p><code>compact --keep-recent ").append(keep)
        .append("</code> would delete <strong data-figure=\"would-delete\">")
        .append(m.preview().deleted()).append("</strong> episodic items and keep ").append(m.preview().keptRecent())
        .append(" recent ones, ").append(m.preview().keptLoadBearing()).append(" load-bearing ones (")
        .append(m.preview().superseded()).append(" superseded are not counted).</p>");
    if (!m.preview().deletedIds().isEmpty()) {
      b.append("<p>Oldest that would go: ").append(esc(String.join(", ", m.preview().deletedIds()))).append("</p>");
    }
    b.append("<h2>Load-bearing</h2>");
    memoryTable(b, m.loadBearing(), true);
    b.append("<h2>Episodic, most recent first</h2>");
    memoryTable(b, m.recentEpisodic(), false);
    return ok("Memory", "/memory", b);
  }

  private static void memoryTable(StringBuilder b, List<MemoryItem> items, boolean why) {
    if (items.isEmpty()) {
      b.append("<p>None.</p>");
      return;
    }
    b.append(
        "<table class=\"list\"><thead><tr><th>ID</th><th>Kind</th><th>Title</th><th>Tags</th><th>Item</th><th>Created</th>")
        .append(why ? "<th>Kept because</th>" : "").append("</tr></thead><tbody>");
    for (MemoryItem i : items) {
      b.append("<tr><td>").append(esc(i.id())).append("</td><td>").append(esc(i.kind().key())).append("</td><td>")
          .append(esc(i.title())).append("</td><td>").append(esc(String.join(", ", i.tags()))).append("</td><td>")
          .append(esc(i.sourceItem())).append("</td><td>").append(TIME.format(i.createdAt())).append("</td>");
      if (why) {
        b.append("<td>").append(esc(CompactionPolicy.protectedBecause(i))).append("</td>");
      }
      b.append("</tr>");
    }
    b.append("</tbody></table>");
  }

  Rendered noState() {
    return new Rendered(200, layout("Overview", "/", new StringBuilder("<h1>Overview</h1><p>No state yet in ")
        .append(esc(dir.root())).append(" (start with: orchestrate run [BACKLOG]).</p>")));
  }

  Rendered oldSchema(int version) {
    return new Rendered(503,
        layout("Older state", "/", new StringBuilder("<h1>Older state</h1><p>This state has schema ")
            .append(version).append("; the dashboard reads ").append(DashboardQueries.MIN_SCHEMA)
            .append(" and later. A run upgrades it.</p>")));
  }

  static Rendered notFound() {
    return new Rendered(404, layout("Not found", "", new StringBuilder("<h1>Not found</h1>")));
  }

  private static Rendered ok(String title, String nav, StringBuilder body) {
    return new Rendered(200, layout(title, nav, body));
  }

  static String layout(String title, String active, CharSequence body) {
    StringBuilder b = new StringBuilder(body.length() + 1024);
    b.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>").append(esc(title)).append(" · orchestrate</title>")
        .append("<link rel=\"stylesheet\" href=\"/static/dashboard.css\">")
        .append(
            "<script src=\"/static/dashboard.js\" defer></script></head><body><header><span class=\"brand\">orchestrate</span><nav>");
    for (String[] link : new String[][] {{"/", "Overview"}, {"/items", "Items"}, {"/jobs", "Jobs"},
        {"/growth", "Growth"}, {"/memory", "Memory"}}) {
      b.append("<a href=\"").append(link[0]).append('"').append(link[0].equals(active) ? " class=\"active\"" : "")
          .append('>').append(link[1]).append("</a>");
    }
    b.append("</nav><span id=\"refreshed\" class=\"refreshed\"></span></header><main id=\"live\">").append(body)
        .append("</main></body></html>");
    return b.toString();
  }

  private static void select(StringBuilder b, String name, String chosen, String[] options) {
    b.append("<label>").append(name).append(" <select name=\"").append(name)
        .append("\"><option value=\"\">any</option>");
    for (String o : options) {
      b.append("<option").append(o.equals(chosen) ? " selected" : "").append(">").append(o).append("</option>");
    }
    b.append("</select></label>");
  }

  private static void param(StringBuilder url, String name, String value) {
    if (value != null) {
      url.append(name).append('=').append(Query.encode(value)).append('&');
    }
  }

  private static String oneOf(String value, String[] allowed) {
    for (String a : allowed) {
      if (a.equals(value)) {
        return a;
      }
    }
    return null;
  }

  private static void dt(StringBuilder b, String name, String value) {
    if (value != null && !value.isEmpty()) {
      b.append("<dt>").append(esc(name)).append("</dt><dd>").append(esc(value)).append("</dd>");
    }
  }

  private static void pre(StringBuilder b, String name, String text) {
    if (text != null && !text.isBlank()) {
      b.append("<section><h2>").append(esc(name)).append("</h2><pre class=\"text\">").append(esc(text))
          .append("</pre></section>");
    }
  }

  /**
   * As {@code status} counts them: the attempts of the current phase; for a done or blocked item
   * (whose count the state resets or keeps), those of its last job when retention kept it.
   */
  private static int attempts(ItemState item, Integer lastJobAttempt) {
    int recorded = item.progress().attempts();
    return item.status().isTerminal() && lastJobAttempt != null ? Math.max(recorded, lastJobAttempt) : recorded;
  }

  /** Cents at least and up to 6 decimals: a $0.001 budget is not "$0.00". */
  private static String usd(double v) {
    return dev.orchestrate.item.Money.usd(v);
  }

  private static String n(Long v) {
    return v == null ? "" : v.toString();
  }

  private static String percent(double share) {
    return String.format(Locale.ROOT, "%.0f %%", share * 100);
  }

  private static String cut(String s, int max) {
    if (s == null) {
      return null;
    }
    String line = s.strip().replace('\n', ' ');
    return line.length() <= max ? line : line.substring(0, max - 1) + "…";
  }

  static String duration(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return s / 60 + "m " + s % 60 + "s";
    }
    return s / 3600 + "h " + (s % 3600) / 60 + "m";
  }
}
