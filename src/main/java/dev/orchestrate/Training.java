package dev.orchestrate;

import dev.orchestrate.cli.Cli;
import dev.orchestrate.cli.DeferredLogback;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The training workload of bin/build-cds: runs several orchestrate commands, separated by a lone
 * {@code ";"} argument, one after the other in this one JVM, so that a single class list
 * (JDK 17-24) or AOT cache (JDK 25+) covers every short command. Exit codes are ignored: the
 * classes a command loads are the point, not its outcome.
 */
public final class Training {
  private Training() {
  }

  public static void main(String[] args) {
    Class<?> entry = Main.class; // loaded, so archived too: every real start begins there
    assert entry != null;
    DeferredLogback.select(); // as Main
    List<String> command = new ArrayList<>();
    for (String arg : Arrays.asList(args)) {
      if (arg.equals(";")) {
        run(command);
      } else {
        command.add(arg);
      }
    }
    run(command);
    // Leave as Main does: on JDK 21+ Runtime.exit looks up the platform logger, whose classes
    // would otherwise be missing from the archive and be read at every command's exit.
    System.exit(0);
  }

  private static void run(List<String> command) {
    if (!command.isEmpty()) {
      Cli.execute(command.toArray(String[]::new), System.getenv());
      command.clear();
    }
  }
}
