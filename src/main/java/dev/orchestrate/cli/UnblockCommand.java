package dev.orchestrate.cli;

import dev.orchestrate.scheduler.InvalidTransitionException;
import dev.orchestrate.scheduler.ItemState;
import dev.orchestrate.scheduler.ItemStatus;
import dev.orchestrate.scheduler.Step;
import dev.orchestrate.scheduler.Transitions;
import dev.orchestrate.store.RunLock;
import dev.orchestrate.store.SqliteStateRepository;
import dev.orchestrate.store.StateDirectory;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code orchestrate unblock ID --notes TEXT}: return a blocked item to where it was blocked. */
@Command(name = "unblock", mixinStandardHelpOptions = true,
    description = {"Return a blocked item to the status and phase it was blocked in, with 0 attempts.",
        "The notes appear in the item's next prompt as '## Unblock Context' and are cleared once that "
            + "phase succeeds.",
        "Needs only the state directory. Refused (exit 3) while a run works on the same state: the run "
            + "holds the items in memory and would overwrite the change; run it between runs."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    unblocked", "  2    unknown id, item not blocked, or empty notes",
        "  3    a run holds the state directory"})
final class UnblockCommand implements Callable<Integer> {
  @ParentCommand
  OrchestrateCommand root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "ID", description = "The blocked item's id")
  String id;

  @Option(names = "--notes", paramLabel = "TEXT", required = true,
      description = "What the agent needs to know to get on (capped at "
          + Transitions.UNBLOCK_NOTES_MAX_CHARS + " characters)")
  String notes;

  @Option(names = "--json", description = "Print one JSON document (kind \"unblock\") on stdout")
  boolean json;

  @Override
  public Integer call() {
    if (notes.isBlank()) {
      throw CliException.usage("--notes must not be empty: tell the agent what changed");
    }
    StateDirectory dir = root.stateDirectory();
    if (!dir.hasDatabase()) {
      throw CliException.usage("unknown item '" + id + "': there is no state in " + dir.root() + " yet");
    }
    Clock clock = Clock.systemUTC();
    ItemState unblocked;
    try (RunLock lock = RunLock.acquire(dir, clock.instant());
        SqliteStateRepository store = SqliteStateRepository.open(dir.database())) {
      ItemState item = store.item(id).orElseThrow(() -> CliException.usage("unknown item '" + id + "'"));
      Step step;
      try {
        step = Transitions.unblock(item, notes);
      } catch (InvalidTransitionException e) {
        throw CliException.usage(e.getMessage());
      }
      if (!store.applyIf(step, ItemStatus.BLOCKED, clock.instant())) {
        throw CliException.usage("item " + id + " stopped being blocked while unblocking it; check 'orchestrate status'");
      }
      unblocked = step.next();
    }
    print(spec.commandLine().getOut(), unblocked);
    return ExitCode.OK;
  }

  private void print(PrintWriter out, ItemState item) {
    String phase = item.progress().phase();
    if (json) {
      Map<String, Object> doc = Json.envelope("unblock");
      doc.put("id", item.id());
      doc.put("status", item.status().key());
      doc.put("phase", phase);
      Json.print(out, doc);
      return;
    }
    out.println(TerminalText.safe("Unblocked " + item.id() + ": " + item.status().key()
        + (phase == null ? "" : " at phase " + phase) + "; the notes go into its next prompt. Continue with: orchestrate run"));
    out.flush();
  }
}
