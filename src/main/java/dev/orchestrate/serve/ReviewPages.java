package dev.orchestrate.serve;

import static dev.orchestrate.serve.Html.esc;
import static dev.orchestrate.serve.PageParts.TIME;
import static dev.orchestrate.serve.PageParts.checkLinks;
import static dev.orchestrate.serve.PageParts.cut;
import static dev.orchestrate.serve.PageParts.duration;
import static dev.orchestrate.serve.PageParts.ok;

import dev.orchestrate.app.ItemDiff;
import dev.orchestrate.error.OrchestrateException;
import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.state.DashboardQueries;
import dev.orchestrate.state.DashboardQueries.Page;
import dev.orchestrate.state.DashboardQueries.Waiting;
import dev.orchestrate.workspace.BranchDiff;
import dev.orchestrate.workspace.Git;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a reviewer reads and decides on: the {@code /review} list of every item waiting for a person
 * (awaiting review, then blocked; those waiting longest first), and on an item's page its diff
 * against its base (paged by file, {@link DiffPage}), the gates its latest attempts ran, and with
 * {@code serve --actions} the forms that approve, reject or unblock it.
 */
final class ReviewPages {
  /** Rows of each list of {@code /review}. */
  static final int LISTED = 50;

  private final Clock clock;
  /** Null: the dashboard is read-only, no form is shown. */
  private final CsrfToken csrf;
  private final ActionResults results;
  private final ReviewActions actions;

  /** @param decisions null: a read-only dashboard */
  ReviewPages(Clock clock, Decisions decisions) {
    this.clock = clock;
    this.csrf = decisions == null ? null : decisions.csrf();
    this.results = decisions == null ? null : decisions.results();
    this.actions = decisions == null ? null : decisions.actions();
  }

  Pages.Rendered review(DashboardQueries db) {
    StringBuilder b = new StringBuilder("<h1>Review</h1>");
    Page<Waiting> awaiting = db.waiting(ItemStatus.AWAITING_REVIEW, LISTED);
    Page<Waiting> blocked = db.waiting(ItemStatus.BLOCKED, LISTED);
    b.append("<p>Everything waiting for a person, the longest waiting first: <span data-figure=\"awaiting\">")
        .append(awaiting.total()).append("</span> awaiting review, <span data-figure=\"blocked\">")
        .append(blocked.total()).append("</span> blocked.")
        .append(csrf == null ? " Read-only: decide with <code>orchestrate approve ID</code>, <code>reject ID "
            + "--notes TEXT</code> or <code>unblock ID --notes TEXT</code> (or start <code>serve --actions</code>)."
            : "")
        .append("</p>");
    list(b, "Awaiting review", "awaiting", awaiting, true);
    list(b, "Blocked", "blocked", blocked, false);
    return ok("Review", "/review", b);
  }

  private void list(StringBuilder b, String title, String kind, Page<Waiting> page, boolean review) {
    b.append("<section><h2>").append(title).append("</h2>");
    if (page.rows().isEmpty()) {
      b.append("<p>None.</p></section>");
      return;
    }
    b.append("<table class=\"list\" data-list=\"").append(kind).append("\"><thead><tr><th>Item</th><th>Title</th>")
        .append(review ? "<th>Phase</th>" : "<th>Blocked from</th><th>Reason</th>")
        .append("<th>Waiting since</th><th>For</th>").append(review ? "<th>Decision</th>" : "")
        .append("</tr></thead><tbody>");
    for (Waiting w : page.rows()) {
      ItemState item = w.item();
      b.append("<tr><td><a href=\"/item?id=").append(esc(Query.encode(item.id()))).append("\">").append(esc(item.id()))
          .append("</a></td><td>").append(esc(cut(item.definition().title(), 120))).append("</td><td>");
      if (review) {
        b.append(esc(item.progress().phase()));
      } else {
        b.append(esc(item.progress().blockedFrom() == null ? "" : item.progress().blockedFrom().key()))
            .append("</td><td>").append(esc(cut(item.progress().blockedReason(), 160)));
      }
      b.append("</td><td>").append(w.since() == null ? "" : TIME.format(w.since())).append("</td><td>")
          .append(w.since() == null ? "" : esc(duration(Duration.between(w.since(), clock.instant()))));
      if (review) {
        b.append("</td><td>").append(w.decisionQueued() ? "queued for a run" : "");
      }
      b.append("</td></tr>");
    }
    b.append("</tbody></table>");
    if (page.total() > page.rows().size()) {
      b.append("<p>and ").append(page.total() - page.rows().size()).append(" more, who waited less</p>");
    }
    b.append("</section>");
  }

  /**
   * The item page's review part: what the last action on it came to, the decision forms (or the
   * commands to type), the gates of its latest attempts and one page of its diff.
   */
  void itemSection(StringBuilder b, DashboardQueries db, ItemState item, List<JobRecord> jobs, Query q) {
    ActionResults.Entry result = results == null ? null : results.get(q.get("result"));
    if (result != null) {
      b.append("<p class=\"notice ").append(result.working() ? "working" : result.applied() ? "applied" : "refused")
          .append("\" data-result>").append(result.working() ? "Still working: this page shows the item once it is "
              + "done." : esc(result.message()))
          .append("</p>");
    }
    decisions(b, item);
    gates(b, db, jobs);
    db.workspace(item.id()).filter(w -> w.integration() != WorkspaceRecord.Integration.INTEGRATED)
        .ifPresent(w -> diff(b, item, w, (int) Math.max(0, Math.min(q.number("page", 1), 1_000_000)) - 1));
  }

  private void decisions(StringBuilder b, ItemState item) {
    boolean awaiting = item.status() == ItemStatus.AWAITING_REVIEW;
    if (!awaiting && item.status() != ItemStatus.BLOCKED) {
      return;
    }
    b.append("<section class=\"decide\"><h2>Decision</h2>");
    String id = item.id();
    if (csrf == null) {
      b.append("<p>Read-only dashboard: <code>").append(esc(awaiting ? "orchestrate approve " + id
          : "orchestrate unblock " + id + " --notes TEXT [--rebase]")).append("</code>")
          .append(awaiting ? " or <code>" + esc("orchestrate reject " + id + " --notes TEXT") + "</code>" : "")
          .append(" (or start <code>serve --actions</code>).</p></section>");
      return;
    }
    if (awaiting) {
      form(b, "approve", id, "");
      form(b, "reject", id, "<label>Notes for the agent <textarea name=\"notes\" rows=\"4\" cols=\"80\" required>"
          + "</textarea></label><label>Back to phase <input name=\"phase\" placeholder=\"its last\"></label>");
    } else {
      form(b, "unblock", id, "<label>Notes for the agent <textarea name=\"notes\" rows=\"4\" cols=\"80\" required>"
          + "</textarea></label>" + (actions.worktrees() ? "<label><input type=\"checkbox\" name=\"rebase\" "
              + "value=\"1\"> rebase its branch onto the base branch first</label>" : ""));
    }
    b.append("</section>");
  }

  private void form(StringBuilder b, String action, String id, String fields) {
    b.append("<form method=\"post\" action=\"/actions/").append(action).append("\" class=\"action\" data-action=\"")
        .append(action).append("\"><input type=\"hidden\" name=\"").append(CsrfToken.FIELD).append("\" value=\"")
        .append(esc(csrf.value())).append("\"><input type=\"hidden\" name=\"id\" value=\"").append(esc(id))
        .append("\">").append(fields).append("<button type=\"submit\">")
        .append(Character.toUpperCase(action.charAt(0))).append(action.substring(1)).append("</button></form>");
  }

  /** The gates and set-up steps of the latest attempt of each phase that ran any, with how each ended. */
  private static void gates(StringBuilder b, DashboardQueries db, List<JobRecord> jobs) {
    Map<Long, List<CheckRecord>> checks = db.jobChecks(jobs.stream().map(JobRecord::id).toList());
    Set<String> phases = new HashSet<>();
    StringBuilder rows = new StringBuilder();
    for (JobRecord job : jobs) { // newest first
      List<CheckRecord> ran = checks.get(job.id());
      if (ran == null || ran.isEmpty() || !phases.add(job.phase())) {
        continue;
      }
      boolean passed = ran.stream().allMatch(c -> c.ending() == dev.orchestrate.outcome.CommandRun.Ending.PASSED);
      rows.append("<tr><td>").append(esc(job.phase())).append("</td><td>").append(job.attempt())
          .append("</td><td><a href=\"/log?job=").append(job.id()).append("\">").append(job.id())
          .append("</a></td><td data-gates=\"").append(passed ? "passed" : "failed").append("\">")
          .append(passed ? "passed" : "not passed").append("</td><td class=\"wrap\">");
      checkLinks(rows, job, ran);
      rows.append("</td></tr>");
    }
    if (rows.length() > 0) {
      b.append("<section><h2>Gates of the latest attempts</h2><table class=\"list gates\"><thead><tr><th>Phase</th>"
          + "<th>Attempt</th><th>Job</th><th>Gates</th><th>Each</th></tr></thead><tbody>").append(rows)
          .append("</tbody></table></section>");
    }
  }

  /** One page of the item's diff against its base ({@code page} from 0), as {@code diff ID} makes it. */
  private static void diff(StringBuilder b, ItemState item, WorkspaceRecord ws, int page) {
    b.append("<section id=\"diff\"><h2>Diff against ").append(esc(ws.baseBranch())).append("</h2>");
    Git git = new Git();
    DiffPage shown = new DiffPage(page);
    BranchDiff.Patch patch = null;
    try {
      ItemDiff.Found found = new ItemDiff.Found(item, BranchDiff.range(git, ws));
      try {
        patch = ItemDiff.patch(git, found, ItemDiff.TEXT_MAX_BYTES, shown);
        shown.close();
      } catch (DiffPage.Full complete) {
        // the page's files are all in: git was stopped
      }
    } catch (IOException | OrchestrateException e) {
      b.append("<p>The diff cannot be read: ").append(esc(e.getMessage())).append("</p></section>");
      return;
    }
    int firstFile = page * DiffPage.FILES + 1;
    if (shown.shownFiles() == 0) {
      b.append(page == 0 ? "<p>No change.</p>" : "<p>No file on this page.</p>");
    } else {
      b.append("<p>Files ").append(firstFile).append('–').append(firstFile + shown.shownFiles() - 1)
          .append(" (each as <code>git diff</code> shows it; nothing of the repository runs)</p>");
      shown.appendFiles(b);
    }
    if (shown.cut()) {
      b.append("<p class=\"cut\" data-cut>The rest of this page is cut: a page shows at most ")
          .append(DiffPage.MAX_CHARS / 1024).append(" KiB. <code>").append(esc("orchestrate diff " + item.id()))
          .append("</code> shows all of it.</p>");
    }
    if (patch != null && patch.cut()) {
      b.append("<p class=\"cut\" data-cut>The diff is cut at ").append(ItemDiff.TEXT_MAX_BYTES / (1024 * 1024))
          .append(" MiB, as <code>orchestrate diff</code> cuts it.</p>");
    }
    b.append("<p class=\"pages\">");
    String href = "/item?id=" + Query.encode(item.id()) + "&page=";
    if (page > 0) {
      b.append("<a href=\"").append(esc(href + page)).append("#diff\" rel=\"prev\">previous files</a> ");
    }
    if (shown.more()) {
      b.append("<a href=\"").append(esc(href + (page + 2))).append("#diff\" rel=\"next\">next files</a>");
    }
    b.append("</p></section>");
  }
}
