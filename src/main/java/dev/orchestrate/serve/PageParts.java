package dev.orchestrate.serve;

import static dev.orchestrate.serve.Html.esc;

import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.Money;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.state.DashboardQueries;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the dashboard's pages share: the layout around a page, definition rows and preformatted
 * blocks, filters and links, the job table with its checks, and the number and time formats.
 */
final class PageParts {
  private PageParts() {
  }

  static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'", Locale.ROOT)
      .withZone(java.time.ZoneOffset.UTC);

  static Pages.Rendered ok(String title, String nav, StringBuilder body) {
    return new Pages.Rendered(200, layout(title, nav, body));
  }

  static String layout(String title, String active, CharSequence body) {
    StringBuilder b = new StringBuilder(body.length() + 1024);
    b.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>").append(esc(title)).append(" · orchestrate</title>")
        .append("<link rel=\"stylesheet\" href=\"/static/dashboard.css\">")
        .append(
            "<script src=\"/static/dashboard.js\" defer></script></head><body><header><span class=\"brand\">orchestrate</span><nav>");
    for (String[] link : new String[][] {{"/", "Overview"}, {"/items", "Items"}, {"/review", "Review"},
        {"/jobs", "Jobs"},
        {"/growth", "Growth"}, {"/memory", "Memory"}}) {
      b.append("<a href=\"").append(link[0]).append('"').append(link[0].equals(active) ? " class=\"active\"" : "")
          .append('>').append(link[1]).append("</a>");
    }
    b.append("</nav><span id=\"refreshed\" class=\"refreshed\"></span></header><main id=\"live\">").append(body)
        .append("</main></body></html>");
    return b.toString();
  }

  static void select(StringBuilder b, String name, String chosen, String[] options) {
    b.append("<label>").append(name).append(" <select name=\"").append(name)
        .append("\"><option value=\"\">any</option>");
    for (String o : options) {
      b.append("<option").append(o.equals(chosen) ? " selected" : "").append(">").append(o).append("</option>");
    }
    b.append("</select></label>");
  }

  static void param(StringBuilder url, String name, String value) {
    if (value != null) {
      url.append(name).append('=').append(Query.encode(value)).append('&');
    }
  }

  static String oneOf(String value, String[] allowed) {
    for (String a : allowed) {
      if (a.equals(value)) {
        return a;
      }
    }
    return null;
  }

  static void dt(StringBuilder b, String name, String value) {
    if (value != null && !value.isEmpty()) {
      b.append("<dt>").append(esc(name)).append("</dt><dd>").append(esc(value)).append("</dd>");
    }
  }

  static void pre(StringBuilder b, String name, String text) {
    if (text != null && !text.isBlank()) {
      b.append("<section><h2>").append(esc(name)).append("</h2><pre class=\"text\">").append(esc(text))
          .append("</pre></section>");
    }
  }

  /**
   * As {@code status} counts them: the attempts of the current phase; for a done or blocked item
   * (whose count the state resets or keeps), those of its last job when retention kept it.
   */
  static int attempts(ItemState item, Integer lastJobAttempt) {
    int recorded = item.progress().attempts();
    return item.status().isTerminal() && lastJobAttempt != null ? Math.max(recorded, lastJobAttempt) : recorded;
  }

  /** Cents at least and up to 6 decimals: a $0.001 budget is not "$0.00". */
  static String usd(double v) {
    return Money.usd(v);
  }

  static String n(Long v) {
    return v == null ? "" : v.toString();
  }

  static String percent(double share) {
    return String.format(Locale.ROOT, "%.0f %%", share * 100);
  }

  static String cut(String s, int max) {
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

  static void jobTable(StringBuilder b, DashboardQueries db, List<JobRecord> jobs) {
    Map<Long, Double> costs = db.jobCosts(jobs.stream().map(JobRecord::id).toList());
    List<Long> ids = jobs.stream().map(JobRecord::id).toList();
    Map<Long, OutcomeClass> outcomes = db.jobOutcomes(ids);
    Map<Long, AgentSession> sessions = db.jobSessions(ids);
    Map<Long, List<CheckRecord>> checks = db.jobChecks(ids);
    boolean withCost = !costs.isEmpty(); // a column only when some agent reported a cost
    // Only when some job's conversation was more than a plain fresh start (an id, a resume), or ran a check.
    boolean withSession = sessions.values().stream()
        .anyMatch(x -> x.id() != null || x.start() != AgentSession.Start.FRESH);
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

  /** One link per set-up step and gate to its log: {@code gate tests: failed (exit 1), 3.2s}. */
  static void checkLinks(StringBuilder b, JobRecord job, List<CheckRecord> checks) {
    for (int i = 0; i < checks.size(); i++) {
      CheckRecord c = checks.get(i);
      b.append(i == 0 ? "" : "<br>").append("<a class=\"check c-").append(esc(c.ending().key()))
          .append("\" data-check=\"").append(esc(c.kind().key() + " " + c.name())).append("\" href=\"")
          .append(esc(checkHref(job, c))).append("\">").append(esc(c.kind().key() + " " + c.name() + ": " + ending(c)
              + ", " + checkDuration(c.duration())))
          .append("</a>");
    }
  }

  static String checkHref(JobRecord job, CheckRecord c) {
    return "/log?job=" + job.id() + "&" + c.kind().key() + "=" + Query.encode(c.name());
  }

  /** passed, failed (exit 1), timed out, could not start, cancelled. */
  static String ending(CheckRecord c) {
    return switch (c.ending()) {
      case PASSED -> "passed";
      case FAILED -> "failed" + (c.exitCode() == null ? "" : " (exit " + c.exitCode() + ")");
      case TIMED_OUT -> "timed out";
      case SPAWN_FAILED -> "could not start";
      case CANCELLED -> "cancelled";
    };
  }

  /** 850ms, 3.2s, then as {@link #duration}. */
  static String checkDuration(Duration d) {
    long ms = Math.max(0, d.toMillis());
    return ms < 1000 ? ms + "ms" : ms < 60_000 ? String.format(Locale.ROOT, "%.1fs", ms / 1000.0) : duration(d);
  }
}
