package dev.orchestrate.cli;

import dev.orchestrate.limits.Quote;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Wires picocli once: commands, exit-code mapping, one-line errors. */
public final class Cli {
  private Cli() {
  }

  /**
   * The subcommands in the order help lists them. picocli builds a command's model by reflection
   * over its class (and loads the classes its fields and methods name), so a process builds only
   * the one it runs when the arguments say which (see {@link #invoked}).
   */
  private static final Map<String, Class<?>> SUBCOMMANDS = subcommands();
  /** The names of the root's commands. */
  static final Set<String> COMMAND_NAMES = Set.copyOf(SUBCOMMANDS.keySet());

  private static Map<String, Class<?>> subcommands() {
    Map<String, Class<?>> all = new LinkedHashMap<>();
    all.put("init", InitCommand.class);
    all.put("run", RunCommand.class);
    all.put("status", StatusCommand.class);
    all.put("unblock", UnblockCommand.class);
    all.put("jobs", JobsCommand.class);
    all.put("logs", LogsCommand.class);
    all.put("memory", MemoryCommand.class);
    all.put("compact", CompactCommand.class);
    all.put("stats", StatsCommand.class);
    all.put("serve", ServeCommand.class);
    all.put("version", VersionCommand.class);
    all.put("help", CommandLine.HelpCommand.class);
    all.put("completion", CompletionCommand.class);
    all.put("__complete", CompleteCommand.class);
    return all;
  }

  /** Commands that read the other commands' models: help, the completion script, completion itself. */
  private static final Set<String> NEED_ALL = Set.of("help", "completion", "__complete");

  /** The root's options that take a value, and the root's flags, as they may precede the command. */
  static final Set<String> ROOT_VALUE_OPTIONS = Set.of("--state", "--logs", "--config", "--log-level");
  private static final Pattern ROOT_FLAGS = Pattern.compile("-[vq]+|--verbose|--quiet");

  /**
   * Runs the arguments: a well-formed short command through {@link FastPath} (no picocli model at
   * all), anything else through picocli, building only the invoked command's model when it can.
   */
  public static int execute(String[] args, Map<String, String> env) {
    OptionalInt fast = FastPath.execute(args, env, Path.of(""), () -> writer(System.out, "sun.stdout.encoding"),
        () -> writer(System.err, "sun.stderr.encoding"));
    return fast.isPresent() ? fast.getAsInt() : commandLine(env, Path.of(""), invoked(args)).execute(args);
  }

  /** As {@link #execute(String[], Map)}, started in {@code workingDir} and writing to {@code out} and {@code err}. */
  static int execute(String[] args, Map<String, String> env, Path workingDir, PrintWriter out, PrintWriter err) {
    OptionalInt fast = FastPath.execute(args, env, workingDir, () -> out, () -> err);
    if (fast.isPresent()) {
      return fast.getAsInt();
    }
    CommandLine cl = commandLine(env, workingDir, invoked(args));
    cl.setOut(out);
    cl.setErr(err);
    return cl.execute(args);
  }

  /** A stream's writer as picocli makes its own: the console's encoding when the JVM knows it, auto-flushing. */
  private static PrintWriter writer(java.io.OutputStream stream, String encodingProperty) {
    String name = System.getProperty(encodingProperty);
    Charset charset = Charset.defaultCharset();
    if (name != null) {
      try {
        charset = Charset.forName("cp65001".equalsIgnoreCase(name) ? "UTF-8" : name);
      } catch (RuntimeException e) {
        // picocli falls back to the default charset, too
      }
    }
    return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, charset)), true);
  }

  public static CommandLine commandLine(Map<String, String> env) {
    return commandLine(env, Path.of(""));
  }

  /** As if started in {@code workingDir}: where the project is looked for (tests use their own). */
  public static CommandLine commandLine(Map<String, String> env, Path workingDir) {
    return commandLine(env, workingDir, Optional.empty());
  }

  /**
   * The subcommand these arguments run, when that is certain without parsing: the first argument
   * after the root's own options names one, and it needs no other command's model. Empty (build
   * them all) for anything else: no command, help, an unknown option or a mistyped command, so
   * that usage, help and did-you-mean see every command.
   */
  static Optional<String> invoked(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (ROOT_VALUE_OPTIONS.contains(arg)) {
        i++;
      } else if (arg.startsWith("-")) {
        int eq = arg.indexOf('=');
        boolean valued = eq > 0 && ROOT_VALUE_OPTIONS.contains(arg.substring(0, eq));
        if (!valued && !ROOT_FLAGS.matcher(arg).matches()) {
          return Optional.empty();
        }
      } else {
        return SUBCOMMANDS.containsKey(arg) && !NEED_ALL.contains(arg) ? Optional.of(arg) : Optional.empty();
      }
    }
    return Optional.empty();
  }

  static CommandLine commandLine(Map<String, String> env, Path workingDir, Optional<String> only) {
    OrchestrateCommand root = new OrchestrateCommand(env, workingDir);
    CommandLine cl = new CommandLine(root);
    SUBCOMMANDS.forEach((name, command) -> {
      if (only.isEmpty() || only.get().equals(name)) {
        cl.addSubcommand(name, command);
      }
    });
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
    // picocli's message quotes the bad value whole: keep its beginning, and the hint.
    err.println(ErrorHandler.line(Quote.line(String.valueOf(message), 300) + " (see '" + name + " --help')"));
    err.flush();
    return ExitCode.USAGE;
  }
}
