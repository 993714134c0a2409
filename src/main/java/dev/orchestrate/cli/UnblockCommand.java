package dev.orchestrate.cli;

import dev.orchestrate.app.UnblockRefusedException;
import dev.orchestrate.app.Unblocking;
import dev.orchestrate.scheduler.ItemState;
import dev.orchestrate.scheduler.Transitions;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code orchestrate unblock ID... --notes TEXT}: return blocked items to where they were blocked.
 * All or nothing: one unknown or not-blocked id refuses them all.
 */
@Command(name = "unblock", mixinStandardHelpOptions = true,
    description = {"Return blocked items to the status and phase each was blocked in, with 0 attempts.",
        "The notes appear in each item's next prompt as '## Unblock Context' and are cleared once that "
            + "phase succeeds. Several ids are all or nothing: one unknown or not-blocked id refuses them "
            + "all and changes nothing.",
        "Needs only the state directory. Refused (exit 3) while a run works on the same state: the run "
            + "holds the items in memory and would overwrite the change; run it between runs."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    unblocked", "  2    an unknown id, an item not blocked, or empty notes (nothing changed)",
        "  3    a run holds the state directory"})
final class UnblockCommand implements Callable<Integer> {
  @ParentCommand
  OrchestrateCommand root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0..*", arity = "1..*", paramLabel = "ID", description = "The blocked items' ids")
  List<String> ids;

  @Option(names = "--notes", paramLabel = "TEXT", required = true,
      description = "What the agents need to know to get on, the same for every id (capped at "
          + Transitions.UNBLOCK_NOTES_MAX_CHARS + " characters)")
  String notes;

  @Option(names = "--json", description = "Print one JSON document (kind \"unblock\") on stdout")
  boolean json;

  @Override
  public Integer call() {
    if (notes.isBlank()) {
      throw CliException.usage("--notes must not be empty: tell the agent what changed");
    }
    List<ItemState> unblocked;
    try {
      unblocked = new Unblocking(root.backend(), Clock.systemUTC()).unblock(ids, notes);
    } catch (UnblockRefusedException e) {
      throw CliException.usage(e.getMessage());
    }
    print(spec.commandLine().getOut(), unblocked);
    return ExitCode.OK;
  }

  private void print(PrintWriter out, List<ItemState> items) {
    if (json) {
      Map<String, Object> doc = Json.envelope("unblock");
      if (items.size() == 1) {
        // The one-id form of schema 1, kept: scripts read these three keys.
        doc.put("id", items.get(0).id());
        doc.put("status", items.get(0).status().key());
        doc.put("phase", items.get(0).progress().phase());
      }
      List<Map<String, Object>> rows = new ArrayList<>();
      for (ItemState item : items) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", item.id());
        row.put("status", item.status().key());
        row.put("phase", item.progress().phase());
        rows.add(row);
      }
      doc.put("items", rows);
      Json.print(out, doc);
      return;
    }
    for (ItemState item : items) {
      String phase = item.progress().phase();
      out.println(TerminalText.safe("Unblocked " + item.id() + ": " + item.status().key()
          + (phase == null ? "" : " at phase " + phase)
          + (items.size() == 1 ? "; the notes go into its next prompt. Continue with: orchestrate run" : "")));
    }
    if (items.size() > 1) {
      out.println("The notes go into each one's next prompt. Continue with: orchestrate run");
    }
    out.flush();
  }
}
