package dev.orchestrate.config;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.notify.NotifySink;
import dev.orchestrate.yaml.Sizes;
import dev.orchestrate.yaml.YamlReader;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The validated, immutable configuration. {@code source} is the file it came from, or empty for
 * the built-in defaults. {@code notifications} are the {@code notify:} sinks (docs/notifications.md).
 * {@code backlogSource} is {@code backlog.source}, the command that prints the backlog, or null: the
 * backlog file.
 */
public record Config(
    Optional<Path> source,
    AgentConfig agent,
    ExecutionConfig execution,
    String defaultPipeline,
    Map<String, Pipeline> pipelines,
    ContextConfig context,
    int memoryKeepRecent,
    int memoryBootContextChars,
    RetentionConfig retention,
    StateConfig state,
    BudgetConfig budget,
    Map<String, AgentConfig> agents,
    List<NotifySink> notifications,
    long backlogMaxBytes,
    BacklogSourceConfig backlogSource) {

  public static final String DEFAULT_PIPELINE = "feature";
  public static final int DEFAULT_WINDOW_SIZE = ContextConfig.DEFAULT_WINDOW_SIZE;
  public static final int DEFAULT_KEEP_RECENT = 50;
  public static final int DEFAULT_BOOT_CONTEXT_CHARS = 20_000;
  /** {@code backlog.max_bytes}: see {@link dev.orchestrate.yaml.YamlReader#MAX_BACKLOG_BYTES}. */
  public static final long DEFAULT_BACKLOG_MAX_BYTES = YamlReader.MAX_BACKLOG_BYTES;

  public Config {
    java.util.Objects.requireNonNull(context, "context");
    if (backlogMaxBytes < 1 || backlogMaxBytes > Ranges.BACKLOG_MAX_BYTES) {
      throw new IllegalArgumentException("backlog.max_bytes must be 1 byte to "
          + Sizes.format(Ranges.BACKLOG_MAX_BYTES) + ", got " + backlogMaxBytes);
    }
    pipelines = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(pipelines));
    retention = retention == null ? RetentionConfig.defaults() : retention;
    state = state == null ? StateConfig.defaults() : state;
    budget = budget == null ? BudgetConfig.NONE : budget;
    agents = agents == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(agents));
    notifications = notifications == null ? List.of() : List.copyOf(notifications);
  }

  /** A config whose backlog is the file ({@code backlog.source} left out). */
  public Config(Optional<Path> source, AgentConfig agent, ExecutionConfig execution, String defaultPipeline,
      Map<String, Pipeline> pipelines, ContextConfig context, int memoryKeepRecent, int memoryBootContextChars,
      RetentionConfig retention, StateConfig state, BudgetConfig budget, Map<String, AgentConfig> agents,
      List<NotifySink> notifications, long backlogMaxBytes) {
    this(source, agent, execution, defaultPipeline, pipelines, context, memoryKeepRecent, memoryBootContextChars,
        retention, state, budget, agents, notifications, backlogMaxBytes, null);
  }

  /** A config with the default cap on the backlog file's size ({@code backlog:} left out). */
  public Config(Optional<Path> source, AgentConfig agent, ExecutionConfig execution, String defaultPipeline,
      Map<String, Pipeline> pipelines, ContextConfig context, int memoryKeepRecent, int memoryBootContextChars,
      RetentionConfig retention, StateConfig state, BudgetConfig budget, Map<String, AgentConfig> agents,
      List<NotifySink> notifications) {
    this(source, agent, execution, defaultPipeline, pipelines, context, memoryKeepRecent, memoryBootContextChars,
        retention, state, budget, agents, notifications, DEFAULT_BACKLOG_MAX_BYTES);
  }

  /** A config that tells no one anything ({@code notify:} left out). */
  public Config(Optional<Path> source, AgentConfig agent, ExecutionConfig execution, String defaultPipeline,
      Map<String, Pipeline> pipelines, ContextConfig context, int memoryKeepRecent, int memoryBootContextChars,
      RetentionConfig retention, StateConfig state, BudgetConfig budget, Map<String, AgentConfig> agents) {
    this(source, agent, execution, defaultPipeline, pipelines, context, memoryKeepRecent, memoryBootContextChars,
        retention, state, budget, agents, List.of());
  }

  public Config(Optional<Path> source, AgentConfig agent, ExecutionConfig execution, String defaultPipeline,
      Map<String, Pipeline> pipelines, ContextConfig context, int memoryKeepRecent, int memoryBootContextChars,
      RetentionConfig retention, StateConfig state, BudgetConfig budget) {
    this(source, agent, execution, defaultPipeline, pipelines, context, memoryKeepRecent, memoryBootContextChars,
        retention, state, budget, Map.of());
  }

  /**
   * The agent profile named {@code name}: null or the default profile's name is {@link #agent()},
   * else one of {@code agents:}.
   *
   * @throws IllegalArgumentException for a name the config does not define (the loader refuses those)
   */
  public AgentConfig profile(String name) {
    if (name == null || name.equals(agent.profileName())) {
      return agent;
    }
    AgentConfig profile = agents.get(name);
    if (profile == null) {
      throw new IllegalArgumentException("unknown agent profile " + Quote.value(name));
    }
    return profile;
  }

  /** Every agent profile, the default one first. */
  public Map<String, AgentConfig> profiles() {
    Map<String, AgentConfig> all = new LinkedHashMap<>();
    all.put(agent.profileName(), agent);
    all.putAll(agents);
    return all;
  }

  /** This config with every agent profile ({@code agent:} and each of {@code agents:}) passed through {@code change}. */
  public Config withProfiles(java.util.function.UnaryOperator<AgentConfig> change) {
    Map<String, AgentConfig> changed = new LinkedHashMap<>();
    agents.forEach((key, profile) -> changed.put(key, change.apply(profile)));
    return new Config(source, change.apply(agent), execution, defaultPipeline, pipelines, context, memoryKeepRecent,
        memoryBootContextChars, retention, state, budget, changed, notifications, backlogMaxBytes, backlogSource);
  }

  /** A config without a project budget. */
  public Config(Optional<Path> source, AgentConfig agent, ExecutionConfig execution, String defaultPipeline,
      Map<String, Pipeline> pipelines, ContextConfig context, int memoryKeepRecent, int memoryBootContextChars,
      RetentionConfig retention, StateConfig state) {
    this(source, agent, execution, defaultPipeline, pipelines, context, memoryKeepRecent, memoryBootContextChars,
        retention, state, BudgetConfig.NONE);
  }

  /** A config with the default state settings. */
  public Config(Optional<Path> source, AgentConfig agent, ExecutionConfig execution, String defaultPipeline,
      Map<String, Pipeline> pipelines, ContextConfig context, int memoryKeepRecent, int memoryBootContextChars,
      RetentionConfig retention) {
    this(source, agent, execution, defaultPipeline, pipelines, context, memoryKeepRecent, memoryBootContextChars,
        retention, StateConfig.defaults());
  }

  /** A config with the default retention. */
  public Config(Optional<Path> source, AgentConfig agent, ExecutionConfig execution, String defaultPipeline,
      Map<String, Pipeline> pipelines, ContextConfig context, int memoryKeepRecent, int memoryBootContextChars) {
    this(source, agent, execution, defaultPipeline, pipelines, context, memoryKeepRecent,
        memoryBootContextChars, RetentionConfig.defaults());
  }

  /** Built-in defaults: the {@code feature} pipeline and no agent command. */
  public static Config defaults() {
    Pipeline feature = new Pipeline(DEFAULT_PIPELINE,
        List.of(new PhaseDef("scope", "Decide what this item needs; record assumptions.", null, false)),
        List.of(
            new PhaseDef("design", "Design the change: the approach, the files to touch, the risks.", null, false),
            new PhaseDef("build", "Implement the design.", null, true),
            new PhaseDef("review", "Review the change.", null, false)));
    return new Config(Optional.empty(), AgentConfig.defaults(), ExecutionConfig.defaults(),
        DEFAULT_PIPELINE, Map.of(DEFAULT_PIPELINE, feature), ContextConfig.defaults(),
        DEFAULT_KEEP_RECENT, DEFAULT_BOOT_CONTEXT_CHARS);
  }

  Pipeline pipeline(String name) {
    Pipeline p = pipelines.get(name);
    if (p == null) {
      throw new IllegalArgumentException("unknown pipeline " + Quote.value(name));
    }
    return p;
  }

  public Config withExecution(ExecutionConfig execution) {
    return new Config(source, agent, execution, defaultPipeline, pipelines, context,
        memoryKeepRecent, memoryBootContextChars, retention, state, budget, agents, notifications, backlogMaxBytes,
        backlogSource);
  }

  /** This config with its {@code state} section replaced. */
  public Config withState(StateConfig state) {
    return new Config(source, agent, execution, defaultPipeline, pipelines, context,
        memoryKeepRecent, memoryBootContextChars, retention, state, budget, agents, notifications, backlogMaxBytes,
        backlogSource);
  }

  /** This config with {@code backlog.source} set to {@code source} (null: the backlog file). */
  public Config withBacklogSource(BacklogSourceConfig source) {
    return new Config(this.source, agent, execution, defaultPipeline, pipelines, context, memoryKeepRecent,
        memoryBootContextChars, retention, state, budget, agents, notifications, backlogMaxBytes, source);
  }
}
