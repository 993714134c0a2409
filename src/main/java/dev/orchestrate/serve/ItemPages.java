package dev.orchestrate.serve;

import static dev.orchestrate.serve.Html.esc;
import static dev.orchestrate.serve.PageParts.attempts;
import static dev.orchestrate.serve.PageParts.checkDuration;
import static dev.orchestrate.serve.PageParts.dt;
import static dev.orchestrate.serve.PageParts.ending;
import static dev.orchestrate.serve.PageParts.jobTable;
import static dev.orchestrate.serve.PageParts.layout;
import static dev.orchestrate.serve.PageParts.ok;
import static dev.orchestrate.serve.PageParts.pre;

import dev.orchestrate.app.Inbox;
import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.ItemHistory;
import dev.orchestrate.state.ItemHistory.KeptAnswer;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.workspace.BranchSummary;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The dashboard's pages of one item: the item (its state, jobs, answers and log tails) and a job's
 * or a check's whole log tail.
 */
final class ItemPages {
  private final StateDirectory dir;
  private final ReviewPages review;

  ItemPages(StateDirectory dir, ReviewPages review) {
    this.dir = dir;
    this.review = review;
  }

  /** Jobs whose log tail the item page shows inline (each is up to 64 KiB, and the page refreshes). */
  static final int ITEM_LOGS = 3;

  static final int ITEM_JOBS = 20;

  static final int ITEM_ANSWERS = 20;
  static final int ITEM_LANDINGS = 10;

  /** What the item's branch holds against its base, for a reviewer: files with lines added and removed, commits. */
  private static void changes(StringBuilder b, BranchSummary s) {
    b.append("<section><h2>Changes against ").append(esc(s.baseBranch())).append("</h2><p>")
        .append(s.filesChanged()).append(s.filesChanged() == 1 ? " file" : " files").append(", +").append(s.added())
        .append(" −").append(s.removed()).append(" lines, in ").append(s.commitCount())
        .append(s.commitCount() == 1 ? " commit" : " commits").append(" on ").append(esc(s.branch()))
        .append("</p><table><tr><th>File</th><th>Added</th><th>Removed</th></tr>");
    for (BranchSummary.FileChange f : s.files()) {
      b.append("<tr><td>").append(esc(f.path())).append("</td><td>")
          .append(f.added() == null ? "binary" : f.added().toString()).append("</td><td>")
          .append(f.removed() == null ? "binary" : f.removed().toString()).append("</td></tr>");
    }
    b.append("</table>");
    if (s.filesNotListed() > 0) {
      b.append("<p>and ").append(s.filesNotListed()).append(" more files</p>");
    }
    b.append("<ul class=\"commits\">");
    for (BranchSummary.Commit c : s.commits()) {
      b.append("<li><code>").append(esc(c.id())).append("</code> ").append(esc(c.subject())).append("</li>");
    }
    b.append("</ul>");
    if (s.commitsNotListed() > 0) {
      b.append("<p>and ").append(s.commitsNotListed()).append(" more commits</p>");
    }
    b.append("</section>");
  }

  Pages.Rendered item(DashboardQueries db, Query q) {
    String id = q.get("id");
    Optional<ItemState> found = id == null ? Optional.empty() : db.item(id);
    if (found.isEmpty()) {
      return new Pages.Rendered(404, layout("Not found", "/items",
          new StringBuilder("<h1>Not found</h1><p>No item ").append(esc(id)).append(".</p>")));
    }
    ItemState item = found.get();
    List<JobRecord> jobs = db.itemJobs(item.id(), ITEM_JOBS);
    StringBuilder b = new StringBuilder("<h1>").append(esc(item.id())).append("</h1>");
    facts(b, db, item, jobs);
    db.workspace(item.id()).filter(w -> w.integration() != WorkspaceRecord.Integration.INTEGRATED)
        .flatMap(w -> BranchSummary.of(new Git(), w)).ifPresent(summary -> changes(b, summary));
    review.itemSection(b, db, item, jobs, q);
    pre(b, "Description", item.definition().description());
    pre(b, "Blocked reason", item.progress().blockedReason());
    pre(b, "Last failure", item.progress().lastFailure());
    pre(b, "Unblock notes", item.progress().unblockNotes());
    pre(b, "Phase summary", item.progress().phaseSummary());
    pre(b, "Context summary", db.contextSummary(item.id()).orElse(null));
    history(b, db, item);
    jobs(b, db, jobs);
    return ok(item.id(), "/items", b);
  }

  /** The item's facts: status, phase, attempts, definition, origin, and its workspace when it has one. */
  private void facts(StringBuilder b, DashboardQueries db, ItemState item, List<JobRecord> jobs) {
    b.append("<p class=\"title\">").append(esc(item.definition().title())).append("</p><dl class=\"item\">");
    dt(b, "Status", item.status().key());
    dt(b, "Phase", item.progress().phase());
    dt(b, "Attempts", Integer.toString(attempts(item, jobs.isEmpty() ? null : jobs.get(0).attempt())));
    dt(b, "Pipeline", item.definition().pipeline());
    dt(b, "Priority", item.definition().priority().key());
    dt(b, "Tags", String.join(", ", item.definition().tags()));
    dt(b, "Depends on", String.join(", ", item.definition().dependsOn()));
    if (Inbox.MCP.equals(item.origin())) {
      b.append("<dt>Added through</dt><dd>orchestrate mcp (lives only in the state)</dd>");
    } else if (item.origin() != null) {
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
      if (w.push().sha() != null) {
        dt(b, "Pushed", w.push().sha());
      }
      if (w.push().url() != null) {
        pullRequest(b, w.push().url());
      }
      if (w.checks().waiting()) {
        dt(b, "Checks", "awaiting since " + w.checks().since() + ", round " + (w.checks().rounds() + 1)
            + (w.checks().nextAt() == null ? "" : ", next poll " + w.checks().nextAt()));
      } else if (w.checks().rounds() > 0) {
        dt(b, "Checks", w.checks().rounds() + " red " + (w.checks().rounds() == 1 ? "round" : "rounds"));
      }
    });
    b.append("</dl>");
  }

  /** The pull request's address, a link only when it is an http or https one (never {@code javascript:}). */
  static void pullRequest(StringBuilder b, String url) {
    boolean web = url.regionMatches(true, 0, "https://", 0, 8) || url.regionMatches(true, 0, "http://", 0, 7);
    b.append("<dt>Pull request</dt><dd>");
    if (web) {
      b.append("<a href=\"").append(esc(url)).append("\" rel=\"noreferrer noopener\">").append(esc(url)).append("</a>");
    } else {
      b.append(esc(url));
    }
    b.append("</dd>");
  }

  /** What the item's attempts left: the kept answers, the landings, the follow-ups. */
  private void history(StringBuilder b, DashboardQueries db, ItemState item) {
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
    List<ItemHistory.Landing> landings = db.landings(item.id(), ITEM_LANDINGS);
    if (!landings.isEmpty()) {
      b.append("<section><h2>Landings</h2><table><tr><th>At</th><th>Result</th><th>Tested</th><th>Gates</th>"
          + "<th>Message</th></tr>");
      for (ItemHistory.Landing l : landings) {
        b.append("<tr><td>").append(esc(l.at().toString())).append("</td><td>").append(esc(l.result()
            + (l.round() == null ? "" : " (round " + l.round() + ")"))).append("</td><td>")
            .append(esc(l.testedCommit() == null ? "" : l.testedCommit().substring(0, Math.min(12,
                l.testedCommit().length()))))
            .append("</td><td>").append(esc(l.gates() == null ? "" : l.gates())).append("</td><td>")
            .append(esc(l.message() == null ? "" : l.message())).append("</td></tr>");
      }
      b.append("</table></section>");
    }
    List<ItemState> followUps = db.followUps(item.id(), Pages.PAGE_SIZE);
    if (!followUps.isEmpty()) {
      b.append("<section><h2>Follow-ups</h2><ul>");
      for (ItemState f : followUps) {
        b.append("<li><a href=\"/item?id=").append(esc(Query.encode(f.id()))).append("\">").append(esc(f.id()))
            .append("</a> ").append(esc(f.status().key())).append(" — ").append(esc(f.definition().title()))
            .append("</li>");
      }
      b.append("</ul></section>");
    }
  }

  /** The item's jobs, with the logs of the latest and of their checks that did not pass. */
  private void jobs(StringBuilder b, DashboardQueries db, List<JobRecord> jobs) {
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
  }

  Pages.Rendered log(DashboardQueries db, Query q) {
    long id = q.number("job", -1);
    Optional<JobRecord> found = id < 0 ? Optional.empty() : db.job(id);
    if (found.isEmpty()) {
      return new Pages.Rendered(404, layout("Not found", "/jobs", new StringBuilder("<h1>Not found</h1><p>No job ")
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
  private Pages.Rendered checkLog(DashboardQueries db, JobRecord job, Query q) {
    CommandRun.Kind kind = q.get("gate") != null ? CommandRun.Kind.GATE : CommandRun.Kind.SETUP;
    String name = kind == CommandRun.Kind.GATE ? q.get("gate") : q.get("setup");
    CheckRecord check = null;
    for (CheckRecord c : db.jobChecks(List.of(job.id())).getOrDefault(job.id(), List.of())) {
      if (c.kind() == kind && c.name().equals(name)) {
        check = c;
      }
    }
    if (check == null) {
      return new Pages.Rendered(404, layout("Not found", "/jobs", new StringBuilder("<h1>Not found</h1><p>Job ")
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
}
