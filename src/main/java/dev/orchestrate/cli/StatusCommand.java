package dev.orchestrate.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import dev.orchestrate.app.Inbox;
import dev.orchestrate.app.StatusQuery;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.workspace.ChecksRecord;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
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
    try (StatusQuery.Listing listing = StatusQuery.listing(backend)) {
      if (json) {
        printJson(out, listing);
      } else {
        printText(out, dir, listing);
        PauseView.print(out, listing.pauses(), java.time.Instant.now(), java.time.ZoneId.systemDefault());
      }
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

  /**
   * The {@code status} document, written row by row as the items are read (issue 33): the same
   * bytes as the whole document rendered at once ({@link Json#print}), with the counts summed on the
   * way, so that no list of the items is ever held.
   */
  private static void printJson(PrintWriter out, StatusQuery.Listing listing) {
    Map<ItemStatus, Integer> counts = zeroCounts();
    int[] total = {0};
    try {
      JsonGenerator gen = new JsonFactory().createGenerator(out);
      gen.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      gen.setPrettyPrinter(new DefaultPrettyPrinter());
      gen.writeStartObject();
      for (Map.Entry<String, Object> e : Json.envelope("status").entrySet()) {
        field(gen, e.getKey(), e.getValue());
      }
      gen.writeFieldName("items");
      gen.writeStartArray();
      listing.forEach(row -> {
        total[0]++;
        counts.merge(row.item().status(), 1, Integer::sum);
        try {
          Json.write(gen, Json.stable(jsonRow(row)));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      gen.writeEndArray();
      Map<String, Object> countsJson = new LinkedHashMap<>();
      countsJson.put("total", total[0]);
      counts.forEach((status, n) -> countsJson.put(status.key(), n));
      field(gen, "counts", countsJson);
      field(gen, "agent_pauses", PauseView.json(listing.pauses(), java.time.Instant.now()));
      gen.writeEndObject();
      gen.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.println();
    out.flush();
  }

  private static void field(JsonGenerator gen, String name, Object value) throws IOException {
    gen.writeFieldName(name);
    Json.write(gen, Json.stable(value));
  }

  /** One item of the document's {@code items}, its keys in their documented order. */
  private static Map<String, Object> jsonRow(StatusQuery.ItemRow r) {
    ItemState item = r.item();
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", item.id());
    row.put("title", item.definition().title());
    row.put("status", item.status().key());
    row.put("phase", item.progress().phase());
    row.put("attempts", r.attempts());
    row.put("blocked_reason", item.progress().blockedReason());
    row.put("waiting_on", r.waitingOn());
    row.put("pipeline", item.definition().pipeline());
    row.put("priority", item.definition().priority().key());
    row.put("depends_on", item.definition().dependsOn());
    row.put("tags", item.definition().tags());
    row.put("in_backlog", inBacklogFile(item));
    row.put("origin", item.origin());
    row.put("workspace", workspaceJson(r.workspace()));
    // The item's usage over all its jobs (kept when job history is pruned); null: not reported.
    row.put("usage", UsageView.json(r.usage()));
    return row;
  }

  /** The round and the next poll of an item awaiting its checks, for the NOTE column. */
  static String checksNote(ChecksRecord checks) {
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
  static boolean committed(WorkspaceRecord ws) {
    return !ws.headCommit().equals(ws.baseCommit());
  }

  /** What a branch without a phase commit came to, in words, after its name. */
  private static String noCommit(WorkspaceRecord ws) {
    if (ws.integration() == null) {
      return ", no commit yet";
    }
    return switch (ws.integration()) {
      case INTEGRATED, SKIPPED, PUSHED, MERGED -> ": no changes, nothing to integrate";
      case DEFERRED, CONFLICT, CHECKS_RED, TIMED_OUT, CHANGES_REQUESTED, LAND_FAILED ->
        ", no commit, " + ws.integration().key();
    };
  }

  /**
   * The item's branch in words, for {@code status ID}: {@code orchestrate/A from main @
   * 1a2b3c4d5e6f, integrated into main}, with why it is not integrated when it is not.
   */
  static String workspaceWords(WorkspaceRecord ws) {
    return workspaceWords(ws, null);
  }

  /** As {@link #workspaceWords(WorkspaceRecord)}, where work lands on {@code remote} (null: this checkout). */
  static String workspaceWords(WorkspaceRecord ws, String remote) {
    StringBuilder words = new StringBuilder(ws.branch()).append(" from ").append(ws.baseBranch());
    if (!committed(ws)) {
      words.append(noCommit(ws));
    } else {
      words.append(" @ ").append(ws.headCommit(), 0, 12);
      if (ws.integration() != null) {
        words.append(", ").append(switch (ws.integration()) {
          case INTEGRATED -> "integrated into " + ws.baseBranch() + (remote == null ? "" : " on " + remote);
          case SKIPPED -> "left for a pull request (execution.merge: none)";
          case PUSHED -> "pushed" + (ws.push().sha() == null ? "" : " at " + ws.push().sha().substring(0, 12))
              + (ws.push().url() == null ? "" : ": " + ws.push().url());
          case DEFERRED -> "not integrated yet";
          case CONFLICT -> "conflict";
          case CHECKS_RED -> "pushed, its checks red";
          case TIMED_OUT -> "pushed, its wait timed out";
          case CHANGES_REQUESTED -> "pushed, changes requested";
          case MERGED -> "merged" + (ws.push().url() == null ? "" : ": " + ws.push().url());
          case LAND_FAILED -> "pushed, not merged";
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

  private static final String[] HEADER = {"ID", "STATUS", "PHASE", "ATTEMPTS", "TITLE", "NOTE"};

  /**
   * The table, its summary and the worktrees not integrated yet, row by row as read: a first read
   * of the items measures the columns (as {@link Table} would, which holds every row), a second
   * prints them. A run that changes an item between the two may leave a row out of line, never out.
   */
  private static void printText(PrintWriter out, StateDirectory dir, StatusQuery.Listing listing) {
    int[] width = new int[HEADER.length - 1];
    long[] rows = {0};
    measure(width, HEADER);
    listing.forEach(row -> {
      rows[0]++;
      measure(width, cells(row));
    });
    if (rows[0] == 0) {
      out.println("No items yet in " + dir.root() + " (start with: orchestrate run [BACKLOG])");
      out.flush();
      return;
    }
    printRow(out, width, HEADER);
    Map<ItemStatus, Integer> counts = zeroCounts();
    int[] total = {0};
    listing.forEach(row -> {
      total[0]++;
      counts.merge(row.item().status(), 1, Integer::sum);
      printRow(out, width, cells(row));
    });
    StringBuilder summary = new StringBuilder().append(total[0]).append(total[0] == 1 ? " item" : " items");
    String sep = ": ";
    for (Map.Entry<ItemStatus, Integer> e : counts.entrySet()) {
      if (e.getValue() > 0) {
        summary.append(sep).append(e.getValue()).append(' ').append(e.getKey().key());
        sep = ", ";
      }
    }
    out.println(summary);
    listing.forEachDeferred(ws -> out.println(ws.itemId() + " is not integrated yet: "
        + TerminalText.oneLine(ws.note())));
    out.flush();
  }

  /** The row's cells, each through {@link TerminalText#safe} (stored text is untrusted), as {@link Table} shows them. */
  private static String[] cells(StatusQuery.ItemRow row) {
    ItemState item = row.item();
    String note = "";
    if (item.status() == ItemStatus.BLOCKED) {
      note = TerminalText.oneLine(item.progress().blockedReason());
    } else if (item.status() == ItemStatus.AWAITING_CHECKS) {
      WorkspaceRecord ws = row.workspace();
      note = "awaiting checks" + (ws == null ? "" : checksNote(ws.checks()));
    } else if (item.status() == ItemStatus.LANDING) {
      WorkspaceRecord ws = row.workspace();
      note = "landing: in the merge queue" + (ws == null || ws.note() == null ? ""
          : " (" + TerminalText.oneLine(ws.note()) + ")");
    } else if (item.status() == ItemStatus.AWAITING_REVIEW) {
      note = "awaiting review: approve " + item.id() + ", or reject " + item.id() + " --notes TEXT";
    } else if (!item.status().isTerminal()) {
      List<String> unmet = row.waitingOn();
      note = unmet.isEmpty() ? "" : "waiting on " + String.join(", ", unmet);
    }
    if (item.origin() != null) {
      note = (Inbox.MCP.equals(item.origin()) ? "added through orchestrate mcp" : "follow-up of " + item.origin())
          + (note.isEmpty() ? "" : "; " + note);
    }
    if (!item.inBacklog()) {
      note = ("[not in the backlog file] " + note).strip();
    }
    note = (note + workspaceNote(row.workspace())).strip();
    String[] cells = {item.id(), item.status().key(), item.progress().phase() == null ? "-" : item.progress().phase(),
        Integer.toString(row.attempts()), cut(TerminalText.oneLine(item.definition().title()), TITLE_COLUMN_MAX),
        note};
    for (int i = 0; i < cells.length; i++) {
      cells[i] = TerminalText.safe(cells[i]);
    }
    return cells;
  }

  /** Widens the aligned columns (all but the last, which is never padded) to the row's cells. */
  private static void measure(int[] width, String[] cells) {
    for (int i = 0; i < width.length; i++) {
      width[i] = Math.max(width[i], cells[i].length());
    }
  }

  /** One line of the table, as {@link Table#print} writes it. */
  private static void printRow(PrintWriter out, int[] width, String[] cells) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.length; i++) {
      line.append(cells[i]);
      if (i < width.length) {
        // A cell longer than the first read measured (an item a run changed in between) pushes its line out.
        line.append(" ".repeat(Math.max(0, width[i] - cells[i].length()) + 2));
      }
    }
    out.println(line.toString().stripTrailing());
  }

  private static Map<ItemStatus, Integer> zeroCounts() {
    Map<ItemStatus, Integer> counts = new EnumMap<>(ItemStatus.class);
    for (ItemStatus s : ItemStatus.values()) {
      counts.put(s, 0);
    }
    return counts;
  }

  /** {@code text} cut to {@code max} characters, the last one an ellipsis when cut. */
  static String cut(String text, int max) {
    return text.length() > max ? text.substring(0, max - 1) + "…" : text;
  }
}
