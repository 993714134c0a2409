package dev.orchestrate.cli;

import ch.qos.logback.classic.Level;
import dev.orchestrate.backlog.Config;
import dev.orchestrate.backlog.ConfigLoader;
import dev.orchestrate.store.StateDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The root command: global options and where the state and config are. */
@Command(name = "orchestrate",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    usageHelpAutoWidth = true,
    description = "Drives a backlog of work items through phases (scope, design, build, review, ...), "
        + "each phase run by an agent subprocess.",
    subcommands = {InitCommand.class, RunCommand.class, StatusCommand.class, UnblockCommand.class,
        JobsCommand.class, MemoryCommand.class, CompactCommand.class, StatsCommand.class},
    footerHeading = "%nEnvironment:%n",
    footer = {"  ORCHESTRATE_STATE   state directory (default ./.orchestrate); --state wins",
        "  ORCHESTRATE_CONFIG  config file (default ./orchestrate.yaml); --config wins",
        "",
        "Exit codes:",
        "  0    success",
        "  1    the work ended badly (a run completed nothing and blocked something),",
        "       or an unexpected error",
        "  2    usage or validation error (bad flag, bad backlog or config, bad",
        "       memory kind, compact --keep-recent -1, a bad line in memory import,",
        "       unblock of an unknown or not-blocked item, jobs --limit 0)",
        "  3    the state directory is locked by another run (run, unblock)",
        "  4    stats --check: some structure at warning level (>= 85%% of its limit)",
        "  5    stats --check: some structure over its limit",
        "  130  interrupted (Ctrl-C or SIGTERM)"})
public final class OrchestrateCommand {
  static final String DEFAULT_STATE_DIR = ".orchestrate";
  static final String DEFAULT_CONFIG = "orchestrate.yaml";

  private final Map<String, String> env;

  @Option(names = "--state", paramLabel = "DIR", scope = ScopeType.INHERIT,
      description = "State directory (database, job logs, lock). Default: $ORCHESTRATE_STATE or ./.orchestrate")
  Path state;

  @Option(names = "--config", paramLabel = "FILE", scope = ScopeType.INHERIT,
      description = "Config file. Default: $ORCHESTRATE_CONFIG, else orchestrate.yaml in the current "
          + "directory, else the one next to the backlog, else built-in defaults (for compact: the retention "
          + "policies the last run or compact recorded in the state)")
  Path config;

  @Option(names = "--log-level", paramLabel = "LEVEL", scope = ScopeType.INHERIT,
      description = "error, warn (default), info, debug or trace. Logs go to stderr.")
  String logLevel;

  @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
      description = "More logging: -v info, -vv debug (with stack traces on errors)")
  boolean[] verbose = new boolean[0];

  @Option(names = {"-q", "--quiet"}, scope = ScopeType.INHERIT,
      description = "Only errors on stderr: no progress lines, log level error")
  boolean quiet;

  OrchestrateCommand(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

  Level level() {
    if (logLevel != null) {
      Level parsed = Level.toLevel(logLevel.toUpperCase(Locale.ROOT), null);
      if (parsed == null) {
        throw CliException.usage("--log-level: unknown level " + dev.orchestrate.limits.Quote.value(logLevel)
            + " (use error, warn, info, debug or trace)");
      }
      return parsed;
    }
    if (quiet) {
      return Level.ERROR;
    }
    return switch (verbose.length) {
      case 0 -> Level.WARN;
      case 1 -> Level.INFO;
      default -> Level.DEBUG;
    };
  }

  void applyLogLevel() {
    Level level = level();
    // Only touch logback when asked: initialising it costs start-up time.
    if (level != Level.WARN) {
      LogConfigurator.setLevel(level);
    }
  }

  boolean debug() {
    try {
      return level().toInt() <= Level.DEBUG_INT;
    } catch (CliException e) {
      return false;
    }
  }

  boolean quiet() {
    return quiet;
  }

  Map<String, String> env() {
    return env;
  }

  StateDirectory stateDirectory() {
    return usable(unchecked());
  }

  private StateDirectory unchecked() {
    if (state != null && state.toString().isBlank()) {
      // An empty path is the current directory: state.db and jobs/ would land among the project's files.
      throw CliException.usage("--state is empty; give the state directory, or leave the flag out for "
          + DEFAULT_STATE_DIR);
    }
    if (state != null) {
      return new StateDirectory(state);
    }
    String fromEnv = env.get("ORCHESTRATE_STATE");
    return new StateDirectory(Path.of(fromEnv != null && !fromEnv.isBlank() ? fromEnv : DEFAULT_STATE_DIR));
  }

  /** Refuses (exit 2) a state directory that is a file, or holds a state.db that is no database. */
  private static StateDirectory usable(StateDirectory dir) {
    dir.problem().ifPresent(problem -> {
      throw CliException.usage(problem);
    });
    return dir;
  }

  /**
   * Loads the config: --config, else $ORCHESTRATE_CONFIG, else ./orchestrate.yaml, else
   * orchestrate.yaml next to the backlog, else the built-in defaults. A file named explicitly
   * must exist.
   */
  Config loadConfig(Path backlogFile) {
    Path explicit = config;
    if (explicit == null) {
      String fromEnv = env.get("ORCHESTRATE_CONFIG");
      explicit = fromEnv != null && !fromEnv.isBlank() ? Path.of(fromEnv) : null;
    }
    if (explicit != null) {
      if (!Files.isRegularFile(explicit)) {
        throw CliException.usage("config file " + explicit + " does not exist");
      }
      return ConfigLoader.load(explicit);
    }
    Path local = Path.of(DEFAULT_CONFIG);
    if (Files.isRegularFile(local)) {
      return ConfigLoader.load(local);
    }
    if (backlogFile != null) {
      Path parent = backlogFile.getParent();
      Path beside = parent == null ? local : parent.resolve(DEFAULT_CONFIG);
      if (Files.isRegularFile(beside)) {
        return ConfigLoader.load(beside);
      }
    }
    return Config.defaults();
  }
}
