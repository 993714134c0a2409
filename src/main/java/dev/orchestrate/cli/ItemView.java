package dev.orchestrate.cli;

import dev.orchestrate.app.Inbox;
import dev.orchestrate.app.JobDetails;
import dev.orchestrate.app.StatusQuery;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.workspace.BranchSummary;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.yaml.DidYouMean;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code orchestrate status ID}: one item in full, built once and rendered as text or JSON. The
 * job rows come from {@link JobsCommand#cells} and {@link JobsCommand#toJson(JobRecord, JobDetails, Instant,
 * StateDirectory)}, so columns added there (usage, cost) appear here too.
 */
final class ItemView {
  private ItemView() {
  }

  static int show(PrintWriter out, StateDirectory dir, StatusQuery.Lookup lookup, String id, boolean json) {
    if (lookup instanceof StatusQuery.NoState) {
      throw CliException.usage("unknown item '" + id + "': there is no state in " + dir.root() + " yet");
    }
    if (lookup instanceof StatusQuery.Unknown unknown) {
      throw CliException.usage("unknown item '" + id + "'"
          + DidYouMean.closest(id, unknown.known()).map(s -> "; did you mean '" + s + "'?").orElse("")
          + " (orchestrate status lists them)");
    }
    StatusQuery.ItemDetail detail = ((StatusQuery.Found) lookup).detail();
    Instant now = Clock.systemUTC().instant();
    if (json) {
      Json.print(out, toJson(detail, dir, now));
    } else {
      printText(out, detail, dir, now);
    }
    return ExitCode.OK;
  }

  private static Map<String, Object> toJson(StatusQuery.ItemDetail d, StateDirectory dir, Instant now) {
    ItemState item = d.item();
    Map<String, Object> doc = Json.envelope("item");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", item.id());
    m.put("title", item.definition().title());
    m.put("status", item.status().key());
    m.put("phase", item.progress().phase());
    m.put("attempts", d.attempts());
    m.put("pipeline", item.definition().pipeline());
    m.put("priority", item.definition().priority().key());
    m.put("depends_on", item.definition().dependsOn());
    m.put("waiting_on", d.waitingOn());
    m.put("tags", item.definition().tags());
    m.put("in_backlog", StatusCommand.inBacklogFile(item));
    m.put("origin", item.origin());
    m.put("description", item.definition().description());
    m.put("blocked_reason", item.progress().blockedReason());
    m.put("unblock_notes", item.progress().unblockNotes());
    m.put("last_failure", item.progress().lastFailure());
    m.put("workspace", StatusCommand.workspaceJson(d.workspace()));
    m.put("branch_summary", branchJson(d.branchSummary()));
    m.put("usage", UsageView.json(d.usage()));
    // Several machines (docs/workspaces.md): who holds the item, where its worktree and its work are.
    m.put("held_by", d.heldBy());
    m.put("worktree_checkout", d.place().checkout());
    m.put("remote_ref", d.place().remoteRef());
    doc.put("item", m);
    List<Map<String, Object>> phases = new ArrayList<>();
    for (StatusQuery.PhaseView p : d.phases()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("name", p.name());
      row.put("attempts", p.attempts());
      row.put("last_result", p.lastResult());
      row.put("completed", p.completed());
      row.put("summary", p.summary());
      phases.add(row);
    }
    doc.put("phases", phases);
    doc.put("jobs", d.jobs().stream().map(job -> JobsCommand.toJson(job, d.details(), now, dir)).toList());
    doc.put("follow_ups", d.followUps().stream().map(f -> {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", f.id());
      row.put("status", f.status().key());
      row.put("origin", f.origin());
      return row;
    }).toList());
    doc.put("context_summary", d.contextSummary());
    doc.put("landings", d.landings().stream().map(l -> {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("at", Json.timestamp(l.at()));
      row.put("result", l.result());
      row.put("round", l.round());
      row.put("base_commit", l.baseCommit());
      row.put("tested_commit", l.testedCommit());
      row.put("gates", l.gates());
      row.put("gates_ms", l.gatesMillis());
      row.put("message", l.message());
      return row;
    }).toList());
    return doc;
  }

  /** The item's branch against its base (null: none to show), with at most the bounded lists. */
  private static Map<String, Object> branchJson(BranchSummary b) {
    if (b == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("base_branch", b.baseBranch());
    m.put("branch", b.branch());
    m.put("files_changed", b.filesChanged());
    m.put("lines_added", b.added());
    m.put("lines_removed", b.removed());
    m.put("files", b.files().stream().map(f -> {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("path", f.path());
      row.put("added", f.added());
      row.put("removed", f.removed());
      return row;
    }).toList());
    m.put("files_not_listed", b.filesNotListed());
    m.put("commit_count", b.commitCount());
    m.put("commits", b.commits().stream().map(c -> {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", c.id());
      row.put("subject", c.subject());
      return row;
    }).toList());
    m.put("commits_not_listed", b.commitsNotListed());
    m.put("base_ahead", b.baseAhead());
    return m;
  }

  private static void printBranch(PrintWriter out, BranchSummary b) {
    if (b == null) {
      return;
    }
    field(out, "changes", b.filesChanged() + (b.filesChanged() == 1 ? " file" : " files") + ", +" + b.added()
        + " -" + b.removed() + " lines against " + b.baseBranch() + ", in " + b.commitCount()
        + (b.commitCount() == 1 ? " commit" : " commits"));
    for (BranchSummary.FileChange f : b.files()) {
      out.println(TerminalText.safe("    " + (f.added() == null ? "binary" : "+" + f.added() + " -" + f.removed())
          + "  " + f.path()));
    }
    if (b.filesNotListed() > 0) {
      out.println("    ... and " + b.filesNotListed() + " more files");
    }
    for (BranchSummary.Commit c : b.commits()) {
      out.println(TerminalText.safe("    " + c.id() + " " + TerminalText.oneLine(c.subject())));
    }
    if (b.commitsNotListed() > 0) {
      out.println("    ... and " + b.commitsNotListed() + " more commits");
    }
  }

  private static void printText(PrintWriter out, StatusQuery.ItemDetail d, StateDirectory dir, Instant now) {
    ItemState item = d.item();
    var def = item.definition();
    out.println(TerminalText.safe(item.id() + ": " + TerminalText.oneLine(def.title())));
    field(out, "status", item.status().key() + (item.progress().phase() == null ? ""
        : " at phase " + item.progress().phase() + ", attempts " + d.attempts()));
    field(out, "pipeline", def.pipeline() + ", priority " + def.priority().key()
        + (def.tags().isEmpty() ? "" : ", tags " + String.join(", ", def.tags())));
    if (!def.dependsOn().isEmpty()) {
      field(out, "depends on", String.join(", ", def.dependsOn())
          + (d.waitingOn().isEmpty() ? "" : " (waiting on " + String.join(", ", d.waitingOn()) + ")"));
    }
    if (Inbox.MCP.equals(item.origin())) {
      field(out, "added through", "orchestrate mcp (lives only in the state, not in the backlog file)");
    } else if (item.origin() != null) {
      field(out, "follow-up of", item.origin() + " (lives only in the state, not in the backlog file)");
    } else if (!item.inBacklog()) {
      field(out, "backlog", "no longer listed in the backlog file (kept in the state, not run)");
    }
    if (d.workspace() != null) {
      String remote = d.place().remoteRef() == null ? null : d.place().remoteRef().split(" ", 2)[0];
      field(out, "branch", StatusCommand.workspaceWords(d.workspace(), remote)
          + (d.place().checkout() == null || !d.workspace().onDisk() ? "" : " (in " + d.place().checkout() + ")"));
    }
    if (d.place().remoteRef() != null && d.workspace() != null
        && d.workspace().integration() != WorkspaceRecord.Integration.INTEGRATED) {
      field(out, "work", "on " + d.place().remoteRef() + (StatusCommand.committed(d.workspace())
          ? " @ " + d.workspace().headCommit().substring(0, 12) : ", no commit yet"));
    }
    if (d.heldBy() != null) {
      field(out, "held by", d.heldBy());
    }
    printBranch(out, d.branchSummary());
    BranchSummary branch = d.branchSummary();
    if (item.status() == ItemStatus.BLOCKED && branch != null && branch.baseAhead() > 0) {
      // A plain unblock starts the next attempt from the branch as recorded: a fix landed on the
      // base branch meanwhile is not there (issue 45).
      field(out, "base moved", branch.baseBranch() + " has " + branch.baseAhead()
          + (branch.baseAhead() == 1 ? " commit" : " commits") + " this branch does not (landed since it forked); "
          + "unblock " + item.id() + " --rebase --notes TEXT brings them into its next attempt");
    }
    if (d.usage().totalTokens() != null || d.usage().costUsd() != null) {
      field(out, "usage", UsageView.tokens(d.usage().totalTokens()) + " tokens"
          + (d.usage().costUsd() == null ? "" : ", " + UsageView.cost(d.usage().costUsd())) + " over its jobs");
    }
    // In full: this is the one view of the item (the table and progress lines cut them to a line).
    whole(out, "blocked", item.progress().blockedReason());
    whole(out, "unblock notes", item.progress().unblockNotes());
    whole(out, "last failure", item.progress().lastFailure());
    for (var l : d.landings()) {
      field(out, "landing",
          JobsCommand.iso(l.at()) + " " + l.result() + (l.round() == null ? "" : " (round " + l.round() + ")")
              + (l.testedCommit() == null ? "" : ", gates " + TerminalText.oneLine(l.gates()) + " on "
                  + l.testedCommit().substring(0, Math.min(12, l.testedCommit().length()))));
    }
    if (!d.phases().isEmpty()) {
      out.println();
      Table phases = new Table("PHASE", "ATTEMPTS", "RESULT", "SUMMARY");
      for (StatusQuery.PhaseView p : d.phases()) {
        phases.add(p.name(), Integer.toString(p.attempts()), p.lastResult(),
            p.summary() == null ? "-" : TerminalText.oneLine(p.summary()));
      }
      phases.print(out);
    }
    if (!d.jobs().isEmpty()) {
      out.println();
      JobsCommand.table(d.jobs(), false, d.details(), dir, now, true).print(out);
    }
    if (!d.followUps().isEmpty()) {
      out.println();
      field(out, "follow-ups", String.join(", ", d.followUps().stream()
          .map(f -> f.id() + " (" + f.status().key() + ")").toList()));
    }
    Optional.ofNullable(d.contextSummary()).ifPresent(summary -> {
      out.println();
      field(out, "context summary", TerminalText.oneLine(summary));
    });
    out.flush();
  }

  private static void field(PrintWriter out, String name, String value) {
    out.println(String.format("%-14s %s", name + ":", TerminalText.safe(value)));
  }

  /** A field whose value is shown whole: its lines under one another, aligned, each made safe. */
  private static void whole(PrintWriter out, String name, String value) {
    if (value == null || value.isBlank()) {
      return;
    }
    List<String> lines = value.strip().lines().toList();
    field(out, name, lines.get(0));
    lines.stream().skip(1).forEach(line -> out.println(" ".repeat(15) + TerminalText.safe(line)));
  }
}
