package dev.orchestrate.cli;

import dev.orchestrate.scheduler.Dependencies;
import dev.orchestrate.scheduler.ItemState;
import dev.orchestrate.scheduler.ItemStatus;
import dev.orchestrate.store.SqliteStateRepository;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.store.StateDirectory;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code orchestrate status}: every item with its status, phase, attempts and why it is stuck. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = {"Show every item: status, phase, attempts, blocked reason, what it waits on. Reads only "
            + "the state directory (no backlog or config needed); safe while a run is active."})
final class StatusCommand implements Callable<Integer> {
  @ParentCommand
  OrchestrateCommand root;

  @Spec
  CommandSpec spec;

  @Option(names = "--json", description = "Print one JSON document (kind \"status\") on stdout")
  boolean json;

  @Override
  public Integer call() {
    StateDirectory dir = root.stateDirectory();
    List<ItemState> items = List.of();
    Map<String, WorkspaceRecord> workspaces = Map.of();
    if (dir.hasDatabase()) {
      try (SqliteStateRepository store = SqliteStateRepository.open(dir.database())) {
        items = store.items();
        workspaces = store.workspaceStore().all();
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      Json.print(out, toJson(items, workspaces));
    } else {
      printText(out, dir, items, workspaces);
    }
    return ExitCode.OK;
  }

  private static Map<String, Object> toJson(List<ItemState> items, Map<String, WorkspaceRecord> workspaces) {
    Map<String, ItemState> byId = byId(items);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ItemState item : items) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("id", item.id());
      row.put("title", item.definition().title());
      row.put("status", item.status().key());
      row.put("phase", item.progress().phase());
      row.put("attempts", item.progress().attempts());
      row.put("blocked_reason", item.progress().blockedReason());
      row.put("waiting_on", item.status().isTerminal() ? List.of() : Dependencies.unmet(item, byId));
      row.put("pipeline", item.definition().pipeline());
      row.put("priority", item.definition().priority().key());
      row.put("depends_on", item.definition().dependsOn());
      row.put("tags", item.definition().tags());
      row.put("in_backlog", item.inBacklog());
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

  /** The item's worktree (execution.workspace: worktree), or null. */
  private static Map<String, Object> workspaceJson(WorkspaceRecord ws) {
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
    return w;
  }

  /** " [orchestrate/ID @ 1a2b3c4d5e6f, integrated]" for an item with a worktree. */
  private static String workspaceNote(WorkspaceRecord ws) {
    if (ws == null) {
      return "";
    }
    String commit = ws.headCommit().equals(ws.baseCommit()) ? "no commit yet" : ws.headCommit().substring(0, 12);
    String integration = ws.integration() == null ? "" : ", " + ws.integration().key();
    return " [" + ws.branch() + " @ " + commit + integration + "]";
  }

  private static void printText(PrintWriter out, StateDirectory dir, List<ItemState> items,
      Map<String, WorkspaceRecord> workspaces) {
    if (items.isEmpty()) {
      out.println("No items yet in " + dir.root() + " (start with: orchestrate run [BACKLOG])");
      out.flush();
      return;
    }
    Map<String, ItemState> byId = byId(items);
    Table table = new Table("ID", "STATUS", "PHASE", "ATTEMPTS", "NOTE");
    for (ItemState item : items) {
      String note = "";
      if (item.status() == ItemStatus.BLOCKED) {
        note = oneLine(item.progress().blockedReason());
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
          Integer.toString(item.progress().attempts()), note);
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
        out.println(ws.itemId() + " is not integrated yet: " + oneLine(ws.note()));
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

  private static Map<String, ItemState> byId(List<ItemState> items) {
    Map<String, ItemState> byId = new LinkedHashMap<>();
    items.forEach(i -> byId.put(i.id(), i));
    return byId;
  }

  /** A multi-line reason folded into one line of at most 120 characters, for tables and progress. */
  static String oneLine(String text) {
    if (text == null) {
      return "";
    }
    String line = text.strip().replaceAll("\\s*\\R\\s*", " | ");
    return line.length() > 120 ? line.substring(0, 119) + "…" : line;
  }
}
