package dev.orchestrate.config;

import static dev.orchestrate.config.ConfigLoader.ACP_KEYS;
import static dev.orchestrate.config.ConfigLoader.AGENT_KEYS;
import static dev.orchestrate.config.ConfigLoader.MIN_OUTPUT_TAIL_CHARS;
import static dev.orchestrate.config.ConfigLoader.PROFILE_KEYS;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.Names;
import dev.orchestrate.yaml.Sizes;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@code agent:} and {@code agents:}: the default agent and the named profiles, for {@link ConfigLoader}.
 */
final class AgentsSection extends SectionReader {
  AgentsSection(SectionReader load) {
    super(load);
  }

  /** agents: a map of profile names to agent settings (the keys of agent:, and max_concurrent). */
  Map<String, AgentConfig> agents(YamlNode.Entry entry) {
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

  AgentConfig agent(YamlNode.Mapping map) {
    return agent(map, true);
  }

  /** {@code checkKeys}: false for a profile of agents:, whose keys the caller checked (it has max_concurrent too). */
  AgentConfig agent(YamlNode.Mapping map, boolean checkKeys) {
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
    SandboxConfig.Kind box = setting(section, "sandbox", n -> values.choice(n, "agent.sandbox",
        Values.words(SandboxConfig.Kind.values()))).orElse(defaults.sandbox().kind());
    if (box != SandboxConfig.Kind.NONE && preset == AgentPreset.CODEX && args.stream().noneMatch(a -> a.equals("-s")
        || a.startsWith("--sandbox") || a.equals("--dangerously-bypass-approvals-and-sandbox"))) {
      // Codex's own sandbox (its default) cannot start inside orchestrate's, and its commands would
      // fail while it exits 0: inside ours, it runs without its own (docs/security.md).
      args = Stream.concat(args.stream(), Stream.of("--sandbox", "danger-full-access")).toList();
    }
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
        .withResume(setting(section, "resume", n -> values.bool(n, "agent.resume")).orElse(false))
        .withSandbox(new SandboxConfig(
            box,
            setting(section, "sandbox_writable", n -> sandboxPaths(n, "agent.sandbox_writable"))
                .orElse(defaults.sandbox().writable()),
            setting(section, "sandbox_gate_network", n -> values.bool(n, "agent.sandbox_gate_network"))
                .orElse(defaults.sandbox().gateNetwork()),
            setting(section, "sandbox_hidden", n -> sandboxPaths(n, "agent.sandbox_hidden"))
                .orElse(defaults.sandbox().hidden())))
        .withAcp(acpOf(map, preset));
  }

  /** agent.acp, checked against the preset: only {@code preset: acp} takes it, and that preset needs agent.command. */
  private AcpConfig acpOf(YamlNode.Mapping map, AgentPreset preset) {
    if (preset == AgentPreset.ACP && map.get("command").isEmpty()) {
      problems.at(map.get("preset").get(), "agent.preset: acp needs agent.command (the ACP agent's program and its "
          + "arguments, e.g. [\"npx\", \"@zed-industries/claude-code-acp\"] or [\"gemini\", \"--experimental-acp\"])");
    }
    AcpConfig acp = setting(Optional.of(map), "acp", this::acp).orElse(AcpConfig.DEFAULT);
    if (map.get("acp").isPresent() && preset != AgentPreset.ACP) {
      problems.at(map.get("acp").get(), "agent.acp is for agent.preset: acp (an Agent Client Protocol agent); this "
          + "agent's preset is " + preset.key());
    }
    return acp;
  }

  /**
   * agent.acp: {@code permissions:} {@code worktree} (the default), {@code deny}, {@code allow}, or a
   * list of ACP tool kinds that are allowed.
   */
  private Optional<AcpConfig> acp(YamlNode node) {
    Optional<YamlNode.Mapping> map = values.mapping(node, "agent.acp", "a map like {permissions: worktree}");
    if (map.isEmpty()) {
      return Optional.empty();
    }
    problems.unknownKeys(map.get(), ACP_KEYS, "key", "agent.acp");
    Optional<YamlNode> permissions = map.get().get("permissions");
    if (permissions.isEmpty()) {
      return Optional.of(AcpConfig.DEFAULT);
    }
    YamlNode p = permissions.get();
    if (p instanceof YamlNode.Sequence list) {
      Optional<List<String>> kinds = values.strings(p, "agent.acp.permissions", "", "tool kind");
      if (kinds.isEmpty()) {
        return Optional.empty();
      }
      boolean ok = true;
      for (int i = 0; i < kinds.get().size(); i++) {
        if (!AcpConfig.TOOL_KINDS.contains(kinds.get().get(i))) {
          problems.at(list.items().get(i), "agent.acp.permissions: " + Quote.value(kinds.get().get(i))
              + " is not a tool kind of ACP; use " + String.join(", ", AcpConfig.TOOL_KINDS));
          ok = false;
        }
      }
      return ok ? Optional.of(AcpConfig.kinds(new java.util.LinkedHashSet<>(kinds.get()))) : Optional.empty();
    }
    Map<String, AcpConfig.Permissions> words = new LinkedHashMap<>(Values.words(AcpConfig.Permissions.values()));
    words.remove("kinds");
    if (!(p instanceof YamlNode.Scalar)) {
      problems.expected(p, "agent.acp.permissions", "worktree, deny, allow, or a list of tool kinds like [read, "
          + "edit]");
      return Optional.empty();
    }
    String word = ((YamlNode.Scalar) p).text();
    if (!words.containsKey(word)) {
      problems.at(p, "agent.acp.permissions must be worktree, deny, allow, or a list of tool kinds like [read, edit], "
          + "got " + Quote.value(word));
      return Optional.empty();
    }
    return Optional.of(new AcpConfig(words.get(word), java.util.Set.of()));
  }

  /** agent.sandbox_writable, agent.sandbox_hidden: absolute paths or {@code ~/...}, no {@code ..}. */
  private Optional<List<String>> sandboxPaths(YamlNode node, String key) {
    Optional<List<String>> paths = values.strings(node, key, "", "path");
    if (paths.isEmpty() || !(node instanceof YamlNode.Sequence list)) {
      return paths;
    }
    boolean ok = true;
    for (int i = 0; i < paths.get().size(); i++) {
      String path = paths.get().get(i);
      boolean absolute = path.startsWith("/") || path.startsWith("~/");
      if (!absolute || java.util.Arrays.asList(path.split("/")).contains("..") || path.equals("/")) {
        problems.at(list.items().get(i), key + ": " + Quote.value(path) + " must be an absolute "
            + "path or one under ~/, without '..', and not / itself (e.g. ~/.npm, ~/.cache)");
        ok = false;
      }
    }
    return ok ? paths : Optional.empty();
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
}
