package dev.orchestrate.cli;

import dev.orchestrate.app.Reviewing;
import dev.orchestrate.cli.live.TerminalText;
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
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code orchestrate approve ID...}: items awaiting review are done, and with worktrees integrated.
 * All or nothing: one unknown id or item not awaiting review refuses them all.
 */
@Command(name = "approve", mixinStandardHelpOptions = true,
    description = {"Approve items awaiting review (a pipeline with review: required): each is done, and with "
        + "execution.workspace: worktree its branch is integrated into the base branch at once, as a run does at "
        + "done (a conflict blocks it; unblock it once resolved).",
        "Several ids are all or nothing: one unknown id or item not awaiting review refuses them all and changes "
            + "nothing.",
        "Needs the project's config and state. While a run works on the state (a local state's run lock, or a "
            + "live runner of a shared PostgreSQL state) the ids are checked, then the approvals are queued for the "
            + "run, which applies them within a second or so and integrates the items itself; approve waits up to "
            + "5 seconds and prints what became of each ('Approved ID: done (integrated: ...)'), or 'Queued ID: "
            + "the running run applies it' (also when a run has just ended: the next run applies it at its start).",
        "With no run, each item is done at once; on a shared state its integration is then pending, for the next "
            + "run to start."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    approved, or queued for the running run (the output says which, and what",
        "       became of each one's integration)",
        "  2    an unknown id or an item not awaiting review, also one another approve or",
        "       reject took at the same instant (the error names it; nothing changed)",
        "  3    a run holds a local state of an older schema (nothing changed)"})
final class ApproveCommand implements Callable<Integer> {
  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0..*", arity = "1..*", paramLabel = "ID", description = "The ids of items awaiting review")
  List<String> ids;

  @Mixin
  JsonOutput output = new JsonOutput();

  @Override
  public Integer call() {
    // A refusal (ReviewRefusedException) is a usage error: ErrorHandler maps it to exit 2.
    List<Reviewing.Approved> approved = new Reviewing(root.command().backend(), Clock.systemUTC())
        .approve(ids, ReviewProject.of(root));
    print(spec.commandLine().getOut(), approved);
    return ExitCode.OK;
  }

  private void print(PrintWriter out, List<Reviewing.Approved> approved) {
    if (output.json) {
      Map<String, Object> doc = Json.envelope("approve");
      List<Map<String, Object>> rows = new ArrayList<>();
      for (Reviewing.Approved a : approved) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", a.item().id());
        row.put("status", a.item().status().key());
        row.put("integration", a.integration());
        row.put("message", a.message());
        rows.add(row);
      }
      doc.put("items", rows);
      Json.print(out, doc);
      return;
    }
    for (Reviewing.Approved a : approved) {
      if (a.integration().equals("queued") || a.integration().equals("dropped")) {
        out.println(TerminalText.safe(a.integration().equals("queued") ? "Queued " + a.item().id() + ": "
            + a.message()
            : "Dropped " + a.item().id() + ": " + a.message() + " (now " + a.item().status().key()
                + ")"));
        continue;
      }
      out.println(TerminalText.safe("Approved " + a.item().id() + ": " + a.item().status().key()
          + (a.message() == null ? "" : " (" + a.integration() + ": " + a.message() + ")")));
    }
    out.flush();
  }
}
