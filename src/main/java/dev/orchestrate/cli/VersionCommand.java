package dev.orchestrate.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code orchestrate version}: what {@code orchestrate --version} prints. */
@Command(name = "version", mixinStandardHelpOptions = true,
    description = "Print the version of orchestrate and of the Java runtime (as --version does).")
final class VersionCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    for (String line : new VersionProvider().getVersion()) {
      out.println(line);
    }
    out.flush();
    return ExitCode.OK;
  }
}
