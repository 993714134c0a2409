package dev.orchestrate.config;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.yaml.Names;
import dev.orchestrate.yaml.Problems;
import dev.orchestrate.yaml.Sizes;
import dev.orchestrate.yaml.ValidationException;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import dev.orchestrate.yaml.YamlReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads {@code orchestrate.yaml} (docs/configuration.md) into a validated {@link Config}. Every key is
 * checked; missing keys take the published defaults; every problem in the file is reported at
 * once, each at its line and column.
 */
public final class ConfigLoader {
  public static final List<String> TOP_KEYS = List.of("agent", "agents", "execution", "default_pipeline",
      "pipelines", "context", "memory", "retention", "state", "limits", "budget", "workspace");
  public static final List<String> WORKSPACE_KEYS = List.of("setup", "copy");
  public static final List<String> PROJECT_COMMAND_KEYS = List.of("name", "run", "timeout");
  public static final List<String> BUDGET_KEYS = List.of("per_day", "per_week", "tokens_per_day", "tokens_per_week");
  public static final List<String> STATE_KEYS = List.of("url", "lease_timeout");
  /** A password in a URL's user part ({@code //user:secret@}) or as a parameter. */
  private static final Pattern URL_PASSWORD = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@]*:[^/?#]*@.*"
      + "|.*[?&][Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]=.*", Pattern.DOTALL);
  public static final List<String> AGENT_KEYS = List.of("command", "timeout", "kill_grace", "env",
      "result_fallback", "log_max_bytes", "output_tail_chars", "preset", "args", "stall_timeout",
      "secret_env", "stop_leftover_processes", "pass_summarizer_key", "on_usage_limit", "max_wait", "resume");
  /** The keys of a profile of agents: the keys of agent:, and its own concurrency cap. */
  public static final List<String> PROFILE_KEYS = java.util.stream.Stream.concat(AGENT_KEYS.stream(),
      java.util.stream.Stream.of("max_concurrent")).toList();
  public static final List<String> EXECUTION_KEYS = List.of("max_wip", "max_concurrent", "max_retries",
      "circuit_breaker", "phase_cap", "max_cost_usd", "max_tokens", "workspace", "base_branch", "merge",
      "delete_merged_branches", "commit_author", "destructive_runs_alone");
  public static final List<String> PIPELINE_KEYS = List.of("pre_phases", "phases", "agent", "fallback", "verify");
  public static final List<String> PHASE_KEYS = List.of("name", "instructions", "workflow", "destructive", "agent",
      "fallback", "verify", "changes");
  /**
   * Earlier versions wrote {@code limits: {}} into every config; it is still accepted empty. The
   * size caps are set where they apply, or fixed (docs/how-it-works.md, "Size caps").
   */
  public static final String LIMITS_MOVED = "limits takes no keys; size caps are set by agent.output_tail_chars, "
      + "context.turn_max_chars and context.summary_max_chars, the others are fixed (docs/how-it-works.md: Size caps)";
  public static final List<String> CONTEXT_KEYS = List.of("window_size", "turn_max_chars", "summary_max_chars",
      "summarizer");
  public static final List<String> BUILTIN_KEYS = List.of("kind", "fallback", "prompt");
  public static final List<String> OPENAI_KEYS = List.of("kind", "base_url", "model", "api_key_env", "timeout",
      "fallback", "prompt");
  public static final List<String> COMMAND_KEYS = List.of("kind", "command", "timeout", "fallback", "prompt");
  public static final List<String> MEMORY_KEYS = List.of("keep_recent", "boot_context_chars");
  /** The structures that have a retention entry; each takes {@link #STRUCTURE_RETENTION_KEYS}. */
  public static final List<String> RETENTION_STRUCTURES = StructureName.RETAINED.stream().map(StructureName::key)
      .toList();
  public static final List<String> RETENTION_KEYS = List.of("maintenance_interval", "budget", StructureName.JOBS.key(),
      StructureName.TURNS.key(), StructureName.EVENTS.key(), StructureName.STATS_SAMPLES.key(),
      StructureName.WORKTREES.key());
  public static final List<String> WORKTREES_RETENTION_KEYS = List.of("max_rows", "max_age", "discard_uncommitted");
  /** A git branch name we accept in execution.base_branch: no spaces, no leading '-', no "..". */
  private static final Pattern BRANCH = Pattern.compile("(?!-)(?!.*\\.\\.)(?!.*//)[A-Za-z0-9._/-]+(?<![./])");
  public static final List<String> STRUCTURE_RETENTION_KEYS = List.of("max_rows", "max_age");
  /** events.keep_recent, from before max_rows existed, still reads as events.max_rows. */
  public static final List<String> EVENTS_RETENTION_KEYS = List.of("max_rows", "max_age", "keep_recent");
  public static final int MIN_OUTPUT_TAIL_CHARS = 100;

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final String COMMAND_EXAMPLE = "[\"bash\", \"agent.sh\"]";

  private final Path directory;
  private final Problems problems;
  private final Values values;

  private ConfigLoader(Path file, Problems problems) {
    Path parent = file.toAbsolutePath().normalize().getParent();
    this.directory = parent == null ? Path.of("").toAbsolutePath() : parent;
    this.problems = problems;
    this.values = new Values(problems);
  }

  /**
   * Loads and validates a config file.
   *
   * @param file the file as the user named it; problems carry {@code file.toString()}
   * @return the config, with {@code source} set to {@code file}
   * @throws ValidationException with every problem found, in file order
   */
  public static Config load(Path file) {
    Problems problems = new Problems(file.toString());
    Optional<Config> config = YamlReader.read(file, problems, YamlReader.MAX_CONFIG_BYTES,
        "move long phase instructions into workflow files")
        .flatMap(root -> new ConfigLoader(file, problems).config(root, file));
    problems.throwIfAny();
    return config.orElseThrow();
  }

  /**
   * Only the {@code state} section of a config file, validated as {@link #load} validates it: what
   * commands that read no other setting need to find the state ({@code status}, {@code jobs}, ...).
   * A file with no line starting {@code state:} is not parsed ({@link StateConfig#mayBeSetIn}); the
   * rest of the file is checked by the commands that read it.
   *
   * @throws ValidationException with the problems of the section, or of the YAML itself
   */
  public static StateConfig loadState(Path file) {
    if (!StateConfig.mayBeSetIn(file)) {
      return StateConfig.defaults();
    }
    Problems problems = new Problems(file.toString());
    Optional<StateConfig> state = YamlReader.read(file, problems, YamlReader.MAX_CONFIG_BYTES,
        "move long phase instructions into workflow files")
        .filter(YamlNode.Mapping.class::isInstance)
        .flatMap(root -> new ConfigLoader(file, problems).section((YamlNode.Mapping) root, "state"))
        .map(section -> new ConfigLoader(file, problems).state(section));
    problems.throwIfAny();
    return state.orElse(StateConfig.defaults());
  }

  /**
   * The {@code budget} section of {@code file} alone, for {@code stats}; reads nothing more when no
   * line starts {@code budget:}.
   *
   * @throws ValidationException with the problems of the section, or of the YAML itself
   */
  public static BudgetConfig loadBudget(Path file) {
    if (!BudgetConfig.mayBeSetIn(file)) {
      return BudgetConfig.NONE;
    }
    Problems problems = new Problems(file.toString());
    Optional<BudgetConfig> budget = YamlReader.read(file, problems, YamlReader.MAX_CONFIG_BYTES,
        "move long phase instructions into workflow files")
        .filter(YamlNode.Mapping.class::isInstance)
        .flatMap(root -> new ConfigLoader(file, problems).section((YamlNode.Mapping) root, "budget"))
        .map(section -> new ConfigLoader(file, problems).budget(section));
    problems.throwIfAny();
    return budget.orElse(BudgetConfig.NONE);
  }

  private Optional<Config> config(YamlNode root, Path file) {
    if (!(root instanceof YamlNode.Mapping map)) {
      problems.expected(root, "a config file", "a map of settings (agent, execution, pipelines, ...)");
      return Optional.empty();
    }
    problems.unknownKeys(map, TOP_KEYS, "key", "the config");
    Map<String, AgentConfig> agents = map.get("agents").isPresent() ? agents(map.entry("agents").orElseThrow())
        : Map.of();
    // Without an agent: block, the first of agents: is the default profile.
    AgentConfig agent = section(map, "agent").map(this::agent)
        .orElse(agents.isEmpty() ? AgentConfig.defaults() : agents.values().iterator().next());
    if (map.get("agent").isPresent() && agents.containsKey(agent.profileName())) {
      problems.at(map.entry("agents").orElseThrow().key(), "agents." + agent.profileName() + " has the name of the "
          + "agent: block's profile (named by its preset): give it another name");
    }
    ExecutionConfig execution = section(map, "execution").map(this::execution)
        .orElse(ExecutionConfig.defaults());
    Map<String, Pipeline> pipelines = map.get("pipelines").isPresent()
        ? pipelines(map.entry("pipelines").orElseThrow())
        : Config.defaults().pipelines();
    String defaultPipeline = defaultPipeline(map, pipelines);
    ContextConfig context = section(map, "context").map(this::context).orElse(ContextConfig.defaults());
    Optional<YamlNode.Mapping> memory = section(map, "memory");
    memory.ifPresent(m -> problems.unknownKeys(m, MEMORY_KEYS, "key", "memory"));
    int keepRecent = setting(memory, "keep_recent", n -> values.integer(n, "memory.keep_recent", 0, Ranges.KEEP_RECENT))
        .orElse(Config.DEFAULT_KEEP_RECENT);
    int bootChars = setting(memory, "boot_context_chars",
        n -> values.integer(n, "memory.boot_context_chars", 0, Ranges.BOOT_CONTEXT_CHARS))
        .orElse(Config.DEFAULT_BOOT_CONTEXT_CHARS);
    RetentionConfig retention = section(map, "retention").map(this::retention).orElse(RetentionConfig.defaults());
    StateConfig state = section(map, "state").map(this::state).orElse(StateConfig.defaults());
    section(map, "limits").ifPresent(m -> noKeys(m, "limits", LIMITS_MOVED));
    BudgetConfig budget = section(map, "budget").map(this::budget).orElse(BudgetConfig.NONE);
    Optional<YamlNode.Mapping> workspaceSection = section(map, "workspace");
    Optional<WorkspacePreparation> preparation = workspaceSection.flatMap(this::workspacePreparation);
    if (preparation.isPresent()) {
      execution = execution.withWorkspace(execution.workspace().withPreparation(preparation.get().setup(),
          preparation.get().copy()));
      if (!execution.workspace().worktrees() && (!preparation.get().setup().isEmpty()
          || !preparation.get().copy().isEmpty())) {
        problems.at(map.entry("workspace").orElseThrow().key(), "workspace.setup and workspace.copy prepare each "
            + "item's own worktree: they need execution.workspace: worktree");
      }
    }
    checkChanges(map, pipelines, execution);
    Map<String, AgentConfig> others = new LinkedHashMap<>(agents);
    others.remove(agent.profileName());
    checkProfileNames(agent, others);
    return Optional.of(new Config(Optional.of(file), agent, execution, defaultPipeline, pipelines,
        context, keepRecent, bootChars, retention, state, budget, others));
  }

  /** {@code changes: required} needs a worktree: only there can orchestrate see what an attempt changed. */
  private void checkChanges(YamlNode.Mapping root, Map<String, Pipeline> pipelines, ExecutionConfig execution) {
    if (execution.workspace().worktrees()) {
      return;
    }
    for (Pipeline pipeline : pipelines.values()) {
      for (String list : List.of("pre_phases", "phases")) {
        List<PhaseDef> phases = list.equals("phases") ? pipeline.phases() : pipeline.prePhases();
        for (int i = 0; i < phases.size(); i++) {
          PhaseDef phase = phases.get(i);
          if (phase.changes() == PhaseDef.Changes.REQUIRED) {
            problems.at(changesNode(root, pipeline.name(), list, i), "phase " + Quote.value(phase.name())
                + " of pipeline " + Quote.value(pipeline.name()) + " has changes: required, which needs "
                + "execution.workspace: worktree (orchestrate sees an attempt's changes only in its own worktree)");
          }
        }
      }
    }
  }

  /** Where a phase wrote {@code changes:} (pipelines.NAME.LIST[i].changes), for its problem's place. */
  private static YamlNode changesNode(YamlNode.Mapping root, String pipeline, String list, int index) {
    YamlNode pipelines = root.get("pipelines").orElseThrow();
    return Optional.of(pipelines).filter(YamlNode.Mapping.class::isInstance).map(YamlNode.Mapping.class::cast)
        .flatMap(m -> m.get(pipeline)).filter(YamlNode.Mapping.class::isInstance).map(YamlNode.Mapping.class::cast)
        .flatMap(m -> m.get(list)).filter(YamlNode.Sequence.class::isInstance).map(YamlNode.Sequence.class::cast)
        .filter(s -> index < s.items().size()).map(s -> s.items().get(index))
        .filter(YamlNode.Mapping.class::isInstance).map(YamlNode.Mapping.class::cast)
        .flatMap(m -> m.get("changes")).orElse(pipelines);
  }

  /**
   * A list of project commands ({@code verify:} of a pipeline or phase, {@code workspace.setup:}):
   * each a map of {@code name}, {@code run} (one string, run by {@code /bin/sh -c}, or a list: the
   * argv) and an optional {@code timeout}; names valid and unique within the list.
   */
  private Optional<List<ProjectCommand>> projectCommands(YamlNode node, String subject) {
    if (node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(List.of());
    }
    if (!(node instanceof YamlNode.Sequence list)) {
      problems.expected(node, subject, "a list of commands, each like {name: tests, run: \"npm test\", timeout: 10m}");
      return Optional.empty();
    }
    List<ProjectCommand> out = new ArrayList<>();
    Map<String, Integer> seen = new LinkedHashMap<>();
    boolean ok = true;
    for (int i = 0; i < list.items().size(); i++) {
      String path = subject + "[" + i + "]";
      YamlNode item = list.items().get(i);
      if (!(item instanceof YamlNode.Mapping map)) {
        problems.expected(item, path, "a map like {name: tests, run: \"npm test\", timeout: 10m}");
        ok = false;
        continue;
      }
      problems.unknownKeys(map, PROJECT_COMMAND_KEYS, "key", path);
      Optional<String> name = map.get("name").isEmpty() ? Optional.empty()
          : values.nonBlank(map.get("name").get(), "name in " + path, "a name like tests");
      if (map.get("name").isEmpty()) {
        problems.at(map, path + " has no name (it names the command's log and what the agent is told)");
      } else if (name.isPresent() && !Names.isValidName(name.get())) {
        problems.at(map.get("name").get(), "bad command name " + Quote.value(name.get()) + " in " + path + ": "
            + Names.NAME_RULE);
        name = Optional.empty();
      } else if (name.isPresent()) {
        Integer first = seen.putIfAbsent(name.get(), map.get("name").get().line());
        if (first != null) {
          problems.at(map.get("name").get(), "duplicate command " + Quote.value(name.get()) + " in " + subject
              + " (first at line " + first + ")");
          name = Optional.empty();
        }
      }
      Optional<YamlNode> run = map.get("run");
      Optional<List<String>> argv = Optional.empty();
      String text = null;
      if (run.isEmpty()) {
        problems.at(map, path + " has no run: give the command, e.g. run: \"npm test\"");
      } else if (run.get() instanceof YamlNode.Sequence) {
        argv = values.strings(run.get(), "run", path, "argument");
        if (argv.isPresent() && argv.get().isEmpty()) {
          problems.at(run.get(), "run in " + path + " is empty: give the program and its arguments");
          argv = Optional.empty();
        }
        text = argv.map(a -> String.join(" ", a)).orElse(null);
      } else {
        Optional<String> shell = values.nonBlank(run.get(), "run in " + path, "a command like \"npm test\"");
        text = shell.orElse(null);
        argv = shell.map(t -> List.of(ProjectCommand.SHELL, "-c", t));
      }
      Duration timeout = map.get("timeout").isPresent()
          ? duration(map.get("timeout").get(), "timeout in " + path, Ranges.AGENT_TIMEOUT).orElse(null)
          : ProjectCommand.DEFAULT_TIMEOUT;
      if (name.isEmpty() || argv.isEmpty() || timeout == null) {
        ok = false;
        continue;
      }
      out.add(new ProjectCommand(name.get(), argv.get(), text, timeout));
    }
    return ok ? Optional.of(out) : Optional.empty();
  }

  /** The {@code workspace:} section: set-up commands and copied paths of each new worktree. */
  private Optional<WorkspacePreparation> workspacePreparation(YamlNode.Mapping map) {
    problems.unknownKeys(map, WORKSPACE_KEYS, "key", "workspace");
    Optional<List<ProjectCommand>> setup = map.get("setup").isPresent()
        ? projectCommands(map.get("setup").get(), "workspace.setup")
        : Optional.of(List.of());
    Optional<List<String>> copy = map.get("copy").isPresent()
        ? values.strings(map.get("copy").get(), "workspace.copy", "", "path").flatMap(paths -> map.get("copy")
            .get() instanceof YamlNode.Sequence list ? copyPaths(list, paths) : Optional.of(List.of()))
        : Optional.of(List.of());
    if (setup.isEmpty() || copy.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new WorkspacePreparation(setup.get(), copy.get()));
  }

  private record WorkspacePreparation(List<ProjectCommand> setup, List<String> copy) {
  }

  /**
   * The paths of {@code workspace.copy}: relative to the repository's top, inside it, never into
   * {@code .git}; written normalized, without duplicates.
   */
  private Optional<List<String>> copyPaths(YamlNode.Sequence list, List<String> paths) {
    List<String> out = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < paths.size(); i++) {
      String text = paths.get(i);
      YamlNode node = list.items().get(i);
      Path path;
      try {
        path = Path.of(text);
      } catch (java.nio.file.InvalidPathException e) {
        problems.at(node, "workspace.copy " + Quote.value(text) + " is not a valid path");
        ok = false;
        continue;
      }
      Path normal = path.normalize();
      if (path.isAbsolute() || normal.toString().isEmpty() || normal.startsWith("..")
          || normal.toString().equals(".")) {
        problems.at(node, "workspace.copy " + Quote.value(text) + " leaves the repository: give a path relative to "
            + "the repository's top, inside it (like .env or config/local.yml)");
        ok = false;
      } else if (normal.getName(0).toString().equals(".git")) {
        problems.at(node, "workspace.copy " + Quote.value(text) + " is inside .git: orchestrate copies only the "
            + "project's own files");
        ok = false;
      } else if (out.contains(normal.toString())) {
        problems.at(node, "workspace.copy names " + Quote.value(text) + " twice");
        ok = false;
      } else {
        out.add(normal.toString());
      }
    }
    return ok ? Optional.of(out) : Optional.empty();
  }

  /** Where a pipeline or phase names an agent profile, to check once the profiles are known. */
  private record ProfileName(String name, YamlNode node, String where) {
  }

  private final List<ProfileName> profileNames = new ArrayList<>();

  private void checkProfileNames(AgentConfig agent, Map<String, AgentConfig> others) {
    List<String> known = new ArrayList<>();
    known.add(agent.profileName());
    known.addAll(others.keySet());
    for (ProfileName n : profileNames) {
      if (!known.contains(n.name())) {
        problems.at(n.node(), "unknown agent profile " + Quote.value(n.name()) + " in " + n.where() + ": the profiles "
            + "are " + String.join(", ", known) + " (agent: is named by its preset; others are the keys of agents:)");
      }
    }
  }

  /** agents: a map of profile names to agent settings (the keys of agent:, and max_concurrent). */
  private Map<String, AgentConfig> agents(YamlNode.Entry entry) {
    Optional<YamlNode.Mapping> map = values.mapping(entry.value(), "agents",
        "a map of profile names to agent settings, e.g. {codex: {preset: codex}}");
    Map<String, AgentConfig> out = new LinkedHashMap<>();
    for (YamlNode.Entry profile : map.map(YamlNode.Mapping::entries).orElse(List.of())) {
      String name = profile.key().name();
      if (!Names.isValidName(name)) {
        problems.at(profile.key(), "bad agent profile name " + Quote.value(name) + ": " + Names.NAME_RULE);
        continue;
      }
      Optional<YamlNode.Mapping> settings = values.mapping(profile.value(), "agents." + name,
          "a map of agent settings (preset, command, args, env, max_concurrent, ...)");
      if (settings.isEmpty()) {
        continue;
      }
      problems.unknownKeys(settings.get(), PROFILE_KEYS, "key", "agents." + name);
      int cap = settings.get().get("max_concurrent")
          .flatMap(n -> values.integer(n, "agents." + name + ".max_concurrent", 1, Ranges.MAX_CONCURRENT)).orElse(0);
      out.put(name, agent(settings.get(), false).asProfile(name, cap));
    }
    return out;
  }

  /** The agent profile a pipeline or phase names with {@code agent:} and {@code fallback:}. */
  private Optional<String> profileRef(YamlNode.Mapping map, String where) {
    Optional<String> name = map.get("agent").flatMap(n -> values.nonBlank(n, "agent in " + where, "a profile name"));
    name.ifPresent(n -> profileNames.add(new ProfileName(n, map.get("agent").get(), where)));
    return name;
  }

  private List<String> fallbackRefs(YamlNode.Mapping map, String where) {
    Optional<YamlNode> node = map.get("fallback");
    if (node.isEmpty()) {
      return List.of();
    }
    List<String> names = values.strings(node.get(), "fallback", where, "profile name").orElse(List.of());
    names.forEach(n -> profileNames.add(new ProfileName(n, node.get(), "the fallback of " + where)));
    return names;
  }

  /** budget: US dollars and tokens per UTC day and ISO week, for the whole project. */
  private BudgetConfig budget(YamlNode.Mapping map) {
    problems.unknownKeys(map, BUDGET_KEYS, "key", "budget");
    Optional<YamlNode.Mapping> section = Optional.of(map);
    return new BudgetConfig(setting(section, "per_day", n -> usd(n, "budget.per_day")).orElse(null),
        setting(section, "per_week", n -> usd(n, "budget.per_week")).orElse(null),
        setting(section, "tokens_per_day", n -> tokens(n, "budget.tokens_per_day")).orElse(null),
        setting(section, "tokens_per_week", n -> tokens(n, "budget.tokens_per_week")).orElse(null));
  }

  /**
   * state: url (a directory, relative to the config file's, or a postgresql:// URL without a
   * password: the value is never repeated in a message, it might hold one) and lease_timeout.
   */
  private StateConfig state(YamlNode.Mapping map) {
    problems.unknownKeys(map, STATE_KEYS, "key", "state");
    Optional<YamlNode.Mapping> section = Optional.of(map);
    String url = setting(section, "url", n -> off(n) ? Optional.<String>empty()
        : values.text(n, "state.url", "a state directory or a postgresql://user@host:5432/db URL"))
        .flatMap(text -> stateUrl(map.get("url").orElseThrow(), text)).orElse(null);
    Duration leaseTimeout = setting(section, "lease_timeout", this::leaseTimeout)
        .orElse(StateConfig.DEFAULT_LEASE_TIMEOUT);
    return new StateConfig(url, leaseTimeout);
  }

  private Optional<String> stateUrl(YamlNode node, String text) {
    if (text.isBlank()) {
      problems.at(node, "state.url is empty; name a state directory or a postgresql:// URL, or leave the key out "
          + "for the project's .orchestrate/");
      return Optional.empty();
    }
    if (URL_PASSWORD.matcher(text).matches()) {
      problems.at(node, "state.url contains a password, which would be read by everyone who reads this file and "
          + "shown in messages; remove it, and set PGPASSWORD or put the password in ~/.pgpass (or the file "
          + "PGPASSFILE names) instead");
      return Optional.empty();
    }
    return Optional.of(text.strip());
  }

  private Optional<Duration> leaseTimeout(YamlNode node) {
    return duration(node, "state.lease_timeout", Ranges.LEASE_TIMEOUT).flatMap(d -> {
      if (d.compareTo(Ranges.LEASE_TIMEOUT_MIN) < 0) {
        problems.at(node, "state.lease_timeout must be at least " + Durations.format(Ranges.LEASE_TIMEOUT_MIN)
            + " (a runner renews its heartbeat every third of it), got " + node.describe());
        return Optional.empty();
      }
      return Optional.of(d);
    });
  }

  private RetentionConfig retention(YamlNode.Mapping map) {
    problems.unknownKeys(map, RETENTION_KEYS, "key", "retention");
    RetentionConfig defaults = RetentionConfig.defaults();
    Optional<YamlNode.Mapping> section = Optional.of(map);
    Duration interval = setting(section, "maintenance_interval",
        n -> duration(n, "retention.maintenance_interval", Ranges.MAINTENANCE_INTERVAL))
        .orElse(defaults.maintenanceInterval());
    int budget = setting(section, "budget", n -> values.integer(n, "retention.budget", 1, Ranges.RETENTION_BUDGET))
        .orElse(defaults.budget());
    return new RetentionConfig(interval, budget,
        policy(map, StructureName.JOBS.key(), defaults.jobs()),
        policy(map, StructureName.TURNS.key(), defaults.turns()),
        policy(map, StructureName.EVENTS.key(), defaults.events()),
        policy(map, StructureName.STATS_SAMPLES.key(), defaults.statsSamples()),
        worktreesRetention(map, defaults.worktrees()));
  }

  /** retention.worktrees: a policy like the others, plus discard_uncommitted. */
  private RetentionConfig.WorktreePolicy worktreesRetention(YamlNode.Mapping retention,
      RetentionConfig.WorktreePolicy defaults) {
    RetentionConfig.Policy policy = policy(retention, "worktrees", defaults.policy());
    boolean discard = retention.get("worktrees").filter(YamlNode.Mapping.class::isInstance)
        .flatMap(n -> ((YamlNode.Mapping) n).get("discard_uncommitted"))
        .flatMap(n -> values.bool(n, "retention.worktrees.discard_uncommitted"))
        .orElse(defaults.discardUncommitted());
    return new RetentionConfig.WorktreePolicy(policy, discard);
  }

  /**
   * One structure's policy. A key left out keeps its default; {@code none} (or null) switches that
   * limit off. An entry with neither limit would let the structure grow without bound, which is
   * allowed but must be asked for explicitly.
   */
  private RetentionConfig.Policy policy(YamlNode.Mapping retention, String structure,
      RetentionConfig.Policy defaults) {
    String subject = "retention." + structure;
    Optional<YamlNode.Mapping> entry = retention.get(structure).flatMap(n -> values.mapping(n, subject,
        "a map like {max_rows: 10000, max_age: 30d}"));
    if (entry.isEmpty()) {
      return defaults;
    }
    problems.unknownKeys(entry.get(), structure.equals(StructureName.EVENTS.key()) ? EVENTS_RETENTION_KEYS
        : structure.equals(StructureName.WORKTREES.key()) ? WORKTREES_RETENTION_KEYS : STRUCTURE_RETENTION_KEYS, "key",
        subject);
    Integer maxRows = defaults.maxRows();
    String rowsKey = "max_rows";
    Optional<YamlNode> rows = entry.get().get(rowsKey);
    if (rows.isEmpty() && structure.equals("events")) {
      rowsKey = "keep_recent";
      rows = entry.get().get(rowsKey);
    }
    if (rows.isPresent()) {
      maxRows = off(rows.get()) ? null : values.integer(rows.get(), subject + "." + rowsKey, 0, Ranges.MAX_ROWS)
          .orElse(maxRows);
    }
    Duration maxAge = defaults.maxAge();
    Optional<YamlNode> age = entry.get().get("max_age");
    if (age.isPresent()) {
      maxAge = off(age.get()) ? null : duration(age.get(), subject + ".max_age", Ranges.MAX_AGE).orElse(maxAge);
    }
    return RetentionConfig.Policy.of(maxRows, maxAge);
  }

  /** {@code none} or an empty value: no limit. */
  private static boolean off(YamlNode node) {
    return node instanceof YamlNode.Scalar scalar
        && (scalar.kind() == YamlNode.Scalar.Kind.NULL || "none".equals(scalar.text()));
  }

  /** A top-level section; absent or empty reads as an empty map, a wrong type is reported. */
  private Optional<YamlNode.Mapping> section(YamlNode.Mapping root, String key) {
    return root.get(key).flatMap(n -> values.mapping(n, key, "a map"));
  }

  private static <T> Optional<T> setting(Optional<YamlNode.Mapping> section, String key,
      Function<YamlNode, Optional<T>> read) {
    return section.flatMap(s -> s.get(key)).flatMap(read);
  }

  private AgentConfig agent(YamlNode.Mapping map) {
    return agent(map, true);
  }

  /** {@code checkKeys}: false for a profile of agents:, whose keys the caller checked (it has max_concurrent too). */
  private AgentConfig agent(YamlNode.Mapping map, boolean checkKeys) {
    if (checkKeys) {
      problems.unknownKeys(map, AGENT_KEYS, "key", "agent");
    }
    AgentConfig defaults = AgentConfig.defaults();
    Optional<YamlNode.Mapping> section = Optional.of(map);
    List<String> command = setting(section, "command", this::command).orElse(defaults.command());
    AgentPreset preset = setting(section, "preset", n -> values.choice(n, "agent.preset",
        Values.words(AgentPreset.values()))).orElse(AgentPreset.COMMAND);
    if (map.get("preset").filter(n -> n instanceof YamlNode.Scalar p && "command".equals(p.text())).isPresent()
        && map.get("command").isEmpty()) {
      problems.at(map.get("preset").get(), "agent.preset: command needs agent.command (the program and its "
          + "arguments, e.g. " + COMMAND_EXAMPLE + "), or name a preset: claude, codex, gemini or opencode");
    }
    List<String> args = setting(section, "args", n -> values.strings(n, "agent.args", "", "argument"))
        .orElse(List.of());
    return new AgentConfig(
        preset.argv(command, args),
        setting(section, "timeout", n -> duration(n, "agent.timeout", Ranges.AGENT_TIMEOUT)).orElse(defaults.timeout()),
        setting(section, "kill_grace", n -> duration(n, "agent.kill_grace", Ranges.KILL_GRACE))
            .orElse(defaults.killGrace()),
        setting(section, "env", this::env).orElse(defaults.env()),
        setting(section, "result_fallback", n -> values.choice(n, "agent.result_fallback",
            Values.words(ResultFallback.values()))).orElse(defaults.resultFallback()),
        setting(section, "log_max_bytes", this::logMaxBytes).orElse(defaults.logMaxBytes()),
        setting(section, "output_tail_chars",
            n -> values.integer(n, "agent.output_tail_chars", MIN_OUTPUT_TAIL_CHARS, Ranges.OUTPUT_TAIL_CHARS))
            .orElse(defaults.outputTailChars()),
        preset, args,
        setting(section, "stall_timeout", this::stallTimeout).orElse(null))
        .withSafety(
            setting(section, "secret_env", this::secretEnv).orElse(defaults.secretEnv()),
            setting(section, "stop_leftover_processes", n -> values.bool(n, "agent.stop_leftover_processes"))
                .orElse(defaults.stopLeftoverProcesses()),
            setting(section, "pass_summarizer_key", n -> values.bool(n, "agent.pass_summarizer_key"))
                .orElse(defaults.passSummarizerKey()))
        .withLimits(
            setting(section, "on_usage_limit", n -> values.choice(n, "agent.on_usage_limit",
                Values.words(OnUsageLimit.values()))).orElse(defaults.onUsageLimit()),
            setting(section, "max_wait", n -> duration(n, "agent.max_wait", Ranges.MAX_WAIT))
                .orElse(defaults.maxWait()))
        .withResume(setting(section, "resume", n -> values.bool(n, "agent.resume")).orElse(false));
  }

  /** {@code off} (the default) or a duration of at least a second: shorter would stop agents that think. */
  private Optional<Duration> stallTimeout(YamlNode node) {
    if (node instanceof YamlNode.Scalar scalar && ("off".equals(scalar.text()) || scalar.isNull())) {
      return Optional.empty();
    }
    return duration(node, "agent.stall_timeout", Ranges.AGENT_TIMEOUT).flatMap(d -> {
      if (d.compareTo(Duration.ofSeconds(1)) < 0) {
        problems.at(node, "agent.stall_timeout must be at least 1s (or off), got " + ((YamlNode.Scalar) node).text());
        return Optional.empty();
      }
      return Optional.of(d);
    });
  }

  /** A spend limit in US dollars: a positive number such as 5 or 0.50. */
  private Optional<Double> maxCostUsd(YamlNode node) {
    return usd(node, "execution.max_cost_usd");
  }

  private Optional<Double> usd(YamlNode node, String subject) {
    if (node instanceof YamlNode.Scalar scalar
        && (scalar.kind() == YamlNode.Scalar.Kind.INTEGER || scalar.kind() == YamlNode.Scalar.Kind.FLOAT)) {
      try {
        double usd = Double.parseDouble(scalar.text());
        if (usd > 0 && usd <= 1_000_000) {
          return Optional.of(usd);
        }
        problems.at(node, subject + " must be more than 0 and at most 1000000 (US dollars), got " + scalar.text());
        return Optional.empty();
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    problems.expected(node, subject, "an amount in US dollars such as 5 or 0.50");
    return Optional.empty();
  }

  /** A token limit: a positive whole number up to 10^12. */
  private Optional<Long> maxTokens(YamlNode node) {
    return tokens(node, "execution.max_tokens");
  }

  private Optional<Long> tokens(YamlNode node, String subject) {
    if (node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Scalar.Kind.INTEGER) {
      java.math.BigInteger value = scalar.integer();
      if (value.signum() > 0 && value.compareTo(java.math.BigInteger.TEN.pow(12)) <= 0) {
        return Optional.of(value.longValue());
      }
      problems.at(node, subject + " must be at least 1 and at most 1000000000000, got " + scalar.text());
      return Optional.empty();
    }
    problems.expected(node, subject, "a number of tokens such as 2000000");
    return Optional.empty();
  }

  /** agent.secret_env: names of environment variables, checked like agent.env's. */
  private Optional<List<String>> secretEnv(YamlNode node) {
    Optional<List<String>> names = values.strings(node, "agent.secret_env", "", "variable name");
    if (names.isEmpty() || !(node instanceof YamlNode.Sequence list)) {
      return names;
    }
    boolean ok = true;
    for (int i = 0; i < names.get().size(); i++) {
      String name = names.get().get(i);
      if (!ENV_NAME.matcher(name).matches()) {
        problems.at(list.items().get(i), "bad environment variable name " + Quote.value(name)
            + " in agent.secret_env: use letters, digits and '_', not starting with a digit");
        ok = false;
      }
    }
    return ok ? names : Optional.empty();
  }

  private Optional<List<String>> command(YamlNode node) {
    if (node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Scalar.Kind.STRING) {
      List<String> words = List.of(scalar.text().strip().split("\\s+"));
      String example = scalar.text().isBlank() ? COMMAND_EXAMPLE
          : words.stream().map(w -> "\"" + w + "\"").collect(Collectors.joining(", ", "[", "]"));
      problems.at(node, "agent.command must be a list (argv, no shell), not a string: write it as "
          + example);
      return Optional.empty();
    }
    Optional<List<String>> command = values.strings(node, "agent.command", "", "argument");
    if (command.isPresent() && command.get().isEmpty()) {
      problems.at(node, "agent.command is empty: give the program and its arguments, e.g. "
          + COMMAND_EXAMPLE);
      return Optional.empty();
    }
    return command;
  }

  private Optional<Duration> duration(YamlNode node, String subject, Duration max) {
    return duration(node, subject).flatMap(d -> {
      if (d.compareTo(max) <= 0) {
        return Optional.of(d);
      }
      String limit = max.toHoursPart() == 0 && max.toMinutesPart() == 0 && max.toSecondsPart() == 0
          && max.toMillisPart() == 0 ? max.toDays() + "d" : Durations.format(max);
      problems.at(node, subject + " must be at most " + limit + ", got " + node.describe());
      return Optional.empty();
    });
  }

  private Optional<Duration> duration(YamlNode node, String subject) {
    return values.text(node, subject, "a duration like 90s, 30m or 2h").flatMap(text -> {
      try {
        return Optional.of(Durations.parse(text));
      } catch (IllegalArgumentException e) {
        problems.at(node, subject + ": " + e.getMessage());
        return Optional.empty();
      }
    });
  }

  private Optional<Long> logMaxBytes(YamlNode node) {
    String subject = "agent.log_max_bytes";
    return values.text(node, subject, "a size like 10MiB").flatMap(text -> {
      try {
        long bytes = Sizes.parse(text);
        if (bytes > Ranges.LOG_MAX_BYTES) {
          problems.at(node, subject + " must be at most " + Sizes.format(Ranges.LOG_MAX_BYTES) + ", got "
              + Quote.escaped(text));
          return Optional.empty();
        }
        if (bytes > 0) {
          return Optional.of(bytes);
        }
        problems.at(node, subject + " must be at least 1 byte, got " + text);
      } catch (IllegalArgumentException e) {
        problems.at(node, subject + ": " + e.getMessage());
      }
      return Optional.empty();
    });
  }

  private Optional<Map<String, String>> env(YamlNode node) {
    Optional<YamlNode.Mapping> map = values.mapping(node, "agent.env", "a map of variable names to values");
    if (map.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> env = new LinkedHashMap<>();
    boolean ok = true;
    for (YamlNode.Entry entry : map.get().entries()) {
      String name = entry.key().name();
      if (!ENV_NAME.matcher(name).matches()) {
        problems.at(entry.key(), "bad environment variable name " + Quote.value(name)
            + " in agent.env: use letters, digits and '_', not starting with a digit");
        ok = false;
        continue;
      }
      Optional<String> value = values.text(entry.value(), "agent.env." + name,
          "a string (write \"\" for an empty value)");
      ok &= value.isPresent();
      value.ifPresent(v -> env.put(name, v));
    }
    return ok ? Optional.of(env) : Optional.empty();
  }

  private ExecutionConfig execution(YamlNode.Mapping map) {
    problems.unknownKeys(map, EXECUTION_KEYS, "key", "execution");
    Optional<YamlNode.Mapping> section = Optional.of(map);
    return new ExecutionConfig(
        setting(section, "max_wip", n -> values.integer(n, "execution.max_wip", 1, Ranges.MAX_WIP))
            .orElse(ExecutionConfig.DEFAULT_MAX_WIP),
        setting(section, "max_concurrent", n -> values.integer(n, "execution.max_concurrent", 1, Ranges.MAX_CONCURRENT))
            .orElse(ExecutionConfig.DEFAULT_MAX_CONCURRENT),
        setting(section, "max_retries", n -> values.integer(n, "execution.max_retries", 0, Ranges.MAX_RETRIES))
            .orElse(ExecutionConfig.DEFAULT_MAX_RETRIES),
        setting(section, "circuit_breaker",
            n -> values.integer(n, "execution.circuit_breaker", 1, Ranges.CIRCUIT_BREAKER))
            .orElse(ExecutionConfig.DEFAULT_CIRCUIT_BREAKER),
        setting(section, "phase_cap", n -> values.integer(n, "execution.phase_cap", 1, Ranges.PHASE_CAP))
            .orElse(ExecutionConfig.DEFAULT_PHASE_CAP),
        setting(section, "max_cost_usd", this::maxCostUsd).orElse(null),
        setting(section, "max_tokens", this::maxTokens).orElse(null),
        workspace(section));
  }

  /** The execution.workspace keys (docs/workspaces.md). */
  private WorkspaceConfig workspace(Optional<YamlNode.Mapping> section) {
    WorkspaceConfig defaults = WorkspaceConfig.defaults();
    return new WorkspaceConfig(
        setting(section, "workspace", n -> values.choice(n, "execution.workspace",
            Values.words(WorkspaceConfig.Mode.values()))).orElse(defaults.mode()),
        setting(section, "base_branch", this::branch).orElse(defaults.baseBranch()),
        setting(section, "merge", n -> values.choice(n, "execution.merge",
            Values.words(WorkspaceConfig.Merge.values()))).orElse(defaults.merge()),
        setting(section, "delete_merged_branches", n -> values.bool(n, "execution.delete_merged_branches"))
            .orElse(defaults.deleteMergedBranches()),
        setting(section, "commit_author", this::author).orElse(defaults.commitAuthor()),
        setting(section, "destructive_runs_alone", n -> values.bool(n, "execution.destructive_runs_alone"))
            .orElse(defaults.destructiveRunsAlone()));
  }

  private Optional<String> branch(YamlNode node) {
    if (off(node)) {
      return Optional.empty(); // null: the branch checked out when the run starts
    }
    return values.nonBlank(node, "execution.base_branch", "a branch name like main").flatMap(name -> {
      String branch = name.startsWith("refs/heads/") ? name.substring("refs/heads/".length()) : name;
      if (BRANCH.matcher(branch).matches() && !branch.endsWith(".lock")) {
        return Optional.of(branch);
      }
      problems.at(node, "execution.base_branch '" + name + "' is not a branch name git accepts here: use letters, "
          + "digits and . _ / - (like main or release/2.x)");
      return Optional.empty();
    });
  }

  private Optional<WorkspaceConfig.Author> author(YamlNode node) {
    return values.nonBlank(node, "execution.commit_author", "\"Name <email>\"").flatMap(text -> {
      Optional<WorkspaceConfig.Author> author = WorkspaceConfig.Author.parse(text);
      if (author.isEmpty()) {
        problems.at(node, "execution.commit_author must read \"Name <email>\", like \"orchestrate "
            + "<orchestrate@localhost>\", got '" + text + "'");
      }
      return author;
    });
  }

  private Map<String, Pipeline> pipelines(YamlNode.Entry entry) {
    Optional<YamlNode.Mapping> map = values.mapping(entry.value(), "pipelines",
        "a map of pipeline names to pipelines");
    Map<String, Pipeline> pipelines = new LinkedHashMap<>();
    if (map.isPresent() && map.get().entries().isEmpty()) {
      problems.at(entry.key(), "pipelines is empty: define at least one pipeline, or remove the key "
          + "to use the built-in '" + Config.DEFAULT_PIPELINE + "' pipeline");
    }
    for (YamlNode.Entry pipeline : map.map(YamlNode.Mapping::entries).orElse(List.of())) {
      pipeline(pipeline).ifPresent(p -> pipelines.put(p.name(), p));
    }
    return pipelines;
  }

  private Optional<Pipeline> pipeline(YamlNode.Entry entry) {
    String name = entry.key().name();
    boolean ok = true;
    if (!Names.isValidName(name)) {
      problems.at(entry.key(), "bad pipeline name " + Quote.value(name) + ": " + Names.NAME_RULE);
      ok = false;
    }
    String label = "pipeline " + Quote.value(name);
    if (entry.value() instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      problems.at(entry.key(), label + " has no phases");
      return Optional.empty();
    }
    Optional<YamlNode.Mapping> map = values.mapping(entry.value(), label,
        "a map with phases and optional pre_phases");
    if (map.isEmpty()) {
      return Optional.empty();
    }
    problems.unknownKeys(map.get(), PIPELINE_KEYS, "key", label);
    Map<String, Integer> seen = new LinkedHashMap<>();
    Optional<List<PhaseDef>> prePhases = map.get().get("pre_phases")
        .map(n -> phases(n, name, "pre_phases", seen))
        .orElse(Optional.of(List.of()));
    Optional<YamlNode> phasesNode = map.get().get("phases");
    Optional<List<PhaseDef>> phases = phasesNode.map(n -> phases(n, name, "phases", seen))
        .orElse(Optional.of(List.of()));
    if (phases.isPresent() && phases.get().isEmpty()) {
      // absent, null or []: point at the pipeline's name, or at the empty list
      if (phasesNode.isPresent() && phasesNode.get() instanceof YamlNode.Sequence empty) {
        problems.at(empty, label + " has no phases");
      } else {
        problems.at(entry.key(), label + " has no phases");
      }
      ok = false;
    }
    if (!ok || prePhases.isEmpty() || phases.isEmpty()) {
      return Optional.empty();
    }
    Optional<List<ProjectCommand>> verify = map.get().get("verify").isPresent()
        ? projectCommands(map.get().get("verify").get(), "verify of " + label)
        : Optional.of(List.of());
    if (verify.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Pipeline(name, prePhases.get(), phases.get(), profileRef(map.get(), label).orElse(null),
        fallbackRefs(map.get(), label), verify.get()));
  }

  /** The phases of one list, or empty if any of them is wrong (each wrong one is reported). */
  private Optional<List<PhaseDef>> phases(YamlNode node, String pipeline, String key,
      Map<String, Integer> seen) {
    if (node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(List.of());
    }
    if (!(node instanceof YamlNode.Sequence list)) {
      problems.expected(node, key + " of pipeline " + Quote.value(pipeline), "a list of phases");
      return Optional.empty();
    }
    List<PhaseDef> phases = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < list.items().size(); i++) {
      String path = "pipelines." + pipeline + "." + key + "[" + i + "]";
      Optional<PhaseDef> phase = phase(list.items().get(i), pipeline, path, seen);
      ok &= phase.isPresent();
      phase.ifPresent(phases::add);
    }
    return ok ? Optional.of(phases) : Optional.empty();
  }

  private Optional<PhaseDef> phase(YamlNode node, String pipeline, String path, Map<String, Integer> seen) {
    if (!(node instanceof YamlNode.Mapping map)) {
      problems.expected(node, path, "a map with name and instructions or workflow");
      return Optional.empty();
    }
    Optional<String> name = phaseName(map, pipeline, path, seen);
    String label = name.map(n -> "phase " + Quote.value(n) + " of pipeline " + Quote.value(pipeline)).orElse(path);
    problems.unknownKeys(map, PHASE_KEYS, "key", label);
    Optional<YamlNode> instructionsNode = map.get("instructions");
    Optional<YamlNode> workflowNode = map.get("workflow");
    boolean exactlyOne = instructionsNode.isPresent() != workflowNode.isPresent();
    if (!exactlyOne) {
      problems.at(map, label + (instructionsNode.isPresent()
          ? " has both instructions and workflow; keep one"
          : " needs instructions or a workflow"));
    }
    Optional<String> instructions = instructionsNode
        .flatMap(n -> values.nonBlank(n, "instructions in " + label, "non-empty text"));
    Optional<String> workflow = workflowNode.flatMap(this::workflow);
    Optional<Boolean> destructive = map.get("destructive").isPresent()
        ? values.bool(map.get("destructive").get(), "destructive in " + label)
        : Optional.of(false);
    Optional<List<ProjectCommand>> verify = map.get("verify").isPresent()
        ? projectCommands(map.get("verify").get(), "verify of " + label)
        : Optional.of(List.<ProjectCommand>of());
    Optional<PhaseDef.Changes> changes = map.get("changes").isPresent()
        ? values.choice(map.get("changes").get(), "changes in " + label, Values.words(PhaseDef.Changes.values()))
        : Optional.of(PhaseDef.Changes.OPTIONAL);
    if (!exactlyOne || name.isEmpty() || (instructions.isEmpty() && workflow.isEmpty())
        || destructive.isEmpty() || verify.isEmpty() || changes.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new PhaseDef(name.get(), instructions.orElse(null), workflow.orElse(null),
        destructive.get(), profileRef(map, label).orElse(null), fallbackRefs(map, label))
        .withVerify(map.get("verify").isPresent() ? verify.get() : null, changes.get()));
  }

  private Optional<String> phaseName(YamlNode.Mapping map, String pipeline, String path,
      Map<String, Integer> seen) {
    Optional<YamlNode> node = map.get("name");
    if (node.isEmpty()) {
      problems.at(map, path + " has no name");
      return Optional.empty();
    }
    Optional<String> name = values.nonBlank(node.get(), "name in " + path, "a phase name");
    if (name.isEmpty()) {
      return Optional.empty();
    }
    if (!Names.isValidName(name.get())) {
      problems.at(node.get(), "bad phase name " + Quote.value(name.get()) + " in pipeline " + Quote.value(pipeline)
          + ": " + Names.NAME_RULE);
      return Optional.empty();
    }
    Integer first = seen.putIfAbsent(name.get(), node.get().line());
    if (first != null) {
      problems.at(node.get(), "duplicate phase " + Quote.value(name.get()) + " in pipeline " + Quote.value(pipeline)
          + " (first defined at line " + first + ")");
      return Optional.empty();
    }
    return name;
  }

  /** The workflow file, resolved against the config file's directory, as an absolute path. */
  private Optional<String> workflow(YamlNode node) {
    return values.nonBlank(node, "workflow", "a file path").flatMap(text -> {
      Path path;
      try {
        path = directory.resolve(text).normalize();
      } catch (java.nio.file.InvalidPathException e) {
        problems.at(node, "workflow " + Quote.value(text) + " is not a valid path");
        return Optional.empty();
      }
      if (Files.isDirectory(path)) {
        problems.at(node, "workflow " + Quote.value(text) + " is a directory, not a file (" + path + ")");
        return Optional.empty();
      }
      if (!Files.isRegularFile(path)) {
        problems.at(node, "workflow file " + Quote.value(text) + " not found (looked for " + path + ")");
        return Optional.empty();
      }
      return Optional.of(path.toString());
    });
  }

  private String defaultPipeline(YamlNode.Mapping root, Map<String, Pipeline> pipelines) {
    // Names of every pipeline written in the file, valid or not, so that one broken pipeline
    // does not also produce a "not defined" problem here.
    List<String> declared = root.get("pipelines")
        .filter(YamlNode.Mapping.class::isInstance)
        .map(n -> ((YamlNode.Mapping) n).entries().stream().map(e -> e.key().name()).toList())
        .orElse(List.copyOf(pipelines.keySet()));
    Optional<YamlNode.Entry> entry = root.entry("default_pipeline");
    if (entry.isEmpty()) {
      if (!declared.isEmpty() && !declared.contains(Config.DEFAULT_PIPELINE)) {
        problems.at(root.entry("pipelines").orElseThrow().key(), "default_pipeline is not set and no "
            + "pipeline is named '" + Config.DEFAULT_PIPELINE + "'; set default_pipeline to one of: "
            + String.join(", ", declared));
      }
      return Config.DEFAULT_PIPELINE;
    }
    YamlNode node = entry.get().value();
    Optional<String> name = values.nonBlank(node, "default_pipeline", "a pipeline name");
    if (name.isPresent() && !declared.isEmpty() && !declared.contains(name.get())) {
      problems.at(node, "default_pipeline " + Quote.value(name.get()) + " is not a defined pipeline; defined "
          + "pipelines: " + String.join(", ", declared));
    }
    return name.orElse(Config.DEFAULT_PIPELINE);
  }

  private ContextConfig context(YamlNode.Mapping map) {
    problems.unknownKeys(map, CONTEXT_KEYS, "key", "context");
    Optional<YamlNode.Mapping> section = Optional.of(map);
    int min = ContextConfig.MIN_MAX_CHARS;
    return new ContextConfig(
        setting(section, "window_size", n -> values.integer(n, "context.window_size", 1, Ranges.WINDOW_SIZE))
            .orElse(ContextConfig.DEFAULT_WINDOW_SIZE),
        setting(section, "turn_max_chars", n -> values.integer(n, "context.turn_max_chars", min, Ranges.TURN_MAX_CHARS))
            .orElse(ContextConfig.DEFAULT_TURN_MAX_CHARS),
        setting(section, "summary_max_chars",
            n -> values.integer(n, "context.summary_max_chars", min, Ranges.SUMMARY_MAX_CHARS))
            .orElse(ContextConfig.DEFAULT_SUMMARY_MAX_CHARS),
        setting(section, "summarizer", this::summarizer).orElse(SummarizerConfig.defaults()));
  }

  private Optional<SummarizerConfig> summarizer(YamlNode node) {
    Optional<YamlNode.Mapping> map = values.mapping(node, "context.summarizer", "a map like {kind: builtin}");
    if (map.isEmpty() || map.get().entries().isEmpty()) {
      return Optional.empty();
    }
    Optional<YamlNode> kindNode = map.get().get("kind");
    if (kindNode.isEmpty()) {
      problems.at(map.get(), "context.summarizer has no kind; write {kind: builtin}");
      return Optional.empty();
    }
    Optional<SummarizerConfig.Kind> kind = values.choice(kindNode.get(), "context.summarizer.kind",
        Values.words(SummarizerConfig.Kind.values()));
    if (kind.isEmpty()) {
      return Optional.empty();
    }
    Optional<YamlNode.Mapping> section = map;
    SummarizerConfig.Fallback fallback = setting(section, "fallback", n -> values.choice(n,
        "context.summarizer.fallback", Values.words(SummarizerConfig.Fallback.values())))
        .orElse(SummarizerConfig.Fallback.BUILTIN);
    String prompt = setting(section, "prompt", n -> values.nonBlank(n, "context.summarizer.prompt",
        "non-empty text")).orElse(null);
    Duration timeout = setting(section, "timeout",
        n -> duration(n, "context.summarizer.timeout", Ranges.SUMMARIZER_TIMEOUT))
        .orElse(SummarizerConfig.DEFAULT_TIMEOUT);
    switch (kind.get()) {
      case BUILTIN -> {
        problems.unknownKeys(map.get(), BUILTIN_KEYS, "key", "context.summarizer of kind builtin");
        return Optional.of(SummarizerConfig.builtin(fallback, prompt));
      }
      case OPENAI -> {
        problems.unknownKeys(map.get(), OPENAI_KEYS, "key", "context.summarizer of kind openai");
        Optional<String> baseUrl = required(map.get(), "base_url", "an http(s) URL like https://api.openai.com/v1")
            .flatMap(url -> httpUrl(map.get().get("base_url").orElseThrow(), url));
        Optional<String> model = required(map.get(), "model", "a model name");
        String keyEnv = setting(section, "api_key_env", this::envName).orElse(null);
        if (baseUrl.isEmpty() || model.isEmpty()) {
          return Optional.empty();
        }
        return Optional.of(SummarizerConfig.openai(baseUrl.get(), model.get(), keyEnv, timeout, fallback, prompt));
      }
      case COMMAND -> {
        problems.unknownKeys(map.get(), COMMAND_KEYS, "key", "context.summarizer of kind command");
        Optional<YamlNode> commandNode = map.get().get("command");
        if (commandNode.isEmpty()) {
          problems.at(map.get(), "context.summarizer of kind command needs command: a list (argv), e.g. "
              + "[\"llm\", \"-m\", \"gpt-4o-mini\"]");
          return Optional.empty();
        }
        Optional<List<String>> command = values.strings(commandNode.get(), "context.summarizer.command", "",
            "argument");
        if (command.isPresent() && command.get().isEmpty()) {
          problems.at(commandNode.get(), "context.summarizer.command is empty: give the program and its arguments");
          return Optional.empty();
        }
        return command.map(c -> SummarizerConfig.command(c, timeout, fallback, prompt));
      }
      default -> throw new IllegalStateException("unhandled summarizer kind " + kind.get());
    }
  }

  private Optional<String> required(YamlNode.Mapping map, String key, String expectation) {
    Optional<YamlNode> node = map.get(key);
    if (node.isEmpty()) {
      problems.at(map, "context.summarizer of kind openai needs " + key + " (" + expectation + ")");
      return Optional.empty();
    }
    return values.nonBlank(node.get(), "context.summarizer." + key, expectation);
  }

  private Optional<String> httpUrl(YamlNode node, String url) {
    if (url.startsWith("http://") || url.startsWith("https://")) {
      try {
        java.net.URI.create(url);
        return Optional.of(url);
      } catch (IllegalArgumentException e) {
        // reported below
      }
    }
    problems.at(node, "context.summarizer.base_url must be an http(s) URL like https://api.openai.com/v1, got "
        + Quote.value(url));
    return Optional.empty();
  }

  private Optional<String> envName(YamlNode node) {
    return values.nonBlank(node, "context.summarizer.api_key_env", "an environment variable name").flatMap(name -> {
      if (ENV_NAME.matcher(name).matches()) {
        return Optional.of(name);
      }
      problems.at(node, "bad environment variable name " + Quote.value(name) + " in context.summarizer.api_key_env: "
          + "use letters, digits and '_', not starting with a digit");
      return Optional.empty();
    });
  }

  /** A section that is accepted only empty, for configs written by earlier versions. */
  private void noKeys(YamlNode.Mapping map, String section, String why) {
    for (YamlNode.Entry entry : map.entries()) {
      problems.at(entry.key(), "unknown key " + Quote.value(entry.key().name()) + " in " + section + ": " + why);
    }
  }
}
