package dev.orchestrate.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/** Wires picocli once: commands, exit-code mapping, one-line errors. */
public final class Cli {
  private Cli() {
  }

  public static int execute(String[] args, Map<String, String> env) {
    return commandLine(env).execute(args);
  }

  public static CommandLine commandLine(Map<String, String> env) {
    return commandLine(env, Path.of(""));
  }

  /** As if started in {@code workingDir}: where the project is looked for (tests use their own). */
  public static CommandLine commandLine(Map<String, String> env, Path workingDir) {
    OrchestrateCommand root = new OrchestrateCommand(env, workingDir);
    CommandLine cl = new CommandLine(root);
    ErrorHandler errors = new ErrorHandler(root);
    cl.setExecutionStrategy(parseResult -> {
      try {
        root.applyLogLevel();
      } catch (CliException e) {
        return errors.handleExecutionException(e, cl, parseResult);
      }
      return new CommandLine.RunLast().execute(parseResult);
    });
    cl.setParameterExceptionHandler(Cli::onBadParameters);
    cl.setExecutionExceptionHandler(errors);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    return cl;
  }

  private static int onBadParameters(CommandLine.ParameterException ex, String[] args) {
    CommandLine cl = ex.getCommandLine();
    PrintWriter err = cl.getErr();
    String name = cl.getCommandSpec().qualifiedName();
    err.println("orchestrate: error: " + ex.getMessage() + " (see '" + name + " --help')");
    err.flush();
    return ExitCode.USAGE;
  }
}
