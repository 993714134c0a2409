package dev.orchestrate.config;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.limits.StructureName;
import dev.orchestrate.notify.NotifyConfigParser;
import dev.orchestrate.notify.NotifySink;
import dev.orchestrate.yaml.Problems;
import dev.orchestrate.yaml.Sizes;
import dev.orchestrate.yaml.ValidationException;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import dev.orchestrate.yaml.YamlReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads {@code orchestrate.yaml} (docs/configuration.md) into a validated {@link Config}. Every key is
 * checked; missing keys take the published defaults; every problem in the file is reported at
 * once, each at its line and column.
 */
public final class ConfigLoader extends SectionReader {
  public static final List<String> TOP_KEYS = List.of("agent", "agents", "execution", "default_pipeline",
      "pipelines", "context", "memory", "retention", "state", "limits", "budget", "workspace",
      NotifyConfigParser.KEY, "backlog");
  public static final List<String> BACKLOG_KEYS = List.of("max_bytes", "source");
  public static final List<String> BACKLOG_SOURCE_KEYS = List.of("command", "timeout", "refresh", "id_field",
      "id_prefix", "on_done", "on_blocked", "on_awaiting_review");
  public static final List<String> WORKSPACE_KEYS = List.of("setup", "copy");
  public static final List<String> PROJECT_COMMAND_KEYS = List.of("name", "run", "timeout");
  public static final List<String> BUDGET_KEYS = List.of("per_day", "per_week", "tokens_per_day", "tokens_per_week");
  public static final List<String> STATE_KEYS = List.of("url", "lease_timeout");
  /** A password in a URL's user part ({@code //user:secret@}) or as a parameter. */
  private static final Pattern URL_PASSWORD = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://[^/?#@]*:[^/?#]*@.*"
      + "|.*[?&][Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]=.*", Pattern.DOTALL);
  public static final List<String> AGENT_KEYS = List.of("command", "timeout", "kill_grace", "env",
      "result_fallback", "log_max_bytes", "output_tail_chars", "preset", "args", "stall_timeout",
      "secret_env", "stop_leftover_processes", "pass_summarizer_key", "on_usage_limit", "max_wait", "resume", "sandbox",
      "sandbox_writable", "sandbox_gate_network", "sandbox_hidden", "acp");
  /** The keys of {@code agent.acp}. */
  public static final List<String> ACP_KEYS = List.of("permissions");
  /** The keys of a profile of agents: the keys of agent:, and its own concurrency cap. */
  public static final List<String> PROFILE_KEYS = java.util.stream.Stream.concat(AGENT_KEYS.stream(),
      java.util.stream.Stream.of("max_concurrent")).toList();
  public static final List<String> EXECUTION_KEYS = List.of("max_wip", "max_concurrent", "max_retries",
      "circuit_breaker", "phase_cap", "max_cost_usd", "max_tokens", "workspace", "base_branch", "merge",
      "delete_merged_branches", "commit_author", "destructive_runs_alone", "remote", "pull_request",
      "pull_request_timeout", "checks", "checks_interval", "checks_timeout", "checks_max_rounds", "checks_phase",
      "integration_batch", "landing", "review_feedback", "review_feedback_max_rounds", "review_feedback_phase",
      "review_feedback_timeout", "land", "land_command");
  public static final List<String> PIPELINE_KEYS = List.of("pre_phases", "phases", "agent", "fallback", "verify",
      "integration_verify", "integration_max_rounds", "verify_protected", "review", "review_timeout",
      "on_review_timeout");
  public static final List<String> PHASE_KEYS = List.of("name", "instructions", "workflow", "destructive", "agent",
      "fallback", "verify", "changes", "changes_gates");
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
  public static final List<String> STRUCTURE_RETENTION_KEYS = List.of("max_rows", "max_age");
  /** events.keep_recent, from before max_rows existed, still reads as events.max_rows. */
  public static final List<String> EVENTS_RETENTION_KEYS = List.of("max_rows", "max_age", "keep_recent");
  public static final int MIN_OUTPUT_TAIL_CHARS = 100;

  private final AgentsSection agents = new AgentsSection(this);
  private final ExecutionSection execution = new ExecutionSection(this);
  private final PipelinesSection pipelines = new PipelinesSection(this);
  private final ContextSection context = new ContextSection(this);
  private final RetentionSection retention = new RetentionSection(this);

  private ConfigLoader(Path file, Problems problems) {
    super(directoryOf(file), problems, new Values(problems));
  }

  private static Path directoryOf(Path file) {
    Path parent = file.toAbsolutePath().normalize().getParent();
    return parent == null ? Path.of("").toAbsolutePath() : parent;
  }

  /**
   * Loads and validates a config file.
   *
   * @param file the file as the user named it; problems carry {@code file.toString()}
   * @return the config, with {@code source} set to {@code file}
   * @throws ValidationException with every problem found, in file order
   */
  public static Config load(Path file) {
    return load(file, true);
  }

  /**
   * The sections maintenance applies ({@code compact}): agent and agents (the secrets to mask),
   * context, memory, retention, state and notify, validated as {@link #load} validates them, with
   * the top-level keys checked; execution, pipelines, budget, backlog and workspace are left to the
   * commands that read them (as {@link #loadState} leaves every other section), and take their
   * defaults. A cron's {@code compact} then keeps the state bounded while a pipeline is being fixed.
   *
   * @throws ValidationException with every problem of those sections, in file order
   */
  public static Config loadForMaintenance(Path file) {
    return load(file, false);
  }

  private static Config load(Path file, boolean whole) {
    Problems problems = new Problems(file.toString());
    Optional<Config> config = YamlReader.read(file, problems, YamlReader.MAX_CONFIG_BYTES,
        "move long phase instructions into workflow files")
        .flatMap(root -> new ConfigLoader(file, problems).config(root, file, whole));
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

  private Optional<Config> config(YamlNode root, Path file, boolean whole) {
    if (!(root instanceof YamlNode.Mapping map)) {
      problems.expected(root, "a config file", "a map of settings (agent, execution, pipelines, ...)");
      return Optional.empty();
    }
    problems.unknownKeys(map, TOP_KEYS, "key", "the config");
    Map<String, AgentConfig> agents = map.get("agents").isPresent()
        ? this.agents.agents(map.entry("agents").orElseThrow())
        : Map.of();
    // Without an agent: block, the first of agents: is the default profile.
    AgentConfig agent = section(map, "agent").map(this.agents::agent)
        .orElse(agents.isEmpty() ? AgentConfig.defaults() : agents.values().iterator().next());
    if (map.get("agent").isPresent() && agents.containsKey(agent.profileName())) {
      problems.at(map.entry("agents").orElseThrow().key(), "agents." + agent.profileName() + " has the name of the "
          + "agent: block's profile (named by its preset): give it another name");
    }
    // Not whole: what maintenance applies alone (loadForMaintenance), the rest at its defaults.
    ExecutionConfig execution = whole ? section(map, "execution").map(this.execution::execution)
        .orElse(ExecutionConfig.defaults()) : ExecutionConfig.defaults();
    Map<String, Pipeline> pipelines = whole && map.get("pipelines").isPresent()
        ? this.pipelines.pipelines(map.entry("pipelines").orElseThrow())
        : Config.defaults().pipelines();
    String defaultPipeline = whole ? this.pipelines.defaultPipeline(map, pipelines) : Config.DEFAULT_PIPELINE;
    ContextConfig context = section(map, "context").map(this.context::context).orElse(ContextConfig.defaults());
    Optional<YamlNode.Mapping> memory = section(map, "memory");
    memory.ifPresent(m -> problems.unknownKeys(m, MEMORY_KEYS, "key", "memory"));
    int keepRecent = setting(memory, "keep_recent", n -> values.integer(n, "memory.keep_recent", 0, Ranges.KEEP_RECENT))
        .orElse(Config.DEFAULT_KEEP_RECENT);
    int bootChars = setting(memory, "boot_context_chars",
        n -> values.integer(n, "memory.boot_context_chars", 0, Ranges.BOOT_CONTEXT_CHARS))
        .orElse(Config.DEFAULT_BOOT_CONTEXT_CHARS);
    RetentionConfig retention = section(map, "retention").map(this.retention::retention)
        .orElse(RetentionConfig.defaults());
    StateConfig state = section(map, "state").map(this::state).orElse(StateConfig.defaults());
    List<NotifySink> notify = map.entry(NotifyConfigParser.KEY)
        .flatMap(e -> new NotifyConfigParser(problems, Durations::parse).sinks(e.value()))
        .orElse(List.of());
    Map<String, AgentConfig> others = new LinkedHashMap<>(agents);
    others.remove(agent.profileName());
    if (!whole) {
      return Optional.of(new Config(Optional.of(file), agent, execution, defaultPipeline, pipelines, context,
          keepRecent, bootChars, retention, state, BudgetConfig.NONE, others, notify, Config.DEFAULT_BACKLOG_MAX_BYTES,
          null));
    }
    section(map, "limits").ifPresent(m -> noKeys(m, "limits", LIMITS_MOVED));
    BudgetConfig budget = section(map, "budget").map(this::budget).orElse(BudgetConfig.NONE);
    Optional<YamlNode.Mapping> backlog = section(map, "backlog");
    backlog.ifPresent(m -> problems.unknownKeys(m, BACKLOG_KEYS, "key", "backlog"));
    long backlogMaxBytes = setting(backlog, "max_bytes", this::backlogMaxBytes)
        .orElse(Config.DEFAULT_BACKLOG_MAX_BYTES);
    BacklogSourceConfig backlogSource = backlog.flatMap(m -> m.get("source"))
        .flatMap(n -> values.mapping(n, "backlog.source", "a map with a command"))
        .flatMap(new BacklogSection(this)::source).orElse(null);
    Optional<YamlNode.Mapping> workspaceSection = section(map, "workspace");
    Optional<ExecutionSection.WorkspacePreparation> preparation = workspaceSection
        .flatMap(this.execution::workspacePreparation);
    if (preparation.isPresent()) {
      execution = execution.withWorkspace(execution.workspace().withPreparation(preparation.get().setup(),
          preparation.get().copy()));
      if (!execution.workspace().worktrees() && (!preparation.get().setup().isEmpty()
          || !preparation.get().copy().isEmpty())) {
        problems.at(map.entry("workspace").orElseThrow().key(), "workspace.setup and workspace.copy prepare each "
            + "item's own worktree: they need execution.workspace: worktree");
      }
    }
    this.pipelines.checkChanges(map, pipelines, execution);
    checkChecksPhase(map, pipelines, execution);
    this.pipelines.checkProfileNames(agent, others);
    return Optional.of(new Config(Optional.of(file), agent, execution, defaultPipeline, pipelines,
        context, keepRecent, bootChars, retention, state, budget, others, notify, backlogMaxBytes, backlogSource));
  }

  /** backlog.max_bytes: the largest backlog file read, a size from 1 byte to 1 GiB. */
  private Optional<Long> backlogMaxBytes(YamlNode node) {
    String subject = "backlog.max_bytes";
    return values.text(node, subject, "a size like 64MiB").flatMap(text -> {
      try {
        long bytes = Sizes.parse(text);
        if (bytes >= 1 && bytes <= Ranges.BACKLOG_MAX_BYTES) {
          return Optional.of(bytes);
        }
        problems.at(node, subject + " must be 1 byte to " + Sizes.format(Ranges.BACKLOG_MAX_BYTES) + ", got "
            + Quote.escaped(text));
      } catch (IllegalArgumentException e) {
        problems.at(node, subject + ": " + e.getMessage());
      }
      return Optional.empty();
    });
  }

  /** budget: US dollars and tokens per UTC day and ISO week, for the whole project. */
  /** execution.checks_phase names a phase of every pipeline (a red check sends an item there). */
  private void checkChecksPhase(YamlNode.Mapping map, Map<String, Pipeline> pipelines, ExecutionConfig execution) {
    ChecksConfig checks = execution.workspace().checks();
    if (checks == null) {
      return;
    }
    checkPhase(map, pipelines, "checks_phase", checks.phase(), "a red check");
    if (checks.feedback() != null) {
      checkPhase(map, pipelines, "review_feedback_phase", checks.feedback().phase(), "a review asking for changes");
    }
  }

  private void checkPhase(YamlNode.Mapping map, Map<String, Pipeline> pipelines, String key, String phase,
      String what) {
    if (phase == null) {
      return;
    }
    for (Pipeline pipeline : pipelines.values()) {
      if (pipeline.allPhases().stream().noneMatch(p -> p.name().equals(phase))) {
        YamlNode at = map.get("execution").filter(YamlNode.Mapping.class::isInstance).map(YamlNode.Mapping.class::cast)
            .flatMap(m -> m.get(key)).orElseThrow();
        problems.at(at, "execution." + key + " " + Quote.value(phase) + " is not a phase of pipeline "
            + pipeline.name() + " (" + what + " sends an item back there): name a phase every pipeline has, or "
            + "leave " + key + " out for each pipeline's last phase");
        return;
      }
    }
  }

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

  /** A section that is accepted only empty, for configs written by earlier versions. */
  private void noKeys(YamlNode.Mapping map, String section, String why) {
    for (YamlNode.Entry entry : map.entries()) {
      problems.at(entry.key(), "unknown key " + Quote.value(entry.key().name()) + " in " + section + ": " + why);
    }
  }
}
