package dev.orchestrate.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How agents are run.
 *
 * @param command        argv, no shell; empty when no config provides one
 * @param timeout        per attempt
 * @param killGrace      time between TERM and KILL when an agent is stopped
 * @param env            extra environment for the agent
 * @param resultFallback meaning of an attempt without a result file
 * @param logMaxBytes    cap of each per-job log file
 * @param outputTailChars how much of the end of stdout/stderr is kept in memory and used as the
 *                       summary / failure context
 * @param preset         which CLI this is and how its output reads; {@code command} is the whole
 *                       argv then
 * @param args           the user's own flags, already appended to {@code command}
 * @param stallTimeout   stop an agent that wrote nothing to stdout or stderr for this long; null: off
 * @param secretEnv      names of variables whose values are masked as {@code ***} wherever
 *                       orchestrate writes agent text (on top of the built-in rules, see
 *                       docs/agents.md "Secrets")
 * @param stopLeftoverProcesses whether everything an agent started is stopped when its job ends,
 *                       however it ends (false: only a timed-out or cancelled agent's own process
 *                       tree is, as before)
 * @param passSummarizerKey whether agents inherit the variable named by
 *                       {@code context.summarizer.api_key_env} (withheld by default)
 * @param onUsageLimit   what a usage limit does to the run: halt it (the default) or wait for the reset
 * @param maxWait        with {@code wait}: a reset further ahead than this halts the run instead
 * @param name           the profile's name when it comes from {@code agents:}; null for the
 *                       {@code agent:} block, named by its preset ({@link #profileName()})
 * @param maxConcurrent  at most this many of this profile's agents at once (a provider's
 *                       concurrency limit); 0: only {@code execution.max_concurrent} applies
 * @param resume         whether the next attempt of a phase continues the agent's session of the last one
 *                       (after a failure, a red gate, no changes, a limit or a stall) in the same worktree,
 *                       where the preset can resume ({@link AgentPreset#resumes()})
 * @param sandbox        {@code agent.sandbox}: where the agent, its gates and set-up steps run
 * @param acp            {@code agent.acp}: how an ACP agent's permission requests are answered
 *                       ({@code agent.preset: acp}; the default otherwise)
 */
public record AgentConfig(
    List<String> command,
    Duration timeout,
    Duration killGrace,
    Map<String, String> env,
    ResultFallback resultFallback,
    long logMaxBytes,
    int outputTailChars,
    AgentPreset preset,
    List<String> args,
    Duration stallTimeout,
    List<String> secretEnv,
    boolean stopLeftoverProcesses,
    boolean passSummarizerKey,
    OnUsageLimit onUsageLimit,
    Duration maxWait,
    String name,
    int maxConcurrent,
    boolean resume,
    SandboxConfig sandbox,
    AcpConfig acp) {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
  public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(10);
  public static final long DEFAULT_LOG_MAX_BYTES = 10L * 1024 * 1024;
  public static final int DEFAULT_OUTPUT_TAIL_CHARS = 4000;
  public static final boolean DEFAULT_STOP_LEFTOVER_PROCESSES = true;
  public static final boolean DEFAULT_PASS_SUMMARIZER_KEY = false;
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofHours(6);

  public AgentConfig {
    command = List.copyOf(command);
    env = Map.copyOf(env);
    preset = preset == null ? AgentPreset.COMMAND : preset;
    args = List.copyOf(args);
    secretEnv = List.copyOf(secretEnv);
    onUsageLimit = onUsageLimit == null ? OnUsageLimit.HALT : onUsageLimit;
    maxWait = maxWait == null ? DEFAULT_MAX_WAIT : maxWait;
    sandbox = sandbox == null ? SandboxConfig.NONE : sandbox;
    acp = acp == null ? AcpConfig.DEFAULT : acp;
  }

  public AgentConfig(List<String> command, Duration timeout, Duration killGrace, Map<String, String> env,
      ResultFallback resultFallback, long logMaxBytes, int outputTailChars, AgentPreset preset, List<String> args,
      Duration stallTimeout, List<String> secretEnv, boolean stopLeftoverProcesses, boolean passSummarizerKey,
      OnUsageLimit onUsageLimit, Duration maxWait, String name, int maxConcurrent, boolean resume,
      SandboxConfig sandbox) {
    this(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset, args, stallTimeout,
        secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name, maxConcurrent, resume,
        sandbox, AcpConfig.DEFAULT);
  }

  /** This config with {@code agent.acp}. */
  public AgentConfig withAcp(AcpConfig settings) {
    return new AgentConfig(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset,
        args, stallTimeout, secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name,
        maxConcurrent, resume, sandbox, settings);
  }

  public AgentConfig(List<String> command, Duration timeout, Duration killGrace, Map<String, String> env,
      ResultFallback resultFallback, long logMaxBytes, int outputTailChars, AgentPreset preset, List<String> args,
      Duration stallTimeout, List<String> secretEnv, boolean stopLeftoverProcesses, boolean passSummarizerKey,
      OnUsageLimit onUsageLimit, Duration maxWait, String name, int maxConcurrent) {
    this(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset, args, stallTimeout,
        secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name, maxConcurrent, false);
  }

  public AgentConfig(List<String> command, Duration timeout, Duration killGrace, Map<String, String> env,
      ResultFallback resultFallback, long logMaxBytes, int outputTailChars, AgentPreset preset, List<String> args,
      Duration stallTimeout, List<String> secretEnv, boolean stopLeftoverProcesses, boolean passSummarizerKey,
      OnUsageLimit onUsageLimit, Duration maxWait, String name, int maxConcurrent, boolean resume) {
    this(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset, args, stallTimeout,
        secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name, maxConcurrent, resume,
        SandboxConfig.NONE);
  }

  /** This config with {@code agent.sandbox}. */
  public AgentConfig withSandbox(SandboxConfig box) {
    return new AgentConfig(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset,
        args, stallTimeout, secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name,
        maxConcurrent, resume, box, acp);
  }

  /** This config with {@code agent.resume}. */
  public AgentConfig withResume(boolean on) {
    return new AgentConfig(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset,
        args, stallTimeout, secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name,
        maxConcurrent, on, sandbox, acp);
  }

  /** This config with another argv (the same program and arguments, say, with its paths made absolute). */
  public AgentConfig withCommand(List<String> argv) {
    return new AgentConfig(argv, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset, args,
        stallTimeout, secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name, maxConcurrent,
        resume, sandbox, acp);
  }

  /** Whether a retry of this profile continues the last attempt's session: asked for, and the preset can. */
  public boolean resumes() {
    return resume && preset.resumes();
  }

  public AgentConfig(List<String> command, Duration timeout, Duration killGrace, Map<String, String> env,
      ResultFallback resultFallback, long logMaxBytes, int outputTailChars, AgentPreset preset, List<String> args,
      Duration stallTimeout, List<String> secretEnv, boolean stopLeftoverProcesses, boolean passSummarizerKey,
      OnUsageLimit onUsageLimit, Duration maxWait) {
    this(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset, args, stallTimeout,
        secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, null, 0);
  }

  public AgentConfig(List<String> command, Duration timeout, Duration killGrace, Map<String, String> env,
      ResultFallback resultFallback, long logMaxBytes, int outputTailChars, AgentPreset preset, List<String> args,
      Duration stallTimeout, List<String> secretEnv, boolean stopLeftoverProcesses, boolean passSummarizerKey) {
    this(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset, args, stallTimeout,
        secretEnv, stopLeftoverProcesses, passSummarizerKey, OnUsageLimit.HALT, DEFAULT_MAX_WAIT);
  }

  /** This config with what a provider's usage limit does to a run. */
  public AgentConfig withLimits(OnUsageLimit on, Duration wait) {
    return new AgentConfig(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset,
        args, stallTimeout, secretEnv, stopLeftoverProcesses, passSummarizerKey, on, wait, name, maxConcurrent, resume,
        sandbox, acp);
  }

  /**
   * The name of this agent's profile, as pauses and jobs name it: the preset ({@code claude},
   * {@code codex}, …), or {@code agent} for a plain command.
   */
  public String profileName() {
    if (name != null) {
      return name;
    }
    return preset == AgentPreset.COMMAND ? "agent" : preset.name().toLowerCase(java.util.Locale.ROOT);
  }

  /** This config as the profile {@code name} of {@code agents:}, with its own concurrency cap (0: none). */
  public AgentConfig asProfile(String profile, int cap) {
    return new AgentConfig(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset,
        args, stallTimeout, secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, profile, cap,
        resume, sandbox, acp);
  }

  /** A plain command agent (no preset, no stall timeout), with the default secret and process settings. */
  public AgentConfig(List<String> command, Duration timeout, Duration killGrace, Map<String, String> env,
      ResultFallback resultFallback, long logMaxBytes, int outputTailChars) {
    this(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, AgentPreset.COMMAND,
        List.of(), null);
  }

  /** A preset agent with the default secret and process settings. */
  public AgentConfig(List<String> command, Duration timeout, Duration killGrace, Map<String, String> env,
      ResultFallback resultFallback, long logMaxBytes, int outputTailChars, AgentPreset preset,
      List<String> args, Duration stallTimeout) {
    this(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset, args,
        stallTimeout, List.of(), DEFAULT_STOP_LEFTOVER_PROCESSES, DEFAULT_PASS_SUMMARIZER_KEY);
  }

  /** A plain command agent (no preset, no stall timeout) with the secret and process settings given. */
  public AgentConfig(List<String> command, Duration timeout, Duration killGrace, Map<String, String> env,
      ResultFallback resultFallback, long logMaxBytes, int outputTailChars, List<String> secretEnv,
      boolean stopLeftoverProcesses, boolean passSummarizerKey) {
    this(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, AgentPreset.COMMAND,
        List.of(), null, secretEnv, stopLeftoverProcesses, passSummarizerKey);
  }

  /** This config with the secret and process settings given. */
  public AgentConfig withSafety(List<String> secretEnv, boolean stopLeftoverProcesses, boolean passSummarizerKey) {
    return new AgentConfig(command, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars,
        preset, args, stallTimeout, secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name,
        maxConcurrent, resume, sandbox, acp);
  }

  /**
   * This config with the preset's cost cap flag and {@code usd} after the command (a budget's share
   * for one job); unchanged when the preset has no such flag.
   */
  public AgentConfig withCostCap(java.math.BigDecimal usd) {
    String flag = preset.costCapFlag();
    if (flag == null || command.isEmpty()) {
      return this;
    }
    List<String> capped = new java.util.ArrayList<>(command);
    capped.add(flag);
    capped.add(usd.toPlainString());
    return new AgentConfig(capped, timeout, killGrace, env, resultFallback, logMaxBytes, outputTailChars, preset,
        args, stallTimeout, secretEnv, stopLeftoverProcesses, passSummarizerKey, onUsageLimit, maxWait, name,
        maxConcurrent, resume, sandbox, acp);
  }

  static AgentConfig defaults() {
    return new AgentConfig(List.of(), DEFAULT_TIMEOUT, DEFAULT_KILL_GRACE, Map.of(),
        ResultFallback.EXIT_CODE, DEFAULT_LOG_MAX_BYTES, DEFAULT_OUTPUT_TAIL_CHARS);
  }
}
