package dev.orchestrate.cli;

import ch.qos.logback.classic.Level;
import dev.orchestrate.config.BudgetConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.state.select.StateBackends;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
    // The subcommands are added by Cli (all of them, or only the one invoked: start-up time).
    footerHeading = "%nEnvironment:%n",
    footer = {"  ORCHESTRATE_STATE   state directory or postgresql:// URL; --state wins",
        "  ORCHESTRATE_CONFIG  config file; --config wins",
        "",
        "Project discovery (as git finds a repository):",
        "  the project is the nearest directory, from the backlog's directory (run",
        "  BACKLOG) or the current one (other commands) upwards, that holds",
        "  orchestrate.yaml or .orchestrate/. Its .orchestrate/ is the state (unless",
        "  the config's state.url names one) and its orchestrate.yaml the config.",
        "  None found: ./.orchestrate, built-in defaults.",
        "",
        "Exit codes:",
        "  0    success",
        "  1    the work ended badly (a run completed nothing and blocked something),",
        "       the state database cannot be reached, or an unexpected error",
        "  2    usage or validation error (bad flag, bad backlog or config, bad",
        "       memory kind, compact --keep-recent -1, a bad line in memory import,",
        "       unblock of an unknown or not-blocked item, agents resume of an",
        "       unknown profile, diff of an unknown item or one with no branch yet,",
        "       jobs --limit 0, a value",
        "       out of its range, a state path that is not a directory or a state.db",
        "       that is not a database, a state URL with a password in it, --logs",
        "       with a state directory, stats --check where there is no state)",
        "  3    the state directory is locked by another run (run, unblock); never",
        "       on PostgreSQL, where runners share the state",
        "  4    stats --check: some structure at warning level (>= 85%% of its limit)",
        "  5    stats --check: some structure over its limit",
        "  130  interrupted (Ctrl-C or SIGTERM)"})
public final class OrchestrateCommand {
  static final String DEFAULT_STATE_DIR = ".orchestrate";
  static final String DEFAULT_CONFIG = "orchestrate.yaml";

  private final Map<String, String> env;

  @Option(names = "--state", paramLabel = "DIR|URL", scope = ScopeType.INHERIT,
      description = "State: a directory (database, job logs, lock), or a PostgreSQL database that several runners "
          + "share, postgresql://user@host:5432/db[?schema=NAME] (the password from PGPASSWORD or ~/.pgpass, never "
          + "in the URL). Default: $ORCHESTRATE_STATE, else state.url of the config, else the project's "
          + ".orchestrate/ (see Project discovery)")
  String state;

  @Option(names = "--logs", paramLabel = "DIR", scope = ScopeType.INHERIT,
      description = "Where this runner keeps its job logs, with a postgresql:// state (a directory on this "
          + "machine's disk; compact deletes old job logs there only). Default: the project's .orchestrate/jobs. A "
          + "state directory keeps its logs in its own jobs/")
  Path logs;

  @Option(names = "--config", paramLabel = "FILE", scope = ScopeType.INHERIT,
      description = "Config file (read by run, compact and agents). Default: $ORCHESTRATE_CONFIG, else the "
          + "project's orchestrate.yaml (see Project discovery), else built-in defaults (for compact: the "
          + "retention policies the last run or compact recorded in the state)")
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

  private final Path workingDir;

  OrchestrateCommand(Map<String, String> env, Path workingDir) {
    this.env = Map.copyOf(env);
    this.workingDir = workingDir.toAbsolutePath().normalize();
  }

  Level level() {
    if (logLevel != null) {
      Level parsed = Level.toLevel(logLevel.toUpperCase(Locale.ROOT), null);
      if (parsed == null) {
        throw CliException.usage("--log-level: unknown level " + Quote.value(logLevel)
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

  /** The directory commands run in: the process's, or a test's. */
  Path workingDirectory() {
    return workingDir;
  }

  /**
   * The backend of the project the current directory belongs to: --state, else
   * $ORCHESTRATE_STATE, else state.url of the config (read alone: {@link ConfigLoader#loadState}),
   * else {@code .orchestrate/} in the nearest directory at or above the current one holding
   * orchestrate.yaml or .orchestrate/, else ./.orchestrate. It opens the state store and holds the
   * run lease.
   */
  StateBackend backend() {
    return backendFrom(workingDir, null);
  }

  /** As {@link #backend()}, but the project is looked for from the backlog's directory up. */
  StateBackend backend(Path backlogFile) {
    return backendFrom(backlogDirectory(backlogFile), null);
  }

  /** As {@link #backend(Path)}, with state.url taken from {@code config}, already loaded. */
  StateBackend backend(Path backlogFile, Config config) {
    return backendFrom(backlogDirectory(backlogFile), configured(config));
  }

  /** A state location and the directory a relative one is relative to. */
  private record Location(String text, Path base) {
  }

  /**
   * The backend of the location that applies from {@code start}; {@code fromConfig} is the
   * config's location when the caller has loaded the config, null to read state.url when needed.
   */
  private StateBackend backendFrom(Path start, Optional<Location> fromConfig) {
    Optional<Location> location = explicitLocation();
    if (location.isEmpty()) {
      location = fromConfig != null ? fromConfig : configuredLocation(start);
    }
    StateDirectory local = new StateDirectory(projectDirectory(start).resolve(DEFAULT_STATE_DIR));
    if (location.isPresent() && StateBackends.isDatabase(location.get().text())) {
      return usable(StateBackends.at(location.get().text(), logs == null ? local
          : local.withJobs(workingDir.resolve(logs))));
    }
    StateBackend backend;
    try {
      backend = location.isEmpty() ? StateBackends.at(local)
          : StateBackends.at(location.get().text(), location.get().base(), local);
    } catch (IllegalArgumentException e) {
      throw CliException.usage(e.getMessage());
    }
    if (logs != null) {
      throw CliException.usage("--logs is for a postgresql:// state, whose runners keep their job logs on their own "
          + "disks; the state directory " + backend.directory().root() + " keeps its job logs in its jobs/ (choose "
          + "another state directory with --state instead)");
    }
    return usable(backend);
  }

  /**
   * Refuses (exit 2) a location that cannot be used: a state directory that is a file, a state.db
   * that is no database, a URL with a password in it.
   */
  private static StateBackend usable(StateBackend backend) {
    backend.problem().ifPresent(problem -> {
      throw CliException.usage(problem + (problem.endsWith(StateDirectory.ELSEWHERE) ? ErrorHandler.ANOTHER_STATE
          : problem.endsWith(StateDirectory.LOGS_ELSEWHERE) ? " (--logs)" : ""));
    });
    return backend;
  }

  /** --state, else $ORCHESTRATE_STATE: relative directories are relative to the working directory. */
  private Optional<Location> explicitLocation() {
    if (state != null && state.isBlank()) {
      // An empty path is the current directory: state.db and jobs/ would land among the project's files.
      throw CliException.usage("--state is empty; give the state directory or URL, or leave the flag out for "
          + DEFAULT_STATE_DIR);
    }
    if (state != null) {
      return Optional.of(new Location(state, workingDir));
    }
    String fromEnv = env.get("ORCHESTRATE_STATE");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Optional.of(new Location(fromEnv, workingDir));
    }
    return Optional.empty();
  }

  /** state.url of the config that applies from {@code start}, read without the rest of the config. */
  /** The project's budget windows (the config's {@code budget:}), for {@code stats}; none without a config. */
  BudgetConfig budgetConfig() {
    Path file = configFile(workingDir);
    return file == null ? BudgetConfig.NONE : ConfigLoader.loadBudget(file);
  }

  private Optional<Location> configuredLocation(Path start) {
    Path file = configFile(start);
    if (file == null) {
      return Optional.empty();
    }
    String url = ConfigLoader.loadState(file).url(); // reads nothing more when no line starts "state:"
    return url == null ? Optional.empty() : Optional.of(new Location(url, directoryOf(file)));
  }

  private Optional<Location> configured(Config config) {
    String url = config.state().url();
    return url == null ? Optional.empty()
        : Optional.of(new Location(url, config.source().map(this::directoryOf).orElse(workingDir)));
  }

  private Path directoryOf(Path file) {
    Path parent = workingDir.resolve(file).normalize().getParent();
    return parent == null ? workingDir : parent;
  }

  /**
   * The directory of the user's checkout for the commands that take no backlog ({@code approve},
   * {@code reject}, {@code unblock --rebase}): the config file's directory when it lies in a git
   * work tree (the project's own config), else as {@code run} finds it from its default
   * {@code ./backlog.yaml}, the nearest project directory at or above the current one, else the
   * current directory: {@code --config} may name a file kept outside the repository. Looks for
   * {@code .git} on the disk only; no git runs.
   */
  Path checkoutDirectory(Config config) {
    Path configDir = config.source().map(f -> workingDir.resolve(f).toAbsolutePath().normalize().getParent())
        .orElse(null);
    for (Path d = configDir; d != null; d = d.getParent()) {
      if (java.nio.file.Files.exists(d.resolve(".git"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        return configDir;
      }
    }
    return projectDirectory(workingDir);
  }

  /** The nearest project directory at or above {@code start}; the working directory when none is. */
  private Path projectDirectory(Path start) {
    return ProjectLocation.find(start).orElse(workingDir);
  }

  private Path backlogDirectory(Path backlogFile) {
    if (backlogFile == null) {
      return workingDir;
    }
    Path parent = workingDir.resolve(backlogFile).normalize().getParent();
    return parent == null ? workingDir : parent;
  }

  /**
   * Loads the config: --config, else $ORCHESTRATE_CONFIG, else orchestrate.yaml in the project
   * directory (found from the backlog's directory, or the current one without a backlog), else the
   * built-in defaults. A file named explicitly must exist.
   */
  Config loadConfig(Path backlogFile) {
    Path file = configFile(backlogDirectory(backlogFile));
    return file == null ? Config.defaults() : ConfigLoader.load(file);
  }

  /** The sections of the project's config that maintenance applies ({@link ConfigLoader#loadForMaintenance}). */
  Config loadMaintenanceConfig() {
    Path file = configFile(backlogDirectory(null));
    return file == null ? Config.defaults() : ConfigLoader.loadForMaintenance(file);
  }

  /**
   * The config file that applies from {@code start}, as messages should show it; null for the
   * built-in defaults.
   */
  private Path configFile(Path start) {
    Path explicit = config;
    if (explicit == null) {
      String fromEnv = env.get("ORCHESTRATE_CONFIG");
      explicit = fromEnv != null && !fromEnv.isBlank() ? Path.of(fromEnv) : null;
    }
    if (explicit != null) {
      if (!Files.isRegularFile(workingDir.resolve(explicit))) {
        throw CliException.usage("config file " + explicit + " "
            + InputFiles.whyNotAFile(workingDir.resolve(explicit)));
      }
      return resolveShown(explicit);
    }
    Path found = projectDirectory(start).resolve(DEFAULT_CONFIG);
    return Files.isRegularFile(found) ? shown(found) : null;
  }

  /** A path as the user typed it when it means the same file; resolved against a test's directory otherwise. */
  private Path resolveShown(Path path) {
    return path.isAbsolute() || workingDir.equals(Path.of("").toAbsolutePath()) ? path : workingDir.resolve(path);
  }

  /**
   * A found file, relative to the current directory when it is at or below it (so that config
   * errors read {@code orchestrate.yaml:3:5}, not an absolute path), absolute otherwise.
   */
  private Path shown(Path found) {
    if (found.startsWith(workingDir) && workingDir.equals(Path.of("").toAbsolutePath())) {
      return workingDir.relativize(found);
    }
    return found;
  }
}
