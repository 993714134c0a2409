package dev.orchestrate.cli;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.scheduler.InvalidTransitionException;
import dev.orchestrate.scheduler.ItemState;
import dev.orchestrate.scheduler.ItemStatus;
import dev.orchestrate.scheduler.Step;
import dev.orchestrate.scheduler.Transitions;
import dev.orchestrate.state.sqlite.RunLock;
import dev.orchestrate.state.sqlite.SqliteStateReader;
import dev.orchestrate.state.sqlite.SqliteStateRepository;
import dev.orchestrate.state.StateDirectory;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
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
  @SuppressWarnings("try") // the RunLock is held, never read: closing it releases the run lease
  public Integer call() {
    if (notes.isBlank()) {
      throw CliException.usage("--notes must not be empty: tell the agent what changed");
    }
    List<String> wanted = List.copyOf(new LinkedHashSet<>(ids));
    StateDirectory dir = root.stateDirectory();
    if (!dir.hasDatabase()) {
      throw CliException.usage("unknown item " + quoted(wanted) + ": there is no state in " + dir.root() + " yet");
    }
    refuseBeforeLocking(dir, wanted);
    Clock clock = Clock.systemUTC();
    List<ItemState> unblocked = new ArrayList<>();
    try (RunLock lock = RunLock.acquire(dir, clock.instant());
        SqliteStateRepository store = SqliteStateRepository.open(dir.database())) {
      List<Step> steps = steps(store::item, wanted);
      if (!store.applyAllIf(steps, ItemStatus.BLOCKED, clock.instant())) {
        throw CliException.usage("an item stopped being blocked while unblocking; nothing was unblocked; check "
            + "'orchestrate status'");
      }
      steps.forEach(step -> unblocked.add(step.next()));
    }
    print(spec.commandLine().getOut(), unblocked);
    return ExitCode.OK;
  }

  /**
   * The refusals (unknown id, item not blocked) checked read-only, before the lock file is created
   * and the database opened for writing: a refused unblock leaves the state as it found it. They
   * are checked again under the lock, where a run may have changed an item meanwhile.
   */
  private void refuseBeforeLocking(StateDirectory dir, List<String> wanted) {
    try (SqliteStateReader reader = SqliteStateReader.open(dir.database())) {
      if (reader.schemaVersion() == 0) {
        throw CliException.usage("unknown item " + quoted(wanted) + ": the state in " + dir.root() + " has no items");
      }
      if (!reader.isCurrent()) {
        return; // an older schema is read after its upgrade, under the lock
      }
      Map<String, ItemState> items = new HashMap<>();
      reader.items().forEach(item -> items.put(item.id(), item));
      steps(id -> Optional.ofNullable(items.get(id)), wanted);
    }
  }

  /** Every id's step, or one line naming every id that cannot be unblocked. */
  private List<Step> steps(Function<String, Optional<ItemState>> lookup, List<String> wanted) {
    List<Step> steps = new ArrayList<>();
    List<String> unknown = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    for (String id : wanted) {
      Optional<ItemState> item = lookup.apply(id);
      if (item.isEmpty()) {
        unknown.add(id);
        continue;
      }
      try {
        steps.add(Transitions.unblock(item.get(), notes));
      } catch (InvalidTransitionException e) {
        refused.add(e.getMessage());
      }
    }
    List<String> problems = new ArrayList<>();
    if (!unknown.isEmpty()) {
      problems.add("unknown item " + quoted(unknown));
    }
    problems.addAll(refused);
    if (!problems.isEmpty()) {
      throw CliException.usage(String.join("; ", problems) + (wanted.size() > 1 ? " (nothing was unblocked)" : ""));
    }
    return steps;
  }

  private static String quoted(List<String> ids) {
    return ids.stream().map(Quote::value).collect(Collectors.joining(", "));
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
