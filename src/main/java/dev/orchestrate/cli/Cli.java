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
    hideConfigWhereUnread(cl);
    return cl;
  }

  /** The commands that read a config file; the others still accept --config, but their help leaves it out. */
  static final java.util.Set<String> CONFIG_READERS = java.util.Set.of("orchestrate", "run", "compact");

  private static void hideConfigWhereUnread(CommandLine cl) {
    for (CommandLine sub : cl.getSubcommands().values()) {
      hideConfigWhereUnread(sub);
    }
    CommandLine.Model.CommandSpec spec = cl.getCommandSpec();
    CommandLine.Model.OptionSpec config = spec.findOption("--config");
    if (config != null && !config.hidden() && !CONFIG_READERS.contains(spec.name())) {
      spec.remove(config);
      spec.addOption(CommandLine.Model.OptionSpec.builder(config).hidden(true)
          .scopeType(CommandLine.ScopeType.LOCAL).build());
    }
  }

  private static int onBadParameters(CommandLine.ParameterException ex, String[] args) {
    CommandLine cl = ex.getCommandLine();
    PrintWriter err = cl.getErr();
    String name = cl.getCommandSpec().qualifiedName();
    String message = ex instanceof CommandLine.UnmatchedArgumentException unmatched
        ? Suggestions.describe(unmatched).orElse(ex.getMessage()) : ex.getMessage();
    err.println("orchestrate: error: " + message + " (see '" + name + " --help')");
    err.flush();
    return ExitCode.USAGE;
  }
}
