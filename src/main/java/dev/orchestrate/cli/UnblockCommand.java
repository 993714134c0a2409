package dev.orchestrate.cli;

import dev.orchestrate.app.Unblocking;
import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.workspace.Rebase;
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
 * {@code orchestrate unblock ID... --notes TEXT}: return blocked items to where they were blocked.
 * All or nothing: one unknown or not-blocked id refuses them all.
 */
@Command(name = "unblock", mixinStandardHelpOptions = true,
    description = {"Return blocked items to the status and phase each was blocked in, with 0 attempts.",
        "The notes appear in each item's next prompt as '## Unblock Context' and are cleared once that "
            + "phase succeeds. Several ids are all or nothing: one unknown or not-blocked id refuses them "
            + "all and changes nothing.",
        "Needs only the state directory (with --rebase, the project's config and git repository too). Refused "
            + "(exit 3) while a run works on the same state: the run holds the items in memory and would overwrite "
            + "the change; run it between runs.",
        "With execution.workspace: worktree, an item's next attempt starts from its branch as orchestrate "
            + "recorded it, so a fix you committed on the base branch since is not there: --rebase brings it in."},
    footerHeading = "%nExit codes:%n",
    footer = {"  0    unblocked",
        "  1    --rebase: a rebase conflicted (the item stays blocked, its reason names",
        "       the files) or could not be done; nothing was unblocked",
        "  2    an unknown id, an item not blocked (also one another unblock took at the",
        "       same instant: the error names it), empty notes, or --rebase without",
        "       worktrees (nothing changed)",
        "  3    a run holds the state directory"})
final class UnblockCommand implements Callable<Integer> {
  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0..*", arity = "1..*", paramLabel = "ID", description = "The blocked items' ids")
  List<String> ids;

  @Option(names = "--notes", paramLabel = "TEXT", required = true,
      description = "What the agents need to know to get on, the same for every id (capped at "
          + Transitions.UNBLOCK_NOTES_MAX_CHARS + " characters)")
  String notes;

  @Option(names = "--rebase", description = "Worktrees only: first rebase each item's branch onto the current tip "
      + "of its base branch, so its next attempt sees what was committed there since it was blocked (your fix). "
      + "The branch is taken as it is now: commits you made on it, or your own rebase of it, are kept. Its "
      + "worktree's uncommitted files are discarded, as the next attempt's reset would. A conflict leaves the item "
      + "blocked with the conflicting files named (exit 1); resolve it on the branch and unblock --rebase again. "
      + "An item blocked at done is left to its integration, which rebases anyway.")
  boolean rebase;

  @Mixin
  JsonOutput output = new JsonOutput();

  @Override
  public Integer call() {
    if (notes.isBlank()) {
      throw CliException.usage("--notes must not be empty: tell the agent what changed");
    }
    Unblocking.Rebasing rebasing = rebase ? rebasing() : null;
    Unblocking.Outcome unblocked;
    unblocked = new Unblocking(root.command().backend(), Clock.systemUTC()).unblock(ids, notes, rebasing);
    print(spec.commandLine().getOut(), unblocked);
    return ExitCode.OK;
  }

  /**
   * The config's worktree settings and the project's directory, where the user's checkout is found;
   * refused without worktrees ({@link Unblocking.Rebasing}).
   */
  private Unblocking.Rebasing rebasing() {
    Config config = root.command().loadConfig(null);
    return new Unblocking.Rebasing(config, root.command().checkoutDirectory(config));
  }

  private static String rebaseLine(String id, Rebase r) {
    String kept = r.moved() ? " (from its tip " + abbrev(r.from()) + ", which had moved since orchestrate recorded "
        + "it: your commits on it are kept)" : "";
    return switch (r.kind()) {
      case "rebased" -> r.branch() + " rebased onto " + r.baseBranch() + " at " + abbrev(r.base()) + kept
          + ": its next attempt starts from " + abbrev(r.head());
      case "up_to_date" -> r.branch() + " already holds " + r.baseBranch() + " at " + abbrev(r.base()) + kept
          + ": its next attempt starts from " + abbrev(r.head());
      case "at_integration" -> id + " was blocked at done: its integration rebases " + r.branch()
          + " onto " + r.baseBranch() + " at the next run";
      default -> id + " has no worktree yet: its first attempt starts from the base branch's tip";
    };
  }

  private static String abbrev(String commit) {
    return commit == null ? "-" : commit.substring(0, Math.min(12, commit.length()));
  }

  /** One item's row of {@code --json}: its rebase with {@code --rebase}, its base's lead without. */
  private static Map<String, Object> row(ItemState item, Rebase r, Integer ahead) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", item.id());
    row.put("status", item.status().key());
    row.put("phase", item.progress().phase());
    if (r != null) {
      Map<String, Object> rebase = new LinkedHashMap<>();
      rebase.put("result", r.kind());
      rebase.put("branch", r.branch());
      rebase.put("onto", r.baseBranch());
      rebase.put("base_commit", r.base());
      rebase.put("from", r.from());
      rebase.put("head_commit", r.head());
      rebase.put("kept_moved_branch", r.moved());
      row.put("rebase", rebase);
    }
    if (ahead != null) {
      row.put("base_ahead", ahead);
    }
    return row;
  }

  private void print(PrintWriter out, Unblocking.Outcome outcome) {
    List<ItemState> items = outcome.items();
    Map<String, Rebase> rebases = outcome.rebases();
    if (output.json) {
      Map<String, Object> doc = Json.envelope("unblock");
      if (items.size() == 1) {
        // The one-id form of schema 1, kept: scripts read these three keys.
        doc.put("id", items.get(0).id());
        doc.put("status", items.get(0).status().key());
        doc.put("phase", items.get(0).progress().phase());
      }
      List<Map<String, Object>> rows = new ArrayList<>();
      for (ItemState item : items) {
        rows.add(row(item, rebases.get(item.id()), outcome.baseAhead().get(item.id())));
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
      Rebase r = rebases.get(item.id());
      if (r != null) {
        out.println(TerminalText.safe("  " + rebaseLine(item.id(), r)));
      }
      Integer ahead = outcome.baseAhead().get(item.id());
      if (ahead != null) {
        out.println(TerminalText.safe("  hint: its base branch has " + ahead + (ahead == 1 ? " commit" : " commits")
            + " its branch does not (landed since it forked), and its next attempt starts without "
            + (ahead == 1 ? "it" : "them") + "; when an item needs a fix committed there, unblock --rebase brings "
            + "it in (orchestrate status ID says so of a blocked item)"));
      }
    }
    if (items.size() > 1) {
      out.println("The notes go into each one's next prompt. Continue with: orchestrate run");
    }
    out.flush();
  }
}
