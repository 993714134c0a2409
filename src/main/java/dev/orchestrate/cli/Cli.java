package dev.orchestrate.cli;

import dev.orchestrate.limits.Quote;
import java.io.PrintWriter;
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
    OrchestrateCommand root = new OrchestrateCommand(env);
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
    // picocli's message quotes the bad value whole: keep its beginning, and the hint.
    err.println(ErrorHandler.line(Quote.line(String.valueOf(ex.getMessage()), 300) + " (see '" + name + " --help')"));
    err.flush();
    return ExitCode.USAGE;
  }
}
