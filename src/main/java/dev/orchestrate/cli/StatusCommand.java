package dev.orchestrate.cli;

import dev.orchestrate.app.StatusQuery;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.jobs.Usage;
import dev.orchestrate.scheduler.Dependencies;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code orchestrate status [ID]}: every item with its status, phase, attempts and why it is
 * stuck; or one item in full.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {"Show every item: status, phase, attempts of the current (or last) phase, title, blocked "
        + "reason, what it waits on. With ID: that item in full (phases with their summaries, attempts, "
        + "jobs, follow-ups, blocked reason, unblock notes). Reads only the state directory (no backlog "
        + "or config needed); safe while a run is active."})
final class StatusCommand implements Callable<Integer>, FastPath.Command {
  /** Titles longer than this are cut in the table (status ID and --json have them whole). */
  static final int TITLE_COLUMN_MAX = 40;

  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", arity = "0..1", paramLabel = "ID", description = "Show this item in full")
  String id;

  @Option(names = "--json", description = "Print one JSON document (kind \"status\", or \"item\" with ID) on stdout")
  boolean json;

  @Override
  public Integer call() {
    return run(spec.commandLine().getOut(), spec.commandLine().getErr());
  }

  /** The command with its options set, writing to {@code out} (picocli's, or {@link FastPath}'s). */
  @Override
  public int run(PrintWriter out, PrintWriter err) {
    StateBackend backend = root.command().backend();
    StateDirectory dir = backend.directory();
    if (id != null) {
      return ItemView.show(out, dir, StatusQuery.item(backend, id), id, json);
    }
    StatusQuery.Overview overview = StatusQuery.overview(backend);
    List<ItemState> items = overview.items();
    if (json) {
      Map<String, Object> doc = toJson(items, overview.latestJobs(), overview.workspaces());
      // Each item's usage over all its jobs (kept when job history is pruned); null: not reported.
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("items");
      for (Map<String, Object> row : rows) {
        row.put("usage", UsageView.json(overview.usage().getOrDefault((String) row.get("id"), Usage.UNKNOWN)));
      }
      doc.put("agent_pauses", PauseView.json(overview.pauses(), java.time.Instant.now()));
      Json.print(out, doc);
    } else {
      printText(out, dir, items, overview.latestJobs(), overview.workspaces());
      PauseView.print(out, overview.pauses(), java.time.Instant.now(), java.time.ZoneId.systemDefault());
    }
    return ExitCode.OK;
  }

  /**
   * Listed in the backlog file: a follow-up lives only in the state (the runner keeps it among
   * the items to work on, which is what the stored flag means).
   */
  static boolean inBacklogFile(ItemState item) {
    return item.inBacklog() && item.origin() == null;
  }

  private static Map<String, Object> toJson(List<ItemState> items, Map<String, JobRecord> latestJobs,
      Map<String, WorkspaceRecord> workspaces) {
    Map<String, ItemState> byId = StatusQuery.byId(items);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ItemState item : items) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", item.id());
      row.put("title", item.definition().title());
      row.put("status", item.status().key());
      row.put("phase", item.progress().phase());
      row.put("attempts", StatusQuery.attempts(item, latestJobs));
      row.put("blocked_reason", item.progress().blockedReason());
      row.put("waiting_on", item.status().isTerminal() ? List.of() : Dependencies.unmet(item, byId));
      row.put("pipeline", item.definition().pipeline());
      row.put("priority", item.definition().priority().key());
      row.put("depends_on", item.definition().dependsOn());
      row.put("tags", item.definition().tags());
      row.put("in_backlog", inBacklogFile(item));
      row.put("origin", item.origin());
      row.put("workspace", workspaceJson(workspaces.get(item.id())));
      rows.add(row);
    }
    Map<String, Object> doc = Json.envelope("status");
    doc.put("items", rows);
    Map<String, Object> counts = new LinkedHashMap<>();
    counts.put("total", items.size());
    counts(items).forEach((status, n) -> counts.put(status.key(), n));
    doc.put("counts", counts);
    return doc;
  }

  /** The round and the next poll of an item awaiting its checks, for the NOTE column. */
  static String checksNote(dev.orchestrate.workspace.ChecksRecord checks) {
    return " (round " + (checks.rounds() + 1) + (checks.nextAt() == null ? "" : ", next poll "
        + checks.nextAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)) + ")";
  }

  /** The item's worktree (execution.workspace: worktree), or null. */
  static Map<String, Object> workspaceJson(WorkspaceRecord ws) {
    if (ws == null) {
      return null;
    }
    Map<String, Object> w = new LinkedHashMap<>();
    w.put("branch", ws.branch());
    w.put("base_branch", ws.baseBranch());
    w.put("path", ws.onDisk() ? ws.path().toString() : null);
    w.put("commit", ws.headCommit().equals(ws.baseCommit()) ? null : ws.headCommit());
    w.put("integration", ws.integration() == null ? null : ws.integration().key());
    w.put("note", ws.note());
    w.put("pushed_commit", ws.push().sha());
    w.put("pull_request", ws.push().url());
    Map<String, Object> checks = new LinkedHashMap<>();
    checks.put("since", ws.checks().since() == null ? null : ws.checks().since().toString());
    checks.put("next_poll", ws.checks().nextAt() == null ? null : ws.checks().nextAt().toString());
    checks.put("rounds", ws.checks().rounds());
    w.put("checks", checks);
    return w;
  }

  /**
   * " [orchestrate/ID @ 1a2b3c4d5e6f, integrated]" for an item with a worktree; for one whose agents
   * changed nothing, what that means: " [orchestrate/ID, no commit yet]" at work, " [orchestrate/ID:
   * no changes, nothing to integrate]" once done.
   */
  private static String workspaceNote(WorkspaceRecord ws) {
    if (ws == null) {
      return "";
    }
    if (!committed(ws)) {
      return " [" + ws.branch() + noCommit(ws) + "]";
    }
    String integration = ws.integration() == null ? "" : ", " + ws.integration().key();
    String url = ws.push().url() == null ? "" : " " + ws.push().url();
    return " [" + ws.branch() + " @ " + ws.headCommit().substring(0, 12) + integration + url + "]";
  }

  /** Whether the item's branch has a phase commit of its own. */
  private static boolean committed(WorkspaceRecord ws) {
    return !ws.headCommit().equals(ws.baseCommit());
  }

  /** What a branch without a phase commit came to, in words, after its name. */
  private static String noCommit(WorkspaceRecord ws) {
    if (ws.integration() == null) {
      return ", no commit yet";
    }
    return switch (ws.integration()) {
      case INTEGRATED, SKIPPED, PUSHED -> ": no changes, nothing to integrate";
      case DEFERRED, CONFLICT -> ", no commit, " + ws.integration().key();
    };
  }

  /**
   * The item's branch in words, for {@code status ID}: {@code orchestrate/A from main @
   * 1a2b3c4d5e6f, integrated into main}, with why it is not integrated when it is not.
   */
  static String workspaceWords(WorkspaceRecord ws) {
    StringBuilder words = new StringBuilder(ws.branch()).append(" from ").append(ws.baseBranch());
    if (!committed(ws)) {
      words.append(noCommit(ws));
    } else {
      words.append(" @ ").append(ws.headCommit(), 0, 12);
      if (ws.integration() != null) {
        words.append(", ").append(switch (ws.integration()) {
          case INTEGRATED -> "integrated into " + ws.baseBranch();
          case SKIPPED -> "left for a pull request (execution.merge: none)";
          case PUSHED -> "pushed" + (ws.push().sha() == null ? "" : " at " + ws.push().sha().substring(0, 12))
              + (ws.push().url() == null ? "" : ": " + ws.push().url());
          case DEFERRED -> "not integrated yet";
          case CONFLICT -> "conflict";
        });
      }
    }
    if (ws.note() != null && !ws.note().isBlank()) {
      words.append(": ").append(ws.note().strip());
    }
    if (ws.checks().waiting()) {
      words.append("; awaiting checks").append(checksNote(ws.checks()));
    }
    words.append(ws.onDisk() ? "; worktree " + ws.path() : "; worktree removed");
    return words.toString();
  }

  private static void printText(PrintWriter out, StateDirectory dir, List<ItemState> items,
      Map<String, JobRecord> latestJobs, Map<String, WorkspaceRecord> workspaces) {
    if (items.isEmpty()) {
      out.println("No items yet in " + dir.root() + " (start with: orchestrate run [BACKLOG])");
      out.flush();
      return;
    }
    Map<String, ItemState> byId = StatusQuery.byId(items);
    Table table = new Table("ID", "STATUS", "PHASE", "ATTEMPTS", "TITLE", "NOTE");
    for (ItemState item : items) {
      String note = "";
      if (item.status() == ItemStatus.BLOCKED) {
        note = TerminalText.oneLine(item.progress().blockedReason());
      } else if (item.status() == ItemStatus.AWAITING_CHECKS) {
        WorkspaceRecord ws = workspaces.get(item.id());
        note = "awaiting checks" + (ws == null ? "" : checksNote(ws.checks()));
      } else if (item.status() == ItemStatus.AWAITING_REVIEW) {
        note = "awaiting review: approve " + item.id() + ", or reject " + item.id() + " --notes TEXT";
      } else if (!item.status().isTerminal()) {
        List<String> unmet = Dependencies.unmet(item, byId);
        note = unmet.isEmpty() ? "" : "waiting on " + String.join(", ", unmet);
      }
      if (item.origin() != null) {
        note = "follow-up of " + item.origin() + (note.isEmpty() ? "" : "; " + note);
      }
      if (!item.inBacklog()) {
        note = ("[not in the backlog file] " + note).strip();
      }
      note = (note + workspaceNote(workspaces.get(item.id()))).strip();
      table.add(item.id(), item.status().key(), item.progress().phase() == null ? "-" : item.progress().phase(),
          Integer.toString(StatusQuery.attempts(item, latestJobs)),
          cut(TerminalText.oneLine(item.definition().title()), TITLE_COLUMN_MAX),
          note);
    }
    table.print(out);
    StringBuilder summary = new StringBuilder().append(items.size()).append(items.size() == 1 ? " item" : " items");
    String sep = ": ";
    for (Map.Entry<ItemStatus, Integer> e : counts(items).entrySet()) {
      if (e.getValue() > 0) {
        summary.append(sep).append(e.getValue()).append(' ').append(e.getKey().key());
        sep = ", ";
      }
    }
    out.println(summary);
    for (WorkspaceRecord ws : workspaces.values()) {
      if (ws.integration() == WorkspaceRecord.Integration.DEFERRED && ws.note() != null) {
        out.println(ws.itemId() + " is not integrated yet: " + TerminalText.oneLine(ws.note()));
      }
    }
    out.flush();
  }

  private static Map<ItemStatus, Integer> counts(List<ItemState> items) {
    Map<ItemStatus, Integer> counts = new EnumMap<>(ItemStatus.class);
    for (ItemStatus s : ItemStatus.values()) {
      counts.put(s, 0);
    }
    for (ItemState item : items) {
      counts.merge(item.status(), 1, Integer::sum);
    }
    return counts;
  }

  /** {@code text} cut to {@code max} characters, the last one an ellipsis when cut. */
  static String cut(String text, int max) {
    return text.length() > max ? text.substring(0, max - 1) + "…" : text;
  }
}
