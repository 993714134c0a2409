package dev.orchestrate.cli;

import dev.orchestrate.app.Completions;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code orchestrate __complete ids}: the item ids of the current project, one a line, for the
 * completion scripts. Hidden; reads the state without changing or creating it; prints nothing and
 * exits 0 when there is no state (a completion must never print an error into the command line).
 */
@Command(name = "__complete", hidden = true, description = "Completion candidates for the shell scripts.")
final class CompleteCommand implements Callable<Integer> {
  @Mixin
  Root root;

  @Spec
  CommandSpec spec;

  @Parameters(index = "0", paramLabel = "WHAT", description = "ids")
  String what;

  @Override
  public Integer call() {
    if (!what.equals("ids")) {
      throw CliException.usage("__complete: unknown candidates '" + what + "' (use ids)");
    }
    PrintWriter out = spec.commandLine().getOut();
    try {
      Completions.itemIds(root.command().backend()).forEach(out::println);
    } catch (RuntimeException e) {
      // a locked, damaged, newer or unreachable state, a bad config: no candidates, no noise on the command line
    }
    out.flush();
    return ExitCode.OK;
  }
}
