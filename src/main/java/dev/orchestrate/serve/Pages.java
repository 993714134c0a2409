package dev.orchestrate.serve;

import static dev.orchestrate.serve.Html.esc;
import static dev.orchestrate.serve.PageParts.TIME;
import static dev.orchestrate.serve.PageParts.attempts;
import static dev.orchestrate.serve.PageParts.cut;
import static dev.orchestrate.serve.PageParts.dt;
import static dev.orchestrate.serve.PageParts.duration;
import static dev.orchestrate.serve.PageParts.jobTable;
import static dev.orchestrate.serve.PageParts.layout;
import static dev.orchestrate.serve.PageParts.n;
import static dev.orchestrate.serve.PageParts.ok;
import static dev.orchestrate.serve.PageParts.oneOf;
import static dev.orchestrate.serve.PageParts.param;
import static dev.orchestrate.serve.PageParts.percent;
import static dev.orchestrate.serve.PageParts.select;
import static dev.orchestrate.serve.PageParts.usd;

import dev.orchestrate.app.Inbox;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.memory.CompactionPolicy;
import dev.orchestrate.memory.MemoryItem;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.DashboardQueries.DashboardFilter;
import dev.orchestrate.state.DashboardQueries.Page;
import dev.orchestrate.state.DashboardQueries.RunBounds;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.stats.DatabaseFigures;
import dev.orchestrate.stats.Sample;
import dev.orchestrate.stats.StatsReport;
import dev.orchestrate.stats.Structure;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The dashboard's pages, rendered on the server. Each reads what it shows through one read-only
 * {@link DashboardQueries} and bounds every list; every value goes through {@link Html#esc}. The
 * pages of one item are {@link ItemPages}; what all pages share is {@link PageParts}.
 */
final class Pages {
  static final int PAGE_SIZE = 50;
  static final int SAMPLES = 500;
  static final int RUNS = 10;
  static final int MEMORY_ROWS = 50;
  private static final String[] STATUSES = {"new", "scoping", "ready", "in_progress", "awaiting_review",
      "landing", "awaiting_checks", "done",
      "blocked"};
  private static final String[] PRIORITIES = {"high", "medium", "low"};

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
    List<AgentPauses.Pause> pauses = db.pauses().stream().filter(p -> p.activeAt(now))
        .toList();
    if (!pauses.isEmpty()) {
      b.append("<section><h2>Agents paused by a provider's limit</h2><ul>");
      for (AgentPauses.Pause p : pauses) {
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
    // A count that stopped early says so: "more than 1000 items match" is what was counted, not a guess.
    String total = (page.moreThan() ? "more than " : "") + page.total();
    b.append("<p><span data-figure=\"matching\">").append(total).append("</span> items match.</p>");
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
              : item.origin() == null ? "" : Inbox.MCP.equals(item.origin()) ? "added through orchestrate mcp"
                  : "follow-up of " + item.origin()))
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
    b.append("<span>showing ").append(page.total() == 0 ? 0 : offset + 1).append("–")
        .append(offset + page.rows().size())
        .append(" of ").append(total).append("</span>");
    if (offset + page.rows().size() < page.total() || page.moreThan() && !page.rows().isEmpty()) {
      b.append(" <a rel=\"next\" href=\"").append(esc(base + "offset=" + (offset + PAGE_SIZE))).append("\">next</a>");
    }
    b.append("</nav>");
    return ok("Items", "/items", b);
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

}
