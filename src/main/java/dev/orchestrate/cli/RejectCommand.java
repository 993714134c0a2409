package dev.orchestrate.cli;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.Transitions;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
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
 * {@code orchestrate reject ID... --notes TEXT [--phase NAME]}: items awaiting review go back to a
 * phase with the reviewer's notes. All or nothing, as {@code approve}.
 */
@Command(name = "reject", mixinStandardHelpOptions = true,
    description = {"Send items awaiting review back to a phase of their pipeline (--phase; by default its last "
        + "phase), with 0 attempts. The notes appear in each item's next prompt as '## Unblock Context', as "
        + "unblock's do, and are cleared once that phase succeeds; the item then awaits review again.",
        "Several ids are all or nothing: one unknown id, item not awaiting review or unknown phase refuses them "
            + "all and changes nothing.",
        "Needs the project's config and state. While a run works on the state (a local state's run lock, or a "
            + "live runner of a shared PostgreSQL state) the ids are checked, then the rejections are queued for the "
            + "run, which applies them within a second or so and runs the phase again; reject waits up to 5 seconds "
            + "and prints 'Rejected ID: ...' for each it applied, or 'Queued ID: the running run applies it' (also "
            + "when a run has just ended: the next run applies it at its start)."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    rejected, or queued for the running run (the output says which)",
        "  2    an unknown id, an item not awaiting review (also one another approve or",
        "       reject took at the same instant: the error names it), an unknown phase or",
        "       empty notes (nothing changed)",
        "  3    a run holds a local state of an older schema (nothing changed)"})
final class RejectCommand implements Callable<Integer> {
  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0..*", arity = "1..*", paramLabel = "ID", description = "The ids of items awaiting review")
  List<String> ids;

  @Option(names = "--notes", paramLabel = "TEXT", required = true,
      description = "What the agent must change, the same for every id (capped at "
          + Transitions.UNBLOCK_NOTES_MAX_CHARS + " characters)")
  String notes;

  @Option(names = "--phase", paramLabel = "NAME",
      description = "The phase the items go back to (default: their pipeline's last phase)")
  String phase;

  @Mixin
  JsonOutput output = new JsonOutput();

  @Override
  public Integer call() {
    if (notes.isBlank()) {
      throw CliException.usage("--notes must not be empty: tell the agent what to change");
    }
    // A refusal (ReviewRefusedException) is a usage error: ErrorHandler maps it to exit 2.
    List<Reviewing.Rejected> rejected = new Reviewing(root.command().backend(), Clock.systemUTC()).reject(ids, notes,
        phase,
        ReviewProject.of(root));
    print(spec.commandLine().getOut(), rejected);
    return ExitCode.OK;
  }

  private void print(PrintWriter out, List<Reviewing.Rejected> rejected) {
    if (output.json) {
      Map<String, Object> doc = Json.envelope("reject");
      List<Map<String, Object>> rows = new ArrayList<>();
      for (Reviewing.Rejected r : rejected) {
        ItemState item = r.item();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", item.id());
        row.put("status", item.status().key());
        row.put("phase", item.progress().phase());
        row.put("outcome", r.outcome());
        rows.add(row);
      }
      doc.put("items", rows);
      Json.print(out, doc);
      return;
    }
    boolean queued = false;
    for (Reviewing.Rejected r : rejected) {
      ItemState item = r.item();
      switch (r.outcome()) {
        case "queued" -> {
          queued = true;
          out.println(TerminalText.safe("Queued " + item.id() + ": the running run applies it"));
        }
        case "dropped" -> out.println(TerminalText.safe("Dropped " + item.id() + ": it stopped awaiting review"
            + " before the run applied it (now " + item.status().key() + ")"));
        default -> out.println(TerminalText.safe("Rejected " + item.id() + ": " + item.status().key() + " at phase "
            + item.progress().phase()));
      }
    }
    out.println("The notes go into " + (rejected.size() == 1 ? "its" : "each one's") + " next prompt."
        + (queued ? "" : " Continue with: orchestrate run"));
    out.flush();
  }
}
