package dev.orchestrate.cli;

import dev.orchestrate.limits.Quote;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;

/**
 * picocli's command line for everything {@link FastPath} leaves to it: the commands' models, the
 * execution strategy, exit codes and one-line errors. Kept apart from {@link Cli} so that a short
 * command never loads a picocli class: on JDK 25 its Java 5 classes (and any class implementing
 * their interfaces) stay outside the AOT cache and are read from the jar.
 */
final class Picocli {
  private Picocli() {
  }

  /** The class of each of {@link Cli#COMMAND_NAMES}. */
  static Class<?> commandClass(String name) {
    return switch (name) {
      case "init" -> InitCommand.class;
      case "run" -> RunCommand.class;
      case "status" -> StatusCommand.class;
      case "unblock" -> UnblockCommand.class;
      case "approve" -> ApproveCommand.class;
      case "reject" -> RejectCommand.class;
      case "diff" -> DiffCommand.class;
      case "jobs" -> JobsCommand.class;
      case "agents" -> AgentsCommand.class;
      case "logs" -> LogsCommand.class;
      case "memory" -> MemoryCommand.class;
      case "compact" -> CompactCommand.class;
      case "stats" -> StatsCommand.class;
      case "serve" -> ServeCommand.class;
      case "mcp" -> McpCommand.class;
      case "version" -> VersionCommand.class;
      case "help" -> CommandLine.HelpCommand.class;
      case "completion" -> CompletionCommand.class;
      case "__complete" -> CompleteCommand.class;
      default -> throw new IllegalArgumentException("no command " + name);
    };
  }

  /**
   * The command line of the root and its commands, or of the root and {@code only} (picocli builds
   * a command's model by reflection over its class, so a process builds only the one it runs when
   * the arguments say which, see {@link Cli#invoked}).
   */
  static CommandLine commandLine(Map<String, String> env, Path workingDir, Optional<String> only) {
    OrchestrateCommand root = new OrchestrateCommand(env, workingDir);
    CommandLine cl = new CommandLine(root);
    for (String name : Cli.COMMAND_NAMES) {
      if (only.isEmpty() || only.get().equals(name)) {
        cl.addSubcommand(name, commandClass(name));
      }
    }
    ErrorHandler errors = new ErrorHandler(root);
    cl.setExecutionStrategy(parseResult -> {
      try {
        root.applyLogLevel();
      } catch (CliException e) {
        return errors.handle(e, cl.getErr());
      }
      return new CommandLine.RunLast().execute(parseResult);
    });
    cl.setParameterExceptionHandler(Picocli::onBadParameters);
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> errors.handle(ex, commandLine.getErr()));
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    hideConfigWhereUnread(cl);
    return cl;
  }

  /** The commands that read a config file; the others still accept --config, but their help leaves it out. */
  static final Set<String> CONFIG_READERS = Set.of("orchestrate", "run", "compact", "agents", "resume", "mcp");

  private static void hideConfigWhereUnread(CommandLine cl) {
    for (CommandLine sub : cl.getSubcommands().values()) {
      hideConfigWhereUnread(sub);
    }
    CommandLine.Model.CommandSpec spec = cl.getCommandSpec();
    CommandLine.Model.OptionSpec config = spec.findOption("--config");
    if (config != null && !config.hidden() && !CONFIG_READERS.contains(spec.name())) {
      // Cast through Object: passing the OptionSpec where an ArgSpec is declared makes the verifier
      // check the subtype, and a JDK 25 AOT cache then loads both (Java 5 classes, read from the
      // jar) whenever it links this class at start-up, on every command. A checkcast is checked
      // only when it runs.
      spec.remove((CommandLine.Model.ArgSpec) (Object) config);
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
    // picocli's message quotes the bad value whole: keep its beginning, and the hint.
    err.println(ErrorHandler.line(Quote.line(String.valueOf(message), 300) + " (see '" + name + " --help')"));
    err.flush();
    return ExitCode.USAGE;
  }
}
